package timeparse

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Granularity is the unit a [Range] was resolved to: "昨天" is a day,
// "上周" a week, "上周三下午" a part of a day.
type Granularity int

// The granularities, from finest to coarsest. The zero Granularity is not
// one of them.
const (
	Hourly Granularity = iota + 1
	Daily
	Weekly
	Monthly
	Yearly
)

var granularityNames = [...]string{Hourly: "hour", Daily: "day", Weekly: "week", Monthly: "month", Yearly: "year"}

// String returns "hour", "day", "week", "month" or "year".
func (g Granularity) String() string {
	if g >= Hourly && g <= Yearly {
		return granularityNames[g]
	}
	return fmt.Sprintf("Granularity(%d)", int(g))
}

// Range is the span of time a phrase stands for.
type Range struct {
	// Start is the first instant of the range.
	Start time.Time
	// End is the first instant after the range; it is exclusive.
	End time.Time
	// Granularity is the unit the phrase was resolved to.
	Granularity Granularity
	// Fuzzy is set for vague phrases such as "最近" or "a while ago",
	// whose span is a plausible guess (see the table in the package
	// documentation).
	Fuzzy bool
	// Text is the phrase as it appears in the input.
	Text string
}

// Errors returned by [Parse]; test for them with [errors.Is].
var (
	// ErrNoTime means that the text is not a time phrase.
	ErrNoTime = errors.New("timeparse: no time phrase")
	// ErrInvalidDate means that the text names a date that does not exist,
	// such as 2月30日, "February 30" or 2026-13-01, or a range that ends
	// before it starts.
	ErrInvalidDate = errors.New("timeparse: invalid date")
)

// phraseError is an error about one phrase. It unwraps to ErrNoTime or
// ErrInvalidDate.
type phraseError struct {
	kind   error
	text   string
	detail string
}

func (e *phraseError) Error() string {
	if e.kind == ErrNoTime {
		return fmt.Sprintf("%v in %q", e.kind, e.text)
	}
	return fmt.Sprintf("%v %q: %s", e.kind, e.text, e.detail)
}

func (e *phraseError) Unwrap() error { return e.kind }

func invalidDate(text, format string, args ...any) error {
	return &phraseError{kind: ErrInvalidDate, text: text, detail: fmt.Sprintf(format, args...)}
}

// Parse resolves text, which must be a time phrase and nothing else, to a
// [Range] relative to ref. Spaces and punctuation around the phrase are
// ignored, and everything is computed in ref's location.
//
// Text that is not a time phrase gives an error wrapping [ErrNoTime]; a date
// that does not exist (2月30日, "February 30", 2026-13-01) gives one wrapping
// [ErrInvalidDate]. Parse is safe for concurrent use.
func Parse(text string, ref time.Time) (Range, error) { return parse(text, ref, false) }

// parse is Parse; ungated runs every rule without asking its gate, for
// testing the gates.
func parse(text string, ref time.Time, ungated bool) (Range, error) {
	text = strings.ToValidUTF8(text, "")
	trimmed := strings.TrimFunc(text, isJunk)
	// Traditional characters are read as simplified; offsets are kept.
	s := newScanner(simplify(trimmed), ref)
	s.ungated, s.whole = ungated, true
	var firstErr error
	if trimmed != "" && s.startOK(0) {
		for _, c := range s.phrases(0) {
			if c.end != len(trimmed) {
				continue
			}
			if c.err == nil {
				r := c.v.r
				r.Text = trimmed
				return r, nil
			}
			if firstErr == nil {
				firstErr = c.err
			}
		}
	}
	if firstErr != nil {
		return Range{}, firstErr
	}
	return Range{}, &phraseError{kind: ErrNoTime, text: trimmed}
}

// Extract finds the longest time phrase in query and returns its range and
// the query with the phrase cut out, with the whitespace and punctuation
// around the cut tidied:
//
//	"上周三下午我们讨论了什么"                      → 我们讨论了什么
//	"what did we discuss last Wednesday afternoon?" → what did we discuss?
//
// An explicit range such as "从4月1日到4月10日" or "between April 1 and
// April 10" is one phrase. When no phrase is found, or when the longest
// candidate is a date that does not exist (such as 2月30日, which the caller
// should keep as query text), ok is false and rest is the query with
// surrounding space trimmed. Invalid UTF-8 is dropped. Extract is safe for
// concurrent use.
func Extract(query string, ref time.Time) (r Range, rest string, ok bool) {
	return extract(query, ref, false)
}

// extract is Extract; ungated runs every rule without asking its gate, for
// testing the gates.
func extract(query string, ref time.Time, ungated bool) (r Range, rest string, ok bool) {
	query = strings.ToValidUTF8(query, "")
	s := newScanner(simplify(query), ref)
	s.ungated = ungated
	best := cand{end: -1}
	bestStart, bestLen := -1, 0
	for i := 0; i < len(query); {
		r, size := utf8.DecodeRuneInString(query[i:])
		if !isJunk(r) && s.startOK(i) {
			for _, c := range s.phrases(i) {
				n := utf8.RuneCountInString(query[i:c.end])
				if n > bestLen || (n == bestLen && best.err != nil && c.err == nil && bestStart == i) {
					best, bestStart, bestLen = c, i, n
				}
			}
		}
		i += size
	}
	if bestStart < 0 || best.err != nil {
		return Range{}, strings.TrimSpace(query), false
	}
	r = best.v.r
	r.Text = query[bestStart:best.end]
	return r, tidy(query[:bestStart], query[best.end:]), true
}

// isJunk reports whether r may be trimmed from around a phrase.
func isJunk(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) }

// tidy joins what was left and right of a phrase that was cut out.
func tidy(left, right string) string {
	left = strings.TrimRightFunc(left, unicode.IsSpace)
	right = strings.TrimLeftFunc(right, unicode.IsSpace)
	// "last week's plan" leaves "'s plan"; "上周的会议" leaves "的会议".
	for _, p := range []string{"'s ", "’s ", "'s", "’s"} {
		if strings.HasPrefix(right, p) {
			right = strings.TrimLeftFunc(right[len(p):], unicode.IsSpace)
			break
		}
	}
	switch {
	case left == "" && right == "":
		return ""
	case left == "":
		right = strings.TrimPrefix(right, "的")
		return strings.TrimSpace(strings.TrimLeftFunc(right, isJunk))
	case right == "":
		return strings.TrimSpace(strings.TrimRightFunc(left, isSeparator))
	}
	first, _ := utf8.DecodeRuneInString(right)
	last, _ := utf8.DecodeLastRuneInString(left)
	switch {
	case unicode.IsPunct(first):
		// "discuss ?" → "discuss?"; "discuss, ?" → "discuss?".
		return strings.TrimRightFunc(left, isSeparator) + right
	case isWord(last) || isWord(first):
		return left + " " + right
	default:
		return left + right
	}
}

// isSeparator reports whether r is punctuation that only separates, such as
// a comma, and can go when what it separated has gone.
func isSeparator(r rune) bool {
	return strings.ContainsRune(",，、;；:：", r) || unicode.IsSpace(r)
}
