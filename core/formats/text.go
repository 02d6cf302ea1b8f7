package formats

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
)

// Regular expressions here are compiled on first use, so that a process
// that never needs them does not pay for them at init.
// textPrefix matches a speaker prefix at the start of a line.
var textPrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?i:(user|human|assistant|ai)\s*:|(用户|助手)\s*[:：])[ \t]?`)
})

// defaultModTime is the base time of a transcript without times whose file
// time is unknown.
var defaultModTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func isText(t []byte) bool {
	hasUser, hasOther, quote, afterQuote := false, false, false, false
	for _, line := range strings.Split(string(t), "\n") {
		line = strings.TrimRight(line, "\r")
		if m := textPrefix().FindStringSubmatch(line); m != nil {
			switch strings.ToLower(m[1] + m[2]) {
			case "user", "human", "用户":
				hasUser = true
			default:
				hasOther = true
			}
			continue
		}
		if strings.HasPrefix(line, ">") {
			quote = true
		} else if quote && strings.TrimSpace(line) != "" {
			afterQuote = true
		}
	}
	return (hasUser && hasOther) || afterQuote
}

// readText reads a plain-text transcript. Two layouts are understood:
//
//   - prefixed lines: a line starting "User:", "Human:", "用户：" (or
//     "用户:") starts a user message, one starting "Assistant:", "AI:" or
//     "助手：" an assistant message; the lines that follow, up to the next
//     prefixed line, belong to it.
//   - MemPalace's layout, used when no line is prefixed: a run of lines
//     starting with ">" is a user message (the ">" and one space after it
//     removed), and the lines after it, up to the next ">" line, are the
//     assistant's reply.
//
// Blank lines at the ends of a message are dropped; everything else is
// kept verbatim. Text before the first message becomes a system message.
// The session is the file name without its extension. The file holds no
// times, so message i (from 0) gets the file's modification time, cut to
// the second, plus i seconds ([Options.ModTime]), in [Options.Location].
func readText(r io.Reader, name string, opts Options) ([]core.Message, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	prefixed := false
	for _, l := range lines {
		if textPrefix().MatchString(l) {
			prefixed = true
			break
		}
	}
	type block struct {
		role  core.Role
		line  int
		lines []string
	}
	var blocks []*block
	cur := &block{role: core.RoleSystem, line: 1}
	blocks = append(blocks, cur)
	start := func(role core.Role, n int, first string) {
		cur = &block{role: role, line: n, lines: []string{first}}
		blocks = append(blocks, cur)
	}
	for i, l := range lines {
		n := i + 1
		switch {
		case prefixed:
			if m := textPrefix().FindStringSubmatch(l); m != nil {
				role := core.RoleAssistant
				switch strings.ToLower(m[1] + m[2]) {
				case "user", "human", "用户":
					role = core.RoleUser
				}
				start(role, n, l[len(m[0]):])
				continue
			}
			cur.lines = append(cur.lines, l)
		case strings.HasPrefix(l, ">"):
			rest := strings.TrimPrefix(strings.TrimPrefix(l, ">"), " ")
			if cur.role == core.RoleUser {
				cur.lines = append(cur.lines, rest)
			} else {
				start(core.RoleUser, n, rest)
			}
		default:
			if cur.role == core.RoleUser {
				start(core.RoleAssistant, n, l)
			} else {
				cur.lines = append(cur.lines, l)
			}
		}
	}
	base := opts.ModTime
	if base.IsZero() {
		base = defaultModTime
	}
	base = base.Truncate(time.Second).In(opts.loc())
	session := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	var msgs []core.Message
	var at []int
	for _, b := range blocks {
		text := trimBlankLines(b.lines)
		text = StripNoise(text)
		if strings.TrimSpace(text) == "" {
			continue
		}
		msgs = append(msgs, core.Message{Session: session, Time: base.Add(time.Duration(len(msgs)) * time.Second), Role: b.role, Text: text})
		at = append(at, b.line)
	}
	if len(msgs) == 0 {
		return nil, &core.InputError{Path: name, Err: fmt.Errorf("no messages: want lines starting with \">\", \"User:\"/\"Assistant:\" or \"用户：\"/\"助手：\"")}
	}
	return finish(name, msgs, opts, func(i int) int { return at[i] })
}

// trimBlankLines joins lines, dropping blank lines at both ends.
func trimBlankLines(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
