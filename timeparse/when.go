package timeparse

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/olebedev/when/rules"
	"github.com/olebedev/when/rules/en"
	"github.com/olebedev/when/rules/zh"
)

// This file holds the recognisers taken from github.com/olebedev/when: its
// English month-and-day rule ("April 6", "6th of April", "Sept. 1st") and
// its clock-time rules ("3pm", "15:30", "下午3点半"). They are used only to
// find and read the words. when turns them into a single instant by
// adding multiples of 24 hours and lets time.Date roll 30 February into
// March, so the dates, their validity and the ranges are computed here.

// when's rules compile their regular expressions when made, so they are
// made on first use.
var (
	whenMonthDate = sync.OnceValue(func() rules.Rule { return en.ExactMonthDate(rules.Override) })
	// whenClocks are the clock-time rules, in the order of the when*
	// constants.
	whenClocks = sync.OnceValue(func() [3]rules.Rule {
		return [3]rules.Rule{zh.HourMinute(rules.Override), en.HourMinute(rules.Override), en.Hour(rules.Override)}
	})
)

const (
	whenClockHan = iota // "下午3点半"
	whenClockHM         // "3:30pm", "15:30"
	whenClockH          // "3pm"
)

// monthGate says where when's month-and-day rule cannot match: every match
// holds a month name. TestMonthGatePattern checks that it is the gate of
// the whole rule.
var monthGate = sync.OnceValue(func() *gate { return gateOf(en.MONTH_OFFSET_PATTERN) })

// clockWindow is the most bytes of text a clock time such as
// "下午 十二点三十五" or "11:30 P.M." takes.
const clockWindow = 40

// enDateMatch is one match of when's English month-and-day rule.
type enDateMatch struct {
	end      int
	captures []string // ordinal day, numeric day, month, ordinal day, numeric day
}

// findEnDates runs when's month-and-day rule over the whole text once,
// recording each match by the offset where its words start.
func (s *scanner) findEnDates() {
	s.enDates = map[int]enDateMatch{}
	if !s.ungated && !s.mayHold(monthGate()) {
		return
	}
	rule := whenMonthDate()
	for pos := 0; pos < len(s.text); {
		m := rule.Find(s.text[pos:])
		if m == nil || m.Left < 0 {
			return
		}
		start := pos + m.Left
		if _, seen := s.enDates[start]; !seen {
			s.enDates[start] = enDateMatch{end: pos + m.Right, captures: m.Captures}
		}
		// Continue from the next character, so that "6 April" also yields
		// "April".
		next := start + 1
		for next < len(s.text) && s.text[next]&0xC0 == 0x80 {
			next++
		}
		pos = next
	}
}

var (
	theRe = gatedRegexp(`^(?i:the)\s+`)
	// mayLeadRe matches the words that must come before "May" on its own.
	mayLeadRe    = lazyRegexp(`(?i)(?:^|\W)(?:in|during|of|since|from|to|until|till|through|and|early|mid|late|last|this|next)[\s-]+$`)
	yearAfterRe  = lazyRegexp(`^,?\s*([0-9]{4})`)
	fullMonthRes = map[string]bool{
		"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
		"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	}
)

// enDateAtoms returns the English dates and months that start at offset i,
// optionally after "the": "April 6", "the 6th of April", "6 April 2026",
// "April 6, 2026", "March", "March 2025".
func (s *scanner) enDateAtoms(i int) []cand {
	if s.text[i] >= 0x80 {
		return nil
	}
	if s.enDates == nil {
		s.findEnDates()
	}
	var out []cand
	if c, ok := s.enDateAt(i, i); ok {
		out = append(out, c)
	}
	if m := s.findAt(theRe, i); m != nil {
		if c, ok := s.enDateAt(i, i+m[1]); ok {
			out = append(out, c)
		}
	}
	return out
}

// enDateAt reads the when match at offset j as a phrase that starts at i.
func (s *scanner) enDateAt(i, j int) (cand, bool) {
	m, ok := s.enDates[j]
	if !ok || !s.startOK(j) {
		return cand{}, false
	}
	c := m.captures
	ord1 := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.ToLower(c[0])), "of"))
	num1, monText, ord2, num2 := c[1], c[2], strings.ToLower(c[3]), c[4]
	mon := strings.ToLower(monText)
	month, ok := en.MONTH_OFFSET[mon]
	if !ok || (mon == "may" && monText[0] != 'M') {
		return cand{}, false // "may" the verb
	}
	end := m.end
	day, year := 0, 0
	for _, d := range []string{ord1, ord2} {
		if d != "" {
			n, ok := parseDay(d)
			if !ok || day != 0 {
				return cand{}, false
			}
			day = n
		}
	}
	if num1 != "" {
		if len(num1) > 2 || day != 0 {
			return cand{}, false
		}
		day = atoi(num1)
	}
	if num2 != "" {
		switch {
		case len(num2) == 4:
			year = atoi(num2)
		case len(num2) <= 2 && day == 0:
			day = atoi(num2)
		default:
			return cand{}, false
		}
	}
	if day != 0 && year == 0 {
		if y := yearAfterRe().FindStringSubmatchIndex(s.text[end:]); y != nil && s.endOK(end+y[1]) {
			year = atoi(s.text[end+y[2] : end+y[3]])
			end += y[1]
		}
	}
	if !s.endOK(end) {
		return cand{}, false
	}
	if day == 0 && year == 0 && !fullMonthRes[strings.TrimSuffix(mon, ".")] {
		return cand{}, false // a bare abbreviation such as "mar" or "dec"
	}
	if day == 0 && year == 0 && (mon == "may" || monText[0] >= 'a') && !mayLeadRe().MatchString(s.text[:j]) {
		return cand{}, false // "May I ask ...", "we should march"
	}
	text := s.text[i:end]
	var v val
	var err error
	switch {
	case day != 0 && year != 0:
		v, err = s.dateVal(text, year, time.Month(month), day)
	case day != 0:
		v, err = s.inferredDate(text, time.Month(month), day)
	case year != 0:
		v, err = s.monthVal(text, year, time.Month(month))
	default:
		v, err = s.inferredMonth(text, time.Month(month))
	}
	if err == nil {
		err = s.check(text, v)
	}
	return cand{end: end, v: v, err: err}, true
}

