package timeparse

import (
	"errors"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// A phrase is parsed in three layers, all anchored at one byte offset of
// the text:
//
//   - atoms: one rule each ("上周三", "last Wednesday", "4月6日", "最近"),
//   - singles: an atom for one day, optionally followed by a part of the day
//     and a clock time ("上周三下午", "yesterday at 3pm"),
//   - phrases: a single, a range of two singles ("从4月1日到10日", "between
//     April 1 and April 10"), or "since" a single, with an optional leading
//     preposition ("on", "in", "在").
//
// Extract tries every offset and keeps the longest phrase.

// val is a resolved atom or phrase.
type val struct {
	r Range // Text is filled in by the caller.
	// day is set when r is exactly one calendar day, which a part of the
	// day or a clock time may follow.
	day *civil
	// date is set for calendar dates written with a month, so that a bare
	// day can continue a range: "4月1日至10日", "April 1 to 10".
	date *civil
	// dom is the day of a day-of-month atom without a month ("the 19th"),
	// so that a weekday before it can choose the month: "Tuesday the 19th".
	dom int
	// mon is the first day of a calendar month, which a day may follow:
	// "下个月二十号", "the 20th of next month".
	mon *civil
	// point is the day "n units ago" counts back to, which a part of the
	// day or a clock time may follow: "2 weeks ago at 8am".
	point *civil
	// year is set for a calendar year, so that a bare year can continue a
	// range: "from 2024 to 2025".
	year int
	// month is the month of a date or month whose year was inferred.
	month time.Month
	// wd is the ISO weekday of a weekday atom ("Friday", "周五"), so that a
	// date may follow it: "Friday, Aug 8, 2025".
	wd int
	// weak is set for a lower-case weekday abbreviation ("fri", "sat"),
	// which is a phrase only next to a date, where it cannot be a word.
	weak bool
	// hol names the holiday of a holiday atom.
	hol *holidayOf
	// anchorOnly is set for an English holiday named without a year or
	// this/last/next ("during Thanksgiving" is mostly a habit): it is a
	// phrase only as the anchor of an offset or a side of a range.
	anchorOnly bool
	// shift, when set, resolves the same words one period earlier (a year
	// for an inferred year, a week for a bare weekday). A range whose start
	// comes after its end uses it: at 2026-11-29, "11月到2月" runs from
	// November 2025 to the end of February 2026.
	shift func() (val, error)
}

// cand is one way to read the text from some offset up to end.
type cand struct {
	end int
	v   val
	err error
}

// scanner holds the state of one Parse or Extract call.
type scanner struct {
	text       string
	ref        time.Time
	loc        *time.Location
	today      civil
	atomMemo   map[int][]cand
	singleMemo map[int][]cand
	enDates    map[int]enDateMatch
	// folded is the text case-folded for the rules' gates, made on first
	// use; mustAt[id*maxMust+k] memoises the last offset in it at which
	// the k-th must set of gate id (see holdsFrom) occurs, -1 for none, or
	// -2 when not yet known.
	folded   folded
	isFolded bool
	mustAt   []int32
	ungated  bool // run every rule, for testing the gates
	// whole is set by Parse, whose text is a time phrase and nothing else:
	// there an anchor-only phrase ("Christmas") stands on its own.
	whole bool
}

func newScanner(text string, ref time.Time) *scanner {
	return &scanner{
		text:       text,
		ref:        ref,
		loc:        ref.Location(),
		today:      civilOf(ref),
		atomMemo:   map[int][]cand{},
		singleMemo: map[int][]cand{},
	}
}

// errSkip tells the scanner that a rule's regular expression matched words
// that are not a time phrase after all, such as "may" the verb.
var errSkip = errors.New("not a time phrase")

// script says which kind of character a rule can start with.
type script uint8

const (
	scriptHan   script = 1 << iota // a CJK character
	scriptLatin                    // an ASCII letter
	scriptDigit                    // an ASCII digit
)

func scriptOf(r rune) script {
	switch {
	case r >= '0' && r <= '9':
		return scriptDigit
	case r < utf8.RuneSelf:
		return scriptLatin
	default:
		return scriptHan
	}
}

// match is one match of a rule's regular expression.
type match struct {
	start int               // the offset of the match in the text
	text  string            // the whole match
	g     map[string]string // the named groups that took part in it
}

// rule recognises one kind of atom.
type rule struct {
	id      int     // the rule's index in the scanner's memo of must offsets
	re      *lazyRE // compiled on first use
	starts  script
	needEnd bool // the atom must end the text or be followed by punctuation
	fn      func(s *scanner, m match) (val, error)
}

// numRules counts the rules made by mkRule.
var numRules int

// mkRule makes a rule of pattern anchored at the start, with
// leftmost-longest matching so that "大前天" wins over "前天". Neither the
// pattern nor its gate is compiled here; see [lazyRE].
func mkRule(starts script, pattern string, fn func(s *scanner, m match) (val, error)) rule {
	re := newLazyRE(`^(?:`+pattern+`)`, true)
	re.gatePattern, re.hasGate = pattern, true
	numRules++
	return rule{id: numRules - 1, re: re, starts: starts, fn: fn}
}

// atomWindow is how many bytes of text the anchored rules look at; no atom
// is longer. A match that reaches the end of the window is tried again on
// the whole text.
const atomWindow = 128

// isWord reports whether r is an ASCII letter or digit.
func isWord(r rune) bool {
	return r < utf8.RuneSelf && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
}

// isHanNumeral reports whether r is a Chinese numeral.
func isHanNumeral(r rune) bool { return strings.ContainsRune(hanNumerals, r) }

const hanNumerals = "零〇一二两三四五六七八九十百千"

// startOK reports whether a phrase may start at offset i: not inside a word
// or number.
func (s *scanner) startOK(i int) bool {
	if i == 0 || i >= len(s.text) {
		return i == 0
	}
	prev, _ := utf8.DecodeLastRuneInString(s.text[:i])
	next, _ := utf8.DecodeRuneInString(s.text[i:])
	return !(isWord(prev) && isWord(next)) && !(isHanNumeral(prev) && isHanNumeral(next))
}

// endOK reports whether a phrase may end at offset i: not inside a word or
// number.
func (s *scanner) endOK(i int) bool {
	if i <= 0 || i >= len(s.text) {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(s.text[:i])
	next, _ := utf8.DecodeRuneInString(s.text[i:])
	return !(isWord(prev) && isWord(next))
}

// afterCount reports whether offset i follows a count or a quantifier,
// as in "一周一次" (once a week), "一年中" (in a year) or "三个月中", where
// "周一", "年中" and "月中" are not time phrases.
func (s *scanner) afterCount(i int) bool {
	prev, _ := utf8.DecodeLastRuneInString(s.text[:i])
	return i > 0 && (isHanNumeral(prev) || (prev >= '0' && prev <= '9') || strings.ContainsRune("个几每数半", prev))
}

// endsClause reports whether offset i is the end of the text or followed,
// after spaces, by punctuation.
func (s *scanner) endsClause(i int) bool {
	rest := strings.TrimLeft(s.text[i:], " \t\r\n")
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return isJunk(r)
}

// atoms returns every atom that starts at offset i.
func (s *scanner) atoms(i int) []cand {
	if c, ok := s.atomMemo[i]; ok {
		return c
	}
	var out []cand
	if i < len(s.text) && s.startOK(i) {
		r, _ := utf8.DecodeRuneInString(s.text[i:])
		sc := scriptOf(r)
		for _, ru := range allRules {
			if ru.starts&sc == 0 || !(s.ungated || s.mayMatch(ru, i, r)) {
				continue
			}
			if c, ok := s.apply(ru, i); ok {
				out = append(out, c)
			}
		}
		out = append(out, s.enDateAtoms(i)...)
	}
	s.atomMemo[i] = out
	return out
}

// apply tries rule ru at offset i.
func (s *scanner) apply(ru rule, i int) (cand, bool) {
	text := s.text[i:]
	if len(text) > atomWindow {
		cut := atomWindow
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		loc := ru.re.re().FindStringSubmatchIndex(text[:cut])
		if loc == nil {
			return cand{}, false
		}
		if loc[1] < cut {
			return s.applied(ru, i, loc)
		}
	}
	return s.applied(ru, i, ru.re.re().FindStringSubmatchIndex(text))
}

// applied turns the submatch indexes loc of rule ru at offset i into a
// candidate.
func (s *scanner) applied(ru rule, i int, loc []int) (cand, bool) {
	if loc == nil || loc[1] == 0 {
		return cand{}, false
	}
	end := i + loc[1]
	if !s.endOK(end) || (ru.needEnd && !s.endsClause(end)) {
		return cand{}, false
	}
	m := match{start: i, text: s.text[i:end], g: map[string]string{}}
	for k, name := range ru.re.re().SubexpNames() {
		if name != "" && loc[2*k] >= 0 && m.g[name] == "" {
			m.g[name] = s.text[i+loc[2*k] : i+loc[2*k+1]]
		}
	}
	v, err := ru.fn(s, m)
	if err == errSkip {
		return cand{}, false
	}
	if err == nil {
		err = s.check(m.text, v)
	}
	return cand{end: end, v: v, err: err}, true
}

// check rejects empty ranges, such as "earlier today" at midnight.
func (s *scanner) check(text string, v val) error {
	if !v.r.End.After(v.r.Start) {
		return invalidDate(text, "the range is empty")
	}
	return nil
}

// singles returns the atoms at offset i, a weekday and a date together
// ("Friday, Aug 8, 2025", "3月5日（周四）"), "the evening of" a day, and
// those of them that name one day extended by a part of the day and a
// clock time.
func (s *scanner) singles(i int) []cand {
	if c, ok := s.singleMemo[i]; ok {
		return c
	}
	base := append(s.atoms(i), s.dayOfMonthOf(i)...)
	var days []cand
	for _, a := range base {
		if a.err == nil && a.v.wd != 0 {
			days = append(days, s.weekdayDate(a)...)
		}
		if a.err == nil && a.v.date != nil {
			days = append(days, s.dateWeekday(a)...)
		}
		if a.err == nil {
			days = append(days, s.monthDay(a)...)
		}
		if !a.v.weak {
			days = append(days, a)
		}
	}
	days = append(days, s.enOffsets(i)...)
	for _, a := range days[:len(days):len(days)] {
		if a.err == nil && !a.v.weak {
			days = append(days, s.hanOffsets(a)...)
			days = append(days, s.holidayAround(a)...)
		}
	}
	out := append([]cand(nil), days...)
	for _, a := range days {
		switch {
		case a.err != nil:
		case a.v.day != nil:
			out = append(out, anchorOnly(s.extend(a.end, *a.v.day), a.v.anchorOnly)...)
		case a.v.point != nil:
			out = append(out, s.extend(a.end, *a.v.point)...)
		}
	}
	out = append(out, s.partOfDayOf(i)...)
	// A clock time on its own is today's: "下午3点", "at 3pm". The habit
	// check runs only where a clock time can start.
	if i < len(s.text) && s.clockMayStart(i) && !recurringRe().MatchString(s.text[:i]) {
		out = append(out, s.clocks(i, s.today, true, nil)...)
	}
	s.singleMemo[i] = out
	return out
}

// anchorOnly marks cs as anchorOnly when set is.
func anchorOnly(cs []cand, set bool) []cand {
	for k := range cs {
		cs[k].v.anchorOnly = cs[k].v.anchorOnly || set
	}
	return cs
}

var (
	// weekdayDateSep and dateWeekdaySep join a weekday and a date:
	// "Friday, Aug 8", "Fri 8th Aug", "3月5日 周四", "March 5 (Thursday)".
	weekdayDateSep = lazyRegexp(`^(?:\s*[,，]\s*|\s+|\s*的)`)
	dateWeekdaySep = lazyRegexp(`^(?:\s*[,，]?\s*[(（]?\s*|\s*)`)
	closeParen     = lazyRegexp(`^\s*[)）]`)
	// podOfRe reads "the evening of" before a day: "the evening of the 9th".
	podOfRe = gatedRegexp(`^(?i:(?:the\s+)?(morning|afternoon|evening|night)\s+of\s+)`)
	// recurringRe matches what comes before a clock time that is a habit
	// rather than a time: "on Tuesdays at 6 PM", "every day at 9".
	recurringRe = lazyRegexp(`(?i)(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days|every\s+\w+|each\s+\w+|daily|nightly|weekdays|weekends)\s+(?:at\s+|around\s+)?$`)
)

// weekdayDate reads a date after weekday atom a: "Friday, Aug 8, 2025". The
// date decides the day; the weekday is only read.
func (s *scanner) weekdayDate(a cand) []cand {
	var out []cand
	for _, k := range s.seps(a.end, weekdayDateSep()) {
		if k == a.end || !s.startOK(k) {
			continue
		}
		for _, b := range s.atoms(k) {
			switch {
			case b.err != nil || b.v.date == nil:
			case b.v.dom != 0:
				// "Tuesday the 19th": the weekday chooses the month.
				v, err := s.weekdayDom(s.text[k:b.end], a.v.wd, b.v.dom)
				out = append(out, cand{end: b.end, v: v, err: err})
			default:
				out = append(out, b)
			}
		}
	}
	return out
}

// dateWeekday reads a weekday after date atom a: "3月5日周四", "March 5
// (Thursday)". The date decides the day.
func (s *scanner) dateWeekday(a cand) []cand {
	var out []cand
	for _, k := range s.seps(a.end, dateWeekdaySep()) {
		if !s.startOK(k) {
			continue
		}
		for _, b := range s.atoms(k) {
			if b.err != nil || b.v.wd == 0 || b.v.day == nil {
				continue
			}
			end := b.end
			if m := closeParen().FindStringIndex(s.text[end:]); m != nil {
				end += m[1]
			}
			c := a
			c.end = end
			out = append(out, c)
		}
	}
	return out
}

// partOfDayOf reads "the evening of" a day at offset i.
func (s *scanner) partOfDayOf(i int) []cand {
	m := s.findAt(podOfRe, i)
	if m == nil {
		return nil
	}
	h := podHours[strings.ToLower(s.text[i+m[2]:i+m[3]])]
	var out []cand
	j := i + m[1]
	for _, a := range append(s.atoms(j), s.dayOfMonthOf(j)...) {
		if a.err == nil && a.v.day != nil && !a.v.weak {
			out = append(out, cand{end: a.end, v: s.hours(*a.v.day, h[0], h[1])})
		}
	}
	return out
}

var (
	daySepRe = lazyRegexp(`^(?:\s*的\s*|(?i:\s+(?:in\s+the|at|around)\s+)|\s*)`)
	clockSep = lazyRegexp(`^(?:\s*的\s*|(?i:\s+(?:at|around)\s+)|\s*)`)
)

// extend returns the parts of day c and clock times that follow offset j.
func (s *scanner) extend(j int, c civil) []cand {
	var out []cand
	for _, k := range s.seps(j, daySepRe()) {
		for _, p := range s.partsOfDay(k, c) {
			out = append(out, p.cand)
			for _, k2 := range s.seps(p.end, clockSep()) {
				out = append(out, s.clocks(k2, c, false, &p.hours)...)
			}
		}
	}
	for _, k := range s.seps(j, clockSep()) {
		out = append(out, s.clocks(k, c, false, nil)...)
	}
	return out
}

// seps returns the offsets at which a separator that starts at j may end:
// "昨天 下午", "昨天的下午", "Monday in the afternoon".
func (s *scanner) seps(j int, re *regexp.Regexp) []int {
	out := []int{j}
	spaces := j + len(s.text[j:]) - len(strings.TrimLeft(s.text[j:], " \t"))
	if spaces != j {
		out = append(out, spaces)
	}
	if m := re.FindStringIndex(s.text[j:]); m != nil && j+m[1] != j && j+m[1] != spaces {
		out = append(out, j+m[1])
	}
	return out
}

var (
	podHanRe   = mustLongest(`^(?:凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜晚|晚间|深夜|半夜)`)
	podLatinRe = mustLongest(`^(?i:morning|noon|midday|lunchtime|afternoon|evening|night|late\s+night|midnight)`)
)

// mustLongest returns a function that compiles pattern, with
// leftmost-longest matching, on its first call.
func mustLongest(pattern string) func() *regexp.Regexp {
	return newLazyRE(pattern, true).re
}

// podHours gives the hours of each part of the day; see the package
// documentation.
var podHours = map[string][2]int{
	"凌晨": {0, 6},
	"早上": {6, 12}, "早晨": {6, 12}, "上午": {6, 12}, "morning": {6, 12},
	"中午": {11, 13}, "noon": {11, 13}, "midday": {11, 13}, "lunchtime": {11, 13},
	"下午": {12, 18}, "afternoon": {12, 18},
	"傍晚": {17, 19},
	"晚上": {18, 24}, "夜里": {18, 24}, "夜晚": {18, 24}, "晚间": {18, 24}, "evening": {18, 24}, "night": {18, 24},
	"深夜": {22, 26}, "半夜": {22, 26}, "late night": {22, 26},
	"midnight": {0, 1},
}

// podCand is a part of a day and its hours.
type podCand struct {
	cand
	hours [2]int
}

// partsOfDay returns the parts of day c named at offset j.
func (s *scanner) partsOfDay(j int, c civil) []podCand {
	var out []podCand
	for _, re := range []*regexp.Regexp{podHanRe(), podLatinRe()} {
		m := re.FindString(s.text[j:])
		if m == "" || !s.endOK(j+len(m)) {
			continue
		}
		h := podHours[strings.Join(strings.Fields(strings.ToLower(m)), " ")]
		out = append(out, podCand{cand{end: j + len(m), v: s.hours(c, h[0], h[1])}, h})
	}
	return out
}

// phrases returns every phrase that starts at offset i.
func (s *scanner) phrases(i int) []cand {
	out := s.compounds(i)
	if m := s.findAt(prefixRe, i); m != nil {
		j := i + m[1]
		// "participate in last weekend", "volunteer at last weekend": "in"
		// and "at" belong to the verb, not to a relative phrase.
		inAt := m[1] >= 2 && strings.ContainsAny(s.text[i:i+1], "iIaA")
		if s.startOK(j) && !(inAt && relativeRe().MatchString(s.text[j:])) {
			out = append(out, s.compounds(j)...)
		}
	}
	return out
}
