package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
)

// maxLine bounds one line: a message of core.MaxTextLen with escaping.
const maxLine = 8*core.MaxTextLen + 4096

type line struct {
	Namespace *string `json:"namespace"`
	Session   *string `json:"session"`
	Time      *string `json:"time"`
	Role      *string `json:"role"`
	Speaker   *string `json:"speaker"`
	Text      *string `json:"text"`
	Ref       *string `json:"ref"`
}

// Options tune [Read].
type Options struct {
	// Location is used for times without an offset; nil means UTC.
	Location *time.Location
	// Namespace is given to messages that name none.
	Namespace string
}

// Read parses every line of r. name is used in errors. It returns all
// messages or none: the first bad line fails the whole input.
func Read(r io.Reader, name string, opts Options) ([]core.Message, error) {
	var msgs []core.Message
	for m, err := range Stream(r, name, opts) {
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// Stream yields the messages of r one line at a time, in time linear in
// the input and with memory bounded by the longest line, not the input.
// The first bad line yields its error (naming the file and line) and ends
// the sequence; a caller that wants all or nothing must not keep what it
// was given before the error. Stopping early is fine.
func Stream(r io.Reader, name string, opts Options) iter.Seq2[core.Message, error] {
	return func(yield func(core.Message, error) bool) {
		loc := opts.Location
		if loc == nil {
			loc = time.UTC
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64*1024), maxLine)
		n := 0
		for sc.Scan() {
			n++
			b := sc.Bytes()
			if n == 1 {
				b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
			}
			if len(bytes.TrimSpace(b)) == 0 {
				continue
			}
			m, err := parseLine(b, loc, opts.Namespace)
			if err != nil {
				yield(core.Message{}, &core.InputError{Path: name, Line: n, Err: err})
				return
			}
			if !yield(m, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				yield(core.Message{}, &core.InputError{Path: name, Line: n + 1, Err: fmt.Errorf("line is longer than %d bytes", maxLine)})
				return
			}
			yield(core.Message{}, &core.InputError{Path: name, Line: n, Err: err})
		}
	}
}

func parseLine(b []byte, loc *time.Location, defaultNS string) (core.Message, error) {
	var l line
	dec := json.NewDecoder(bytes.NewReader(b))
	// A misspelt field ("namepsace") must not be dropped: the message
	// would land in the wrong namespace, where other readers see it.
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return core.Message{}, jsonError(b, err)
	}
	if dec.More() {
		return core.Message{}, fmt.Errorf("unexpected data after the JSON object")
	}
	m := core.Message{Namespace: defaultNS}
	if l.Namespace != nil && *l.Namespace != "" {
		m.Namespace = *l.Namespace
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	m.Session = str(l.Session)
	m.Role = core.Role(strings.ToLower(str(l.Role)))
	m.Speaker = str(l.Speaker)
	m.Text = str(l.Text)
	m.Ref = str(l.Ref)
	if l.Time == nil || *l.Time == "" {
		return core.Message{}, fmt.Errorf("missing time")
	}
	t, err := ParseTime(*l.Time, loc)
	if err != nil {
		return core.Message{}, err
	}
	m.Time = t
	if err := m.Validate(); err != nil {
		return core.Message{}, err
	}
	return m, nil
}

// ParseTime reads an RFC 3339 time, or a date and time without an offset in
// loc ("2026-03-05T10:00:07", "2026-03-05 10:00:07", "2026-03-05 10:00"),
// or a date alone, meaning midnight in loc ("2026-03-05").
func ParseTime(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q: want RFC 3339, such as 2026-03-05T10:00:07+08:00", s)
}

// Fields are the fields a line may have.
var Fields = []string{"namespace", "session", "time", "role", "speaker", "text", "ref"}

func jsonError(b []byte, err error) error {
	// encoding/json reports an unknown field only by this message.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if field, err := strconv.Unquote(name); err == nil {
			return unknownField(field)
		}
		return fmt.Errorf("unknown field %s", name)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at column %d: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("each line must be a JSON object, not %s", te.Value)
		}
		return fmt.Errorf("field %q must be a %s, not %s", te.Field, te.Type, te.Value)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("invalid JSON: unexpected end of line")
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// unknownField reports a field that is not in [Fields], with the one it
// probably meant.
func unknownField(name string) error {
	best, bestD := "", 3 // at most two edits away
	for _, f := range Fields {
		if d := distance(strings.ToLower(name), f); d < bestD {
			best, bestD = f, d
		}
	}
	if best != "" {
		return fmt.Errorf("unknown field %q (did you mean %q?)", name, best)
	}
	return fmt.Errorf("unknown field %q: a line has only %s", name, strings.Join(Fields, ", "))
}

// distance is the edit distance between a and b, counting a swap of two
// neighbouring letters as one edit (so "namepsace" is one from "namespace").
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
