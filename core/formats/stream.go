package formats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/huimemory/huimemory/core"
)

// maxLine bounds one line of a JSONL export: a message of core.MaxTextLen
// with escaping, and room for the record around it.
const maxLine = 8*core.MaxTextLen + 64<<10

// errStop ends a line walk when the consumer of a stream stops early.
var errStop = errors.New("formats: stream stopped")

// StreamFile detects (or looks up) the format of the file at path and
// returns it with the file's messages as a stream. The file is opened when
// the stream is iterated and closed when it ends; each message is
// validated and given the default namespace as it is yielded, and the
// first problem is yielded as an error that ends the stream. The formats
// that can be long (chatgpt, claude, claude-code, codex, jsonl) are read
// in memory bounded by one conversation or one line, not by the file; the
// others are read whole, then yielded. An empty file gives a nil format
// and an empty stream. Like [ReadFile], it loads a Slack export's
// users.json unless opts.SlackUsers is set, and takes opts.ModTime from
// the file when it is zero.
func StreamFile(path, format string, opts Options) (*Format, iter.Seq2[core.Message, error], error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(fh, head)
	fi, serr := fh.Stat()
	fh.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	head = head[:n]
	if opts.ModTime.IsZero() && serr == nil {
		opts.ModTime = fi.ModTime()
	}
	if format == "" && n < SniffLen && blank(head) {
		return nil, func(func(core.Message, error) bool) {}, nil
	}
	f, err := choose(path, head, format, &opts)
	if err != nil {
		return f, nil, err
	}
	seq := func(yield func(core.Message, error) bool) {
		fh, err := os.Open(path)
		if err != nil {
			yield(core.Message{}, fmt.Errorf("reading %s: %w", path, err))
			return
		}
		defer fh.Close()
		for m, err := range f.stream(fh, path, opts) {
			if !yield(m, err) || err != nil {
				return
			}
		}
	}
	return f, seq, nil
}

// stream returns the format's stream, or its whole-file reader's
// messages yielded one by one.
func (f *Format) stream(r io.Reader, name string, opts Options) iter.Seq2[core.Message, error] {
	if f.Stream != nil {
		return f.Stream(r, name, opts)
	}
	return func(yield func(core.Message, error) bool) {
		msgs, err := f.Read(r, name, opts)
		if err != nil {
			yield(core.Message{}, err)
			return
		}
		for _, m := range msgs {
			if !yield(m, nil) {
				return
			}
		}
	}
}

// collect reads a whole stream, all or nothing.
func collect(seq iter.Seq2[core.Message, error]) ([]core.Message, error) {
	var out []core.Message
	for m, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// emitter validates messages, fills in the default namespace and yields
// them; count numbers them for errors.
type emitter struct {
	name  string
	opts  Options
	yield func(core.Message, error) bool
	count int
}

// emit yields m, or the error that it is invalid; it returns false when
// the stream must end.
func (e *emitter) emit(m core.Message, line int) bool {
	e.count++
	if m.Namespace == "" {
		m.Namespace = e.opts.Namespace
	}
	if err := m.Validate(); err != nil {
		e.yield(core.Message{}, &core.InputError{Path: e.name, Line: line, Err: fmt.Errorf("message %d: %w", e.count, err)})
		return false
	}
	return e.yield(m, nil)
}

// eachLine calls fn for each non-blank line of r with its 1-based number,
// reading one line at a time; it wraps fn's errors as InputErrors for
// that line. fn returns errStop to end the walk quietly.
func eachLine(r io.Reader, name string, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			var ie *core.InputError
			if errors.Is(err, errStop) || errors.As(err, &ie) {
				return err
			}
			return &core.InputError{Path: name, Line: n, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &core.InputError{Path: name, Line: n + 1, Err: fmt.Errorf("line is longer than %d bytes", maxLine)}
		}
		return fmt.Errorf("reading %s: %w", name, err)
	}
	return nil
}