// clockMayStart reports whether a clock time may start at offset j: every
// clock time starts with a digit, a Chinese numeral or a Chinese part of
// the day.
func (s *scanner) clockMayStart(j int) bool {
	r, _ := utf8.DecodeRuneInString(s.text[j:])
	return (r >= '0' && r <= '9') || isHanNumeral(r) || strings.ContainsRune("凌早上下晚今", r)
}

// clocks returns the clock times that start at offset j, as the hour they
// fall in on day c: "3pm" and "3:30pm" are both 15:00-16:00. A standalone
// clock time (one not after a day) must say am or pm, or carry a Chinese
// part of the day ("下午3点"), to count. After a part of the day, window
// holds its hours: the clock time must fall in them, and "3点" after
// "下午" is 15:00.
func (s *scanner) clocks(j int, c civil, standalone bool, window *[2]int) []cand {
	if j >= len(s.text) {
		return nil
	}
	if !s.clockMayStart(j) {
		return nil
	}
	// when's rules search rather than match at the start, so give them
	// only as much text as a clock time can take.
	text := s.text[j:]
	if len(text) > clockWindow {
		cut := clockWindow
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	var out []cand
	for k, ru := range whenClocks() {
		m := ru.Find(text)
		if m == nil || m.Left != 0 || !s.endOK(j+m.Right) {
			continue
		}
		ctx := &rules.Context{Text: m.Text}
		ok, err := m.Apply(ctx, &rules.Options{}, s.ref)
		if err != nil || !ok || ctx.Hour == nil || *ctx.Hour < 0 || *ctx.Hour > 23 {
			continue
		}
		switch k {
		case whenClockHan:
			// Captures: part of day, hour in digits, hour in numerals, ...
			if m.Captures[1] == "" && m.Captures[2] == "" {
				continue
			}
			if standalone && m.Captures[0] == "" {
				continue
			}
		case whenClockHM:
			if standalone && m.Captures[2] == "" {
				continue
			}
		case whenClockH:
			if !strings.ContainsAny(m.Captures[1], "mM") {
				continue // "3 a" is not "3 am"
			}
		}
		if c, ok := s.clockIn(c, *ctx.Hour, j+m.Right, window); ok {
			out = append(out, c)
		}
	}
	// when reads "6:11 a.m." only with its last dot, which Parse trims.
	if m := dottedClockRe().FindStringSubmatch(text); m != nil && s.endOK(j+len(m[0])) {
		h := atoi(m[1])
		if h >= 1 && h <= 12 {
			h %= 12
			if strings.EqualFold(m[2], "p") {
				h += 12
			}
			if c, ok := s.clockIn(c, h, j+len(m[0]), window); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// dottedClockRe matches a clock time with a.m. or p.m.: "6:11 a.m.", "9 p.m".
var dottedClockRe = lazyRegexp(`^(?i)([0-9]{1,2})(?::[0-5][0-9])?\s*([ap])\.\s?m\b\.?`)

// clockIn is hour h of day c as a phrase that ends at end. After a part of
// the day, window holds its hours: h must fall in them, and "3点" after
// "下午" is 15:00.
func (s *scanner) clockIn(c civil, h, end int, window *[2]int) (cand, bool) {
	if window != nil {
		if h < window[0] && h+12 < window[1] {
			h += 12
		}
		if h < window[0] || h >= window[1] {
			return cand{}, false
		}
	}
	return cand{end: end, v: s.hours(c, h, h+1)}, true
}
