package timeparse

import (
	"time"
)

// relativeRe matches the start of a relative phrase, which takes no "in"
// or "at" before it.
var relativeRe = lazyRegexp(`^(?i:last|this|next|previous|past|yesterday|today|tomorrow|tonight|recently|lately|earlier)\b`)

// prefixRe matches a preposition that may lead a phrase and goes with it
// when Extract cuts the phrase out.
var prefixRe = gatedRegexp(`^(?:(?i:(?:on|in|during|over|for|at|within)\s+)|在|于)`)

var (
	// openRe matches a word that opens a range; the group says which.
	openRe    = gatedRegexp(`^(?:(?i:(?P<from>from)\s+|(?P<between>between)\s+|(?P<since>since)\s+|(?P<before>before|prior\s+to)\s+|(?P<until>until|till|up\s+to)\s+|(?P<after>after)\s+)|(?P<since>自从)|(?P<until>截至|截止到?|直到)|(?P<from>从|自|由))`)
	connectRe = lazyRegexp(`^\s*(?:(?i:(?:to|until|till|til|through|thru)\b)|到|至|-|–|—|~|～)\s*`)
	andRe     = lazyRegexp(`^\s+(?i:and)\s+`)
	closeRe   = lazyRegexp(`^\s*(?:之间|期间|这段时间)`)
	sinceRe   = lazyRegexp(`^\s*(?:以来|至今|到现在|到目前为止|(?i:(?:to|until|till)\s+(?:now|date|the\s+present)\b))`)
	// beforeRe and afterRe match the Chinese words that close an open
	// range: "4月9日之前", "4月9日以后".
	beforeRe = lazyRegexp(`^\s*(?:之前|以前)`)
	afterRe  = lazyRegexp(`^\s*(?:之后|以后)`)
	// anchoredRe matches a time word just before "before" or "after":
	// "the week before August 3", "two weeks after Monday" count from the
	// date, and are not open ranges.
	anchoredRe = lazyRegexp(`(?i)\b(?:weeks?|weekends?|days?|nights?|months?|years?|hours?|mornings?|afternoons?|evenings?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\s+$`)
)

type opener int

const (
	openNone opener = iota
	openFrom
	openBetween
	openSince
	openBefore // before X: up to the start of X
	openUntil  // until X: up to the end of X
	openAfter  // after X: from the end of X up to the reference time
)