// lineStream turns a line walk into a stream: walk gets an emit function
// that yields a message read from line n and returns false when the
// stream must end.
func lineStream(r io.Reader, name string, opts Options, walk func(emit func(m core.Message, n int) bool) func(n int, line []byte) error) iter.Seq2[core.Message, error] {
	return func(yield func(core.Message, error) bool) {
		e := &emitter{name: name, opts: opts, yield: yield}
		stopped := false
		fn := walk(func(m core.Message, n int) bool {
			if stopped {
				return false
			}
			if !e.emit(m, n) {
				stopped = true
				return false
			}
			return true
		})
		err := eachLine(r, name, func(n int, line []byte) error {
			if err := fn(n, line); err != nil {
				return err
			}
			if stopped {
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) && !stopped {
			yield(core.Message{}, err)
		}
	}
}

// tail keeps the last bytes a JSON decoder read, so that an error at a
// byte offset can be given its line without keeping the file.
type tail struct {
	r     io.Reader
	off   int64 // bytes read so far
	lines int   // newlines before buf
	buf   []byte
	start int64 // offset of buf[0]
}

const tailKeep = 1 << 20

func (t *tail) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	t.off += int64(n)
	if len(t.buf) > 2*tailKeep {
		drop := len(t.buf) - tailKeep
		t.lines += bytes.Count(t.buf[:drop], []byte("\n"))
		t.buf = append(t.buf[:0], t.buf[drop:]...)
		t.start += int64(drop)
	}
	return n, err
}

// lineAt returns the 1-based line of byte offset off, or 0 when it is no
// longer known.
func (t *tail) lineAt(off int64) int {
	if off < t.start {
		return 0
	}
	off = min(off, t.start+int64(len(t.buf)))
	return t.lines + bytes.Count(t.buf[:off-t.start], []byte("\n")) + 1
}

// docError turns a JSON decoding error of a streamed document into an
// InputError with the line and byte offset.
func (t *tail) docError(name string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &core.InputError{Path: name, Line: t.lineAt(se.Offset), Err: fmt.Errorf("invalid JSON at byte offset %d: %v", se.Offset, se)}
	case errors.As(err, &te):
		return &core.InputError{Path: name, Line: t.lineAt(te.Offset), Err: fmt.Errorf("invalid JSON at byte offset %d: field %q must be %s, not %s", te.Offset, te.Field, te.Type, te.Value)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &core.InputError{Path: name, Line: t.lineAt(t.off), Err: fmt.Errorf("invalid JSON at byte offset %d: unexpected end of file (truncated?)", t.off)}
	}
	return &core.InputError{Path: name, Err: fmt.Errorf("invalid JSON: %v", err)}
}

// jsonArray decodes a document that is an array of T (or, with single
// set, one T object) one element at a time, calling fn for each with its
// 1-based index. Memory is bounded by the largest element.
func jsonArray[T any](r io.Reader, name string, single bool, fn func(i int, v *T) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	t := &tail{r: br}
	dec := json.NewDecoder(t)
	first := byte(0)
	for {
		b, err := br.Peek(1)
		if err != nil || !bytes.ContainsAny(b, " \t\r\n") {
			if err == nil {
				first = b[0]
			}
			break
		}
		br.Discard(1)
		t.start++
		t.off++
		if b[0] == '\n' {
			t.lines++
		}
	}
	if single && first == '{' {
		var v T
		if err := dec.Decode(&v); err != nil {
			return t.docError(name, err)
		}
		if err := fn(1, &v); err != nil {
			return err
		}
		return endOfDoc(name, dec, t)
	}
	tok, err := dec.Token()
	if err != nil {
		return t.docError(name, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		var v []T
		return &core.InputError{Path: name, Line: 1, Err: fmt.Errorf("invalid JSON at byte offset 1: field \"\" must be %T, not %s", v, jsonKind(tok))}
	}
	for i := 1; dec.More(); i++ {
		var v T
		if err := dec.Decode(&v); err != nil {
			// After a Token call the decoder counts a syntax error's
			// offset one byte short of what a whole-document decode says
			// (the bytes read up to and including the bad one).
			var se *json.SyntaxError
			if errors.As(err, &se) {
				se.Offset++
			}
			return t.docError(name, err)
		}
		if err := fn(i, &v); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ]
		return t.docError(name, err)
	}
	return endOfDoc(name, dec, t)
}

func endOfDoc(name string, dec *json.Decoder, t *tail) error {
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		return &core.InputError{Path: name, Line: t.lineAt(off), Err: fmt.Errorf("unexpected data after the JSON document at byte offset %d", off)}
	}
	return nil
}

func jsonKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "object"
		}
		return "array"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	}
	return "null"
}
