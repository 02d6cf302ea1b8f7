package chunkers

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/core"
)

// Defaults of a zero [Window].
const (
	DefaultWindowSize = 800
	// DefaultWindowOverlap is the overlap of a Window with the default
	// size; a Window with only Size set overlaps by Size/8.
	DefaultWindowOverlap = DefaultWindowSize / 8
)

// Window slides a window of about Size characters (runes) over a session's
// transcript, the lines its messages occupy as [transcript.Render] writes
// them: each message's header line, its text lines, and the blank line
// between two messages. A chunk may therefore span several messages, or be
// one part of a long message.
//
// Chunks are cut at line boundaries and their Text is exactly the
// transcript lines LineStart to LineEnd joined with "\n", so a display that
// numbers Text's lines from LineStart shows the transcript's real line
// numbers. The rules, in order:
//
//   - A chunk starts and ends on a line that is not blank.
//   - It takes whole lines while they fit in Size runes (counting one for
//     each "\n" between them).
//   - When more text follows, it ends instead before the last blank line
//     (a paragraph or message break) that leaves it at least half full,
//     and never on a message's header line.
//   - The next chunk starts with the previous chunk's last lines, as many
//     whole lines as fit in Overlap runes, unless that overlap would leave
//     no room for a new line, in which case it has no overlap.
//   - A single line longer than Size becomes a chunk of its own, whole:
//     Text must be whole transcript lines, and the pieces such a line could
//     be cut into at rune boundaries would all start on the same line,
//     which the engine's chunk keys (first message plus line offset) do not
//     allow, so they are merged back into one chunk. When such a line
//     follows its message's header line, which would otherwise be a chunk
//     on its own, the header joins it.
//
// Each span's From and To are the messages it overlaps. Spans come out in
// order with strictly increasing LineStart, so no two share a start line.
//
// Window is deterministic and reads the session in one pass: the work is
// linear in the size of the text, and besides the spans it keeps only the
// lines of the current window in memory. Lines of one message's text are
// returned as substrings of that text, without a copy.
type Window struct {
	// Size is the largest chunk, in runes; 0 means DefaultWindowSize.
	Size int
	// Overlap is how many runes, at most, consecutive chunks share; 0
	// means Size/8 (DefaultWindowOverlap for the default size) and a
	// negative value means none. It must be less than Size.
	Overlap int
}

var _ core.Chunker = Window{}

// params returns the effective size and overlap.
func (w Window) params() (size, overlap int, err error) {
	size, overlap = w.Size, w.Overlap
	if size == 0 {
		size = DefaultWindowSize
	}
	if size < 0 {
		return 0, 0, fmt.Errorf("chunkers: window size %d is negative", size)
	}
	switch {
	case overlap == 0:
		overlap = size / 8
	case overlap < 0:
		overlap = 0
	case overlap >= size:
		return 0, 0, fmt.Errorf("chunkers: window overlap %d is not less than the window size %d", overlap, size)
	}
	return size, overlap, nil
}

// Chunk cuts the session's transcript into overlapping windows. It fails
// when the messages' line numbers do not follow [transcript.Layout].
func (w Window) Chunk(ctx context.Context, msgs []core.SessionMessage) ([]core.Span, error) {
	size, overlap, err := w.params()
	if err != nil {
		return nil, err
	}
	r := newLineReader(msgs)
	// Reserve room for about one span per (size - overlap) bytes of text.
	n := 0
	for i := range msgs {
		n += len(msgs[i].Text) + 64
	}
	var (
		spans = make([]core.Span, 0, min(n/(size-overlap)+1, 1<<20))
		buf   []tline // lines from the current chunk's first line on
		cum   []int   // cum[k]: runes of buf[0..k] joined with "\n"
		fresh int     // index in buf of the first line after the previous chunk
	)
	// get reports whether buf[k] exists, reading lines as needed.
	get := func(k int) bool {
		for len(buf) <= k {
			l, ok := r.next()
			if !ok {
				return false
			}
			buf = append(buf, l)
		}
		return true
	}
	drop := func(k int) {
		buf = buf[:copy(buf, buf[k:])]
		fresh = max(fresh-k, 0)
	}
	// trim returns the last line at or before k that is not blank.
	trim := func(k int) int {
		for k > 0 && buf[k].blank {
			k--
		}
		return k
	}
	for iter := 0; ; iter++ {
		if iter%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// A chunk never starts on a blank line.
		for get(0) {
			k := 0
			for k < len(buf) && buf[k].blank {
				k++
			}
			if k < len(buf) {
				drop(k)
				break
			}
			drop(len(buf))
		}
		if len(buf) == 0 {
			break
		}
		// Take whole lines while they fit.
		cum = append(cum[:0], buf[0].n)
		end, more := 0, true
		if buf[0].n <= size {
			for {
				if !get(end + 1) {
					more = false
					break
				}
				c := cum[end] + 1 + buf[end+1].n
				if c > size {
					break
				}
				cum = append(cum, c)
				end++
			}
		}
		last := trim(end)
		if more {
			// End at the last paragraph break that leaves the chunk at
			// least half full and holding a new line.
			for b := end; b > 0; b-- {
				if !buf[b].blank {
					continue
				}
				k := trim(b - 1)
				if cum[k] >= size/2 && k >= fresh {
					last = k
				}
				break
			}
			// Never end on a message's header when its text follows.
			if last > 0 && buf[last].off < 0 {
				last = trim(last - 1)
			}
		}
		if last < fresh {
			// What fits is all in the previous chunk: drop the overlap.
			drop(fresh)
			continue
		}
		if last == 0 && more && buf[0].off < 0 {
			// A header alone, before a line too long to join it: the
			// chunk takes that line too, like a long line on its own.
			for last++; get(last) && buf[last].blank; last++ {
			}
			if last == len(buf) {
				last = trim(last - 1)
			}
			for len(cum) <= last {
				k := len(cum)
				cum = append(cum, cum[k-1]+1+buf[k].n)
			}
		}
		spans = append(spans, core.Span{
			From: buf[0].msg, To: buf[last].msg + 1,
			LineStart: buf[0].no, LineEnd: buf[last].no,
			Text: joinLines(msgs, buf[:last+1]),
		})
		// The next chunk starts with the last lines that fit in overlap,
		// and at least one line after this chunk's first.
		j := last + 1
		for j > 1 && cum[last]-cum[j-2]-1 <= overlap {
			j--
		}
		drop(j)
		fresh = last + 1 - j
	}
	if r.err != nil {
		return nil, r.err
	}
	return spans, nil
}

