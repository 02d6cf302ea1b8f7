package formats

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
)

// transcriptTime is archive.TimeLayout, the time format of transcripts.
const transcriptTime = "2006-01-02 Mon 15:04:05 -07:00"

// Regular expressions here are compiled on first use, so that a process
// that never needs them does not pay for them at init.
var (
	markdownHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^### .+ · \d{4}-\d{2}-\d{2} `) })
	messageHeader  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^### (.+) · (\d{4}-\d{2}-\d{2} [A-Z][a-z]{2} \d{2}:\d{2}:\d{2} [+-]\d{2}:\d{2})$`)
	})
	whoRole = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+) \((user|assistant|system)\)$`) })
)

// readMarkdown reads a transcript that HuiMemory wrote (see archive.Render):
// an 8-line header naming the session and namespace, then each message as
// "### Alice (user) · 2026-11-17 Tue 10:00:07 +08:00", its text and a blank
// line. "### user · ..." is a message with a role and no speaker, "### Bob ·
// ..." one with a speaker and no role. A message's text runs to the blank
// line before the next header line. Transcript times are to the second, so
// sub-second parts of the original times are not recovered.
func readMarkdown(r io.Reader, name string, opts Options) ([]core.Message, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var session, ns string
	if len(lines) > 0 && strings.HasPrefix(lines[0], "# chat_") {
		session = strings.TrimPrefix(lines[0], "# chat_")
	}
	var heads []int
	for i, l := range lines {
		if v, ok := strings.CutPrefix(l, "- session: "); ok && len(heads) == 0 {
			session = v
		}
		if v, ok := strings.CutPrefix(l, "- namespace: "); ok && len(heads) == 0 && v != "-" {
			ns = v
		}
		if messageHeader().MatchString(l) && (i == 0 || lines[i-1] == "") {
			heads = append(heads, i)
		}
	}
	if session == "" {
		return nil, &core.InputError{Path: name, Line: 1, Err: fmt.Errorf("not a HuiMemory transcript: missing the \"# chat_<session>\" title")}
	}
	var msgs []core.Message
	for k, h := range heads {
		end := len(lines)
		if k+1 < len(heads) {
			end = heads[k+1] - 1 // the blank line before the next header
		} else if end > h+1 && lines[end-1] == "" {
			end-- // the blank line after the last message
		}
		m := messageHeader().FindStringSubmatch(lines[h])
		t, err := time.Parse(transcriptTime, m[2])
		if err != nil {
			return nil, &core.InputError{Path: name, Line: h + 1, Err: fmt.Errorf("bad time %q: %v", m[2], err)}
		}
		msg := core.Message{Namespace: ns, Session: session, Time: t, Text: strings.Join(lines[h+1:max(end, h+1)], "\n")}
		switch who := m[1]; {
		case whoRole().MatchString(who):
			wm := whoRole().FindStringSubmatch(who)
			msg.Speaker, msg.Role = wm[1], core.Role(wm[2])
		case who == "user" || who == "assistant" || who == "system":
			msg.Role = core.Role(who)
		default:
			msg.Speaker = who
		}
		msgs = append(msgs, msg)
	}
	if len(msgs) == 0 {
		return nil, &core.InputError{Path: name, Err: fmt.Errorf("no messages: want \"### speaker (role) · 2026-11-17 Tue 10:00:07 +08:00\" headers")}
	}
	return finish(name, msgs, opts, func(i int) int { return heads[i] + 1 })
}