// compounds returns the singles at offset i, and the ranges and "since"
// phrases that start there.
func (s *scanner) compounds(i int) []cand {
	var out []cand
	for _, c := range s.singles(i) {
		if !c.v.anchorOnly || s.whole {
			out = append(out, c)
		}
	}
	type open struct {
		kind opener
		j    int
	}
	opens := []open{{openNone, i}}
	if m := s.findAt(openRe, i); m != nil {
		kind := openFrom
		for k, name := range openRe.re().SubexpNames() {
			if m[2*k] >= 0 {
				switch name {
				case "between":
					kind = openBetween
				case "since":
					kind = openSince
				case "before":
					kind = openBefore
				case "until":
					kind = openUntil
				case "after":
					kind = openAfter
				}
			}
		}
		if j := i + m[1]; s.startOK(j) {
			opens = append(opens, open{kind, j})
		}
	}
	for _, o := range opens {
		firsts := s.singles(o.j)
		if o.kind != openNone {
			firsts = append(firsts, s.bareYear(o.j)...)
		}
		for _, a := range firsts {
			// "从上周三以来", "上周三以来", "from Monday to now".
			if m := sinceRe().FindStringIndex(s.text[a.end:]); m != nil && s.endOK(a.end+m[1]) {
				out = append(out, s.since(i, a, a.end+m[1]))
			}
			if o.kind == openNone {
				// "4月9日之前", "4月9日以后".
				if m := beforeRe().FindStringIndex(s.text[a.end:]); m != nil && s.endOK(a.end+m[1]) {
					out = append(out, s.open(i, a, a.end+m[1], openBefore))
				}
				if m := afterRe().FindStringIndex(s.text[a.end:]); m != nil && s.endOK(a.end+m[1]) {
					out = append(out, s.open(i, a, a.end+m[1], openAfter))
				}
			}
			switch o.kind {
			case openSince:
				out = append(out, s.since(i, a, a.end))
				continue
			case openBefore, openAfter:
				if !anchoredRe().MatchString(s.text[:i]) {
					out = append(out, s.open(i, a, a.end, o.kind))
				}
				continue
			case openUntil:
				out = append(out, s.open(i, a, a.end, o.kind))
				continue
			}
			conn := connectRe()
			if o.kind == openBetween {
				conn = andRe()
			}
			m := conn.FindStringIndex(s.text[a.end:])
			if m == nil {
				continue
			}
			k := a.end + m[1]
			if !s.startOK(k) {
				continue
			}
			seconds := append(s.singles(k), s.bareDay(k, a.v)...)
			if a.v.year != 0 {
				seconds = append(seconds, s.bareYear(k)...)
			}
			for _, b := range seconds {
				c := s.join(i, a, b)
				out = append(out, c)
				if m := closeRe().FindStringIndex(s.text[b.end:]); m != nil {
					c.end = b.end + m[1]
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// join makes the range from the start of a to the end of b; the phrase
// starts at offset i.
func (s *scanner) join(i int, a, b cand) cand {
	text := s.text[i:b.end]
	if a.err != nil {
		return cand{end: b.end, err: a.err}
	}
	if b.err != nil {
		return cand{end: b.end, err: b.err}
	}
	av, bv := a.v, b.v
	if bv.r.Start.Before(av.r.Start) && av.shift != nil && (av.month == 0 || av.month != bv.month) {
		v, err := av.shift()
		if err != nil {
			return cand{end: b.end, err: err}
		}
		av = v
	}
	if bv.r.Start.Before(av.r.Start) {
		return cand{end: b.end, err: invalidDate(text, "the range ends before it starts")}
	}
	r := Range{
		Start:       av.r.Start,
		End:         bv.r.End,
		Granularity: max(av.r.Granularity, bv.r.Granularity),
		Fuzzy:       av.r.Fuzzy || bv.r.Fuzzy,
	}
	if !r.End.After(r.Start) {
		return cand{end: b.end, err: invalidDate(text, "the range is empty")}
	}
	return cand{end: b.end, v: val{r: r}}
}

// since makes the range from the start of a up to the reference time; the
// phrase runs from offset i to end.
func (s *scanner) since(i int, a cand, end int) cand {
	if a.err != nil {
		return cand{end: end, err: a.err}
	}
	if !s.ref.After(a.v.r.Start) {
		return cand{end: end, err: invalidDate(s.text[i:end], "it starts after the reference time %s", s.ref.Format(time.RFC3339))}
	}
	r := a.v.r
	r.End = s.ref
	return cand{end: end, v: val{r: r}}
}

// open makes the range that one side of a leaves open: before a (up to
// its start, with no start of its own), until a (up to its end), or after
// a (from its end up to the reference time). The phrase runs from offset i
// to end.
func (s *scanner) open(i int, a cand, end int, kind opener) cand {
	if a.err != nil {
		return cand{end: end, err: a.err}
	}
	r := a.v.r
	switch kind {
	case openBefore:
		r.Start, r.End = time.Time{}, a.v.r.Start
	case openUntil:
		r.Start = time.Time{}
	case openAfter:
		if !s.ref.After(a.v.r.End) {
			return cand{end: end, err: invalidDate(s.text[i:end], "it starts after the reference time %s", s.ref.Format(time.RFC3339))}
		}
		r.Start, r.End = a.v.r.End, s.ref
	}
	if !r.End.After(r.Start) { // "before 0000"
		return cand{end: end, err: invalidDate(s.text[i:end], "the range is empty")}
	}
	return cand{end: end, v: val{r: r}}
}

var (
	bareYearRe     = lazyRegexp(`^[0-9]{4}`)
	bareDayHanRe   = lazyRegexp(`^(` + hanDay + `)[日号]`)
	bareDayLatinRe = lazyRegexp(`^(?i:([0-9]{1,2})(?:st|nd|rd|th)?|(` + ordinalPattern + `))`)
)

// bareYear reads a year written as four digits alone, which is a phrase
// only inside a range: "from 2024 to 2025".
func (s *scanner) bareYear(j int) []cand {
	m := bareYearRe().FindString(s.text[j:])
	if m == "" || !s.endOK(j+len(m)) {
		return nil
	}
	y := atoi(m)
	v := s.yearVal(y)
	return []cand{{end: j + len(m), v: v}}
}

// bareDay reads a day of the month alone, which continues a range whose
// first part is a date: "4月1日至10日", "April 1 to 10".
func (s *scanner) bareDay(j int, first val) []cand {
	if first.date == nil {
		return nil
	}
	var num string
	var end int
	if m := bareDayHanRe().FindStringSubmatchIndex(s.text[j:]); m != nil {
		num, end = s.text[j+m[2]:j+m[3]], j+m[1]
	} else if m := bareDayLatinRe().FindStringSubmatchIndex(s.text[j:]); m != nil {
		num, end = s.text[j+m[0]:j+m[1]], j+m[1]
	} else {
		return nil
	}
	if !s.endOK(end) {
		return nil
	}
	d, ok := parseDay(num)
	if !ok {
		return nil
	}
	c := *first.date
	v, err := s.dateVal(s.text[j:end], c.y, c.m, d)
	return []cand{{end: end, v: v, err: err}}
}