// tline is one line of a session's transcript.
type tline struct {
	no  int    // 1-based transcript line number
	msg int    // the message the line belongs to; for a separator, the one before it
	off int    // byte offset of s in the message's text, or -1 for a header or separator
	s   string // the line, without its newline
	n   int    // runes in s
	// blank is set for lines of only white space, including the empty
	// separator line between two messages.
	blank bool
}

// lineReader walks the transcript lines of a session's messages one at a
// time, without building the transcript: each message's header line
// ([transcript.MessageHeader]), its text lines and, between two messages, the
// empty separator line. It checks that the messages' line numbers follow
// [transcript.Layout]. Each line costs O(1) plus a pass over its bytes, so a
// session of any size is read in linear time.
type lineReader struct {
	msgs  []core.SessionMessage
	i     int // current message
	state int // what comes next: readHeader, readText or readSep
	off   int // byte offset of the next text line in msgs[i].Text
	no    int // line number of the next line
	err   error
}

const (
	readHeader = iota
	readText
	readSep
)

func newLineReader(msgs []core.SessionMessage) *lineReader {
	return &lineReader{msgs: msgs}
}

// next returns the next line, or false at the end of the session or on an
// error, which r.err then holds.
func (r *lineReader) next() (tline, bool) {
	if r.err != nil || r.i >= len(r.msgs) {
		return tline{}, false
	}
	m := &r.msgs[r.i]
	switch r.state {
	case readHeader:
		if err := checkLayout(m, r.i, r.no); err != nil {
			r.err = err
			return tline{}, false
		}
		h := transcript.MessageHeader(&m.Message)
		r.no, r.off, r.state = m.HeaderLine+1, 0, readText
		return tline{no: m.HeaderLine, msg: r.i, off: -1, s: h, n: utf8.RuneCountInString(h), blank: isBlank(h)}, true
	case readText:
		s, last := m.Text[r.off:], true
		if k := strings.IndexByte(s, '\n'); k >= 0 {
			s, last = s[:k], false
		}
		l := tline{no: r.no, msg: r.i, off: r.off, s: s, n: utf8.RuneCountInString(s), blank: isBlank(s)}
		r.no++
		r.off += len(s) + 1
		if last {
			if l.no != m.TextEnd {
				r.err = fmt.Errorf("chunkers: message %d has %d text lines, but the transcript gives it lines %d-%d",
					r.i, l.no-m.TextStart+1, m.TextStart, m.TextEnd)
				return tline{}, false
			}
			r.state = readSep
		}
		return l, true
	default: // readSep
		r.i++
		r.state = readHeader
		if r.i >= len(r.msgs) {
			return tline{}, false
		}
		r.no++
		return tline{no: r.no - 1, msg: r.i - 1, off: -1, blank: true}, true
	}
}

// checkLayout checks that message i, whose header should sit on line want
// (unknown for the first message), is where [transcript.Layout] puts it.
func checkLayout(m *core.SessionMessage, i, want int) error {
	switch {
	case i == 0 && m.HeaderLine < 1:
		return fmt.Errorf("chunkers: message 0 has header line %d", m.HeaderLine)
	case i > 0 && m.HeaderLine != want:
		return fmt.Errorf("chunkers: message %d has header line %d, want %d (one blank line after the previous message)",
			i, m.HeaderLine, want)
	case m.TextStart != m.HeaderLine+1 || m.TextEnd < m.TextStart:
		return fmt.Errorf("chunkers: message %d has header line %d and text lines %d-%d, which do not follow the transcript layout",
			i, m.HeaderLine, m.TextStart, m.TextEnd)
	}
	return nil
}

// isBlank reports whether a line holds only white space.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// joinLines returns the transcript lines ls joined with "\n". Lines that
// all come from one message's text are a substring of that text and cost
// no copy.
func joinLines(msgs []core.SessionMessage, ls []tline) string {
	first, last := &ls[0], &ls[len(ls)-1]
	if first.msg == last.msg && first.off >= 0 && last.off >= 0 {
		return msgs[first.msg].Text[first.off : last.off+len(last.s)]
	}
	n := len(ls) - 1
	for i := range ls {
		n += len(ls[i].s)
	}
	var b strings.Builder
	b.Grow(n)
	for i := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ls[i].s)
	}
	return b.String()
}
