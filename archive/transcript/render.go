package transcript

import (
	"bufio"
	"io"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
)

// HeaderLines is the number of lines before a transcript's first message.
// The header always has this many lines, whatever the session holds, so
// that adding a message never moves the lines of the messages before it.
const HeaderLines = 8

// TimeLayout is how times appear in transcripts.
const TimeLayout = "2006-01-02 Mon 15:04:05 -07:00"

// Position says where one message sits in its transcript. Lines are 1-based.
type Position struct {
	// Header is the line "### speaker · time".
	Header int
	// TextStart and TextEnd bound the message's verbatim text, inclusive.
	TextStart int
	TextEnd   int
}

// TextLines returns how many transcript lines a message text takes: one
// more than its count of newlines.
func TextLines(text string) int { return strings.Count(text, "\n") + 1 }

// Layout returns the position of each message of a session given how many
// text lines each takes (see [TextLines]). It renders nothing.
func Layout(textLines []int) []Position {
	out := make([]Position, len(textLines))
	line := HeaderLines + 1
	for i, n := range textLines {
		out[i] = Position{Header: line, TextStart: line + 1, TextEnd: line + n}
		line += n + 2 // header, text, blank line
	}
	return out
}

// Participants returns the distinct authors of msgs in order of first
// appearance.
func Participants(msgs []core.Message) []string {
	var out []string
	seen := map[string]bool{}
	for i := range msgs {
		w := msgs[i].Who()
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// Render writes the transcript of one session. msgs must be the session's
// messages in order. The output is deterministic, and message i occupies
// exactly the lines Layout gives for it:
//
//	# chat_<session>
//
//	- session: <session>
//	- namespace: <namespace or ->
//	- participants: Alice, Bob
//	- first: 2026-03-05 Thu 10:00:07 +08:00
//	- last: 2026-03-05 Thu 10:02:41 +08:00
//
//	### Alice (user) · 2026-03-05 Thu 10:00:07 +08:00
//	<text, verbatim, one or more lines>
//
//	### ...
func Render(w io.Writer, namespace, session string, msgs []core.Message) error {
	bw := bufio.NewWriter(w)
	ns := namespace
	if ns == "" {
		ns = "-"
	}
	var first, last time.Time
	if len(msgs) > 0 {
		first, last = msgs[0].Time, msgs[len(msgs)-1].Time
	}
	bw.WriteString("# chat_" + session + "\n\n")
	bw.WriteString("- session: " + session + "\n")
	bw.WriteString("- namespace: " + ns + "\n")
	bw.WriteString("- participants: " + strings.Join(Participants(msgs), ", ") + "\n")
	bw.WriteString("- first: " + first.Format(TimeLayout) + "\n")
	bw.WriteString("- last: " + last.Format(TimeLayout) + "\n\n")
	for i := range msgs {
		bw.WriteString(MessageHeader(&msgs[i]) + "\n")
		bw.WriteString(msgs[i].Text)
		bw.WriteString("\n\n")
	}
	return bw.Flush()
}

// MessageHeader returns the header line of one message, without newline:
// "### Alice (user) · 2026-03-05 Thu 10:00:07 +08:00".
func MessageHeader(m *core.Message) string {
	who := m.Who()
	if m.Speaker != "" && m.Role != core.RoleNone {
		who += " (" + string(m.Role) + ")"
	}
	return "### " + who + " · " + m.Time.Format(TimeLayout)
}
