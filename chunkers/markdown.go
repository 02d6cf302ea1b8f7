package chunkers

import (
	"context"
	"fmt"
	"strings"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/core"
)

// Markdown cuts each message's text into its heading sections: one chunk
// per ATX heading ("#" to "######" at the start of a line, after at most
// three spaces, and followed by a space, a tab or the end of the line),
// from the heading line to the line before the next heading of any level.
// Lines inside fenced code blocks (``` or ~~~) are never headings, and a
// fence left open runs to the end of the message. Setext headings
// (underlined with === or ---) are not recognised.
//
// A chunk's Section is its heading path, the titles of the enclosing
// headings joined with " > ", such as "Install > Linux". A title is the
// heading's text without the #s, its closing #s and surrounding space;
// empty titles are left out of the path. Each message is a document of its
// own: the path starts afresh in every message.
//
// The text before a message's first heading, when it holds more than blank
// lines, is a section of its own with Section "", and it starts with the
// message's header line. Otherwise the header line joins the first heading's
// section, so that every message's first chunk starts on its header line.
// Trailing blank lines of a section are left out. A section's Text is
// exactly its transcript lines, LineStart to LineEnd, joined with "\n".
//
// A message without headings is one chunk, as with [Message]: its header
// line and text, with Text left empty so that its content is the message's
// own. Sections are never split, however long. Markdown is deterministic.
type Markdown struct{}

var _ core.Chunker = Markdown{}

// mdSection is a heading section of a message's text.
type mdSection struct {
	line int    // 0-based text line of the heading
	path string // heading path
}

// Chunk returns one span per heading section of each message. It fails
// when the messages' line numbers do not follow [transcript.Layout].
func (Markdown) Chunk(ctx context.Context, msgs []core.SessionMessage) ([]core.Span, error) {
	var (
		spans  []core.Span
		starts []int // byte offsets of a message's text lines
		secs   []mdSection
	)
	want := 0
	for i := range msgs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		m := &msgs[i]
		if err := checkLayout(m, i, want); err != nil {
			return nil, err
		}
		want = m.TextEnd + 2
		text := m.Text
		starts = append(starts[:0], 0)
		for off := 0; ; {
			k := strings.IndexByte(text[off:], '\n')
			if k < 0 {
				break
			}
			off += k + 1
			starts = append(starts, off)
		}
		if n := len(starts); n != m.TextEnd-m.TextStart+1 {
			return nil, fmt.Errorf("chunkers: message %d has %d text lines, but the transcript gives it lines %d-%d",
				i, n, m.TextStart, m.TextEnd)
		}
		line := func(k int) string {
			if k+1 < len(starts) {
				return text[starts[k] : starts[k+1]-1]
			}
			return text[starts[k]:]
		}
		// lineEnd is the byte offset just after line k's text.
		lineEnd := func(k int) int { return starts[k] + len(line(k)) }
		// lastText returns the last line in [from, to) that is not
		// blank, or from-1.
		lastText := func(from, to int) int {
			k := to - 1
			for k >= from && isBlank(line(k)) {
				k--
			}
			return k
		}
		secs = headings(secs[:0], len(starts), line)
		if len(secs) == 0 {
			spans = append(spans, span(msgs, i, i+1))
			continue
		}
		header := transcript.MessageHeader(&m.Message)
		withHeader := true // the next section starts on the header line
		if pre := lastText(0, secs[0].line); pre >= 0 {
			spans = append(spans, core.Span{From: i, To: i + 1, LineStart: m.HeaderLine, LineEnd: m.TextStart + pre,
				Text: header + "\n" + text[:lineEnd(pre)]})
			withHeader = false
		}
		for j, s := range secs {
			next := len(starts)
			if j+1 < len(secs) {
				next = secs[j+1].line
			}
			// The heading line is not blank, so last >= s.line.
			last := lastText(s.line, next)
			sp := core.Span{From: i, To: i + 1, LineStart: m.TextStart + s.line, LineEnd: m.TextStart + last,
				Text: text[starts[s.line]:lineEnd(last)], Section: s.path}
			if withHeader {
				sp.LineStart, sp.Text = m.HeaderLine, header+"\n"+text[:lineEnd(last)]
				withHeader = false
			}
			spans = append(spans, sp)
		}
	}
	return spans, nil
}

// headings appends to dst the ATX headings among the n lines that line
// returns, skipping fenced code blocks, each with its heading path.
func headings(dst []mdSection, n int, line func(int) string) []mdSection {
	type level struct {
		depth int
		title string
	}
	var (
		stack  []level
		fenced bool
		fch    byte // fence character
		flen   int  // fence length
	)
	for k := range n {
		l := strings.TrimSuffix(line(k), "\r")
		if fenced {
			if ch, fn, info, ok := fence(l); ok && ch == fch && fn >= flen && info == "" {
				fenced = false
			}
			continue
		}
		if ch, fn, _, ok := fence(l); ok {
			fenced, fch, flen = true, ch, fn
			continue
		}
		depth, title, ok := atxHeading(l)
		if !ok {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, level{depth, title})
		var path strings.Builder
		for _, s := range stack {
			if s.title == "" {
				continue
			}
			if path.Len() > 0 {
				path.WriteString(" > ")
			}
			path.WriteString(s.title)
		}
		dst = append(dst, mdSection{line: k, path: path.String()})
	}
	return dst
}

// indent returns the index after up to three leading spaces of l, or -1
// when l is indented by four or more (an indented code block).
func indent(l string) int {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	if i > 3 {
		return -1
	}
	return i
}

// atxHeading parses an ATX heading line: its depth (1 to 6) and title.
func atxHeading(l string) (depth int, title string, ok bool) {
	i := indent(l)
	if i < 0 {
		return 0, "", false
	}
	j := i
	for j < len(l) && l[j] == '#' {
		j++
	}
	depth = j - i
	if depth < 1 || depth > 6 || (j < len(l) && l[j] != ' ' && l[j] != '\t') {
		return 0, "", false
	}
	title = strings.Trim(l[j:], " \t")
	// An optional closing sequence of #s, after a space or alone.
	k := len(title)
	for k > 0 && title[k-1] == '#' {
		k--
	}
	switch {
	case k == 0:
		title = ""
	case title[k-1] == ' ' || title[k-1] == '\t':
		title = strings.TrimRight(title[:k], " \t")
	}
	return depth, title, true
}

// fence parses a code fence line: at least three backticks or tildes,
// and the info string after them. A backtick fence's info string may not
// hold a backtick.
func fence(l string) (ch byte, n int, info string, ok bool) {
	i := indent(l)
	if i < 0 || i >= len(l) || (l[i] != '`' && l[i] != '~') {
		return 0, 0, "", false
	}
	ch = l[i]
	j := i
	for j < len(l) && l[j] == ch {
		j++
	}
	if j-i < 3 {
		return 0, 0, "", false
	}
	info = strings.Trim(l[j:], " \t")
	if ch == '`' && strings.IndexByte(info, '`') >= 0 {
		return 0, 0, "", false
	}
	return ch, j - i, info, true
}
