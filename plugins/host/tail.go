package host

import (
	"bytes"
	"strings"
	"sync"
)

// tail keeps the end of a plugin's stderr for error messages: the last few
// lines, and the first line that looks like a crash (a Go panic or fatal
// error), which the stack trace after it would push out.
type tail struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
	crash   string
}

const (
	tailLines   = 8
	tailLineMax = 300
)

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.add(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 4*tailLineMax {
		t.add(string(t.partial))
		t.partial = t.partial[:0]
	}
	return len(p), nil
}

func (t *tail) add(line string) {
	line = strings.TrimSpace(line)
	if line == "" || chatter(line) {
		return
	}
	if len(line) > tailLineMax {
		line = line[:tailLineMax] + "..."
	}
	if t.crash == "" && (strings.HasPrefix(line, "panic:") || strings.HasPrefix(line, "fatal error:")) {
		t.crash = line
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > tailLines {
		t.lines = t.lines[1:]
	}
}

// summary returns the crash line, or else the last line, or "".
func (t *tail) summary() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.partial) > 0 {
		t.add(string(t.partial))
		t.partial = t.partial[:0]
	}
	if t.crash != "" {
		return t.crash
	}
	if len(t.lines) > 0 {
		return t.lines[len(t.lines)-1]
	}
	return ""
}

// chatter reports whether line is go-plugin's own JSON logging below the
// warning level, which says nothing about why a plugin failed.
func chatter(line string) bool {
	for _, level := range []string{"trace", "debug", "info"} {
		if strings.HasPrefix(line, `{"@level":"`+level+`"`) {
			return true
		}
	}
	return false
}
