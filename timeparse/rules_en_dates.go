package timeparse

import (
	"strings"
	"time"
)

// More English forms: parts of weeks and years, days written with "of" or
// "the", and ranges of days written before the month.

const (
	// enMonthAny is a month name in any case: after a day number and "of"
	// ("21 of march") a month cannot be another word. "May" still needs its
	// capital.
	enMonthAny = `(?i:january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?|May`
	enDayNum   = `[0-9]{1,2}(?:st|nd|rd|th)?`
	enYearOpt  = `(?:,?\s*(?P<y>[0-9]{4}))?`
)

// functionWordRe matches what may follow "the 21st" for it to be a date:
// the end of the clause or a small word, not a noun ("the 21st century").
var functionWordRe = lazyRegexp(`^(?:\s*$|\s*[^\w\s]|\s+(?i:at|in|on|and|or|to|till|until|through|when|we|i|you|he|she|they|did|was|were|is|for|from|about|with|this|last|next|of\s+(?:this|last|next|the)\s+month|morning|afternoon|evening|night)\b)`)

// enYearOf returns the year group of m, or 0.
func enYearOf(m match) int {
	if m.g["y"] == "" {
		return 0
	}
	return atoi(m.g["y"])
}

// enDate resolves day d of month mon, in year y or, when y is 0, the most
// recent one.
func (s *scanner) enDate(text string, y int, mon time.Month, d int) (val, error) {
	if y != 0 {
		return s.dateVal(text, y, mon, d)
	}
	return s.inferredDate(text, mon, d)
}

// enMonth resolves month mon, in year y or, when y is 0, the most recent one.
func (s *scanner) enMonth(text string, y int, mon time.Month) (val, error) {
	if y != 0 {
		return s.monthVal(text, y, mon)
	}
	return s.inferredMonth(text, mon)
}

var enRules2 = []rule{
	// the beginning of the week, end of the previous week, early next week,
	// late last week, midweek.
	mkRule(scriptLatin, `(?i)(?:(?P<seg>early|mid|late)[\s-]*|(?:the\s+)?(?P<seg>beginning|start|middle|end)\s+of\s+(?:the\s+)?)(?:(?P<p>this|last|next|previous|current|coming)\s+)?(?:week|wk)`, func(s *scanner, m match) (val, error) {
		n, _ := enRel(m.g["p"])
		return s.weekSegment(n, enSegments[strings.ToLower(m.g["seg"])]), nil
	}),
	// the first half of the year, the second half of last year, first half of 2025.
	mkRule(scriptLatin, `(?i)(?:the\s+)?(?P<h>first|second|1st|2nd)\s+half\s+of\s+(?:(?:the\s+)?(?P<bare>year)|(?P<p>this|last|next|previous)\s+(?:year|yr)|(?P<y>[0-9]{4}))`, func(s *scanner, m match) (val, error) {
		half := 1
		if h := strings.ToLower(m.g["h"]); h == "second" || h == "2nd" {
			half = 2
		}
		y := s.today.y
		switch {
		case m.g["y"] != "":
			y = atoi(m.g["y"])
		case m.g["p"] != "":
			n, _ := enRel(m.g["p"])
			y += n
		}
		return s.yearHalf(y, half), nil
	}),
	// the first half of March, second half of June 2025: days 1-15, 16 to the end.
	mkRule(scriptLatin, `(?i:(?:the\s+)?(?P<h>first|second|1st|2nd)\s+half\s+of\s+)(?P<mon>`+enMonthAny+`)`+enYearOpt, func(s *scanner, m match) (val, error) {
		mon := enMonthOf(strings.TrimSuffix(m.g["mon"], "."))
		a, err := s.enMonth(m.text, enYearOf(m), mon)
		if err != nil {
			return a, err
		}
		c := civilOf(a.r.Start)
		if h := strings.ToLower(m.g["h"]); h == "first" || h == "1st" {
			return s.span(c.at(0, s.loc), c.add(15).at(0, s.loc), Daily, false), nil
		}
		return s.span(c.add(15).at(0, s.loc), a.r.End, Daily, false), nil
	}),
	// the second week of November, the last week of June 2025: days 1-7,
	// 8-14, 15-21, 22-28, or the month's last seven days.
	mkRule(scriptLatin, `(?i:(?:the\s+)?(?P<w>first|second|third|fourth|last|1st|2nd|3rd|4th)\s+week\s+of\s+)(?P<mon>`+enMonthAny+`)`+enYearOpt, func(s *scanner, m match) (val, error) {
		mon := enMonthOf(strings.TrimSuffix(m.g["mon"], "."))
		a, err := s.enMonth(m.text, enYearOf(m), mon)
		if err != nil {
			return a, err
		}
		c := civilOf(a.r.Start)
		k := map[string]int{"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3}
		if n, ok := k[strings.ToLower(m.g["w"])]; ok {
			return s.span(c.add(7*n).at(0, s.loc), c.add(7*n+7).at(0, s.loc), Daily, false), nil
		}
		last := mkCivil(c.y, c.m+1, 1)
		return s.span(last.add(-7).at(0, s.loc), last.at(0, s.loc), Daily, false), nil
	}),
	// 21 of march, the 21st of March, 21 of march 2025.
	mkRule(scriptLatin|scriptDigit, `(?i:the\s+)?(?P<d>`+enDayNum+`)\s+(?i:of)\s+(?P<mon>`+enMonthAny+`)`+enYearOpt, func(s *scanner, m match) (val, error) {
		d, _ := parseDay(m.g["d"])
		return s.enDate(m.text, enYearOf(m), enMonthOf(strings.TrimSuffix(m.g["mon"], ".")), d)
	}),
	// March the 21st, march the twenty-first, May the 4th 2025.
	mkRule(scriptLatin, `(?P<mon>`+enMonthAny+`)\s+(?i:the)\s+(?P<d>(?i:[0-9]{1,2}(?:st|nd|rd|th)|`+ordinalPattern+`))`+enYearOpt, func(s *scanner, m match) (val, error) {
		d, ok := parseDay(m.g["d"])
		if !ok || (m.text[0] >= 'a' && !functionWordRe().MatchString(s.text[m.start+len(m.text):])) {
			return val{}, errSkip // "march the 3rd battalion"
		}
		return s.enDate(m.text, enYearOf(m), enMonthOf(strings.TrimSuffix(m.g["mon"], ".")), d)
	}),
	// the 21st: that day of this month, or of last month if it is still to come.
	mkRule(scriptLatin, `(?i)the\s+(?P<d>[0-9]{1,2}(?:st|nd|rd|th))`, func(s *scanner, m match) (val, error) {
		if !functionWordRe().MatchString(s.text[m.start+len(m.text):]) {
			return val{}, errSkip // "the 21st century", "the 3rd floor"
		}
		d, _ := parseDay(m.g["d"])
		return s.dayOfMonth(m.text, d)
	}),
	// from 3 to 7 June, 2-9 october, 10 to 14 October 2025, between 3 and 7 June.
	mkRule(scriptLatin|scriptDigit, `(?i:(?:from|between)\s+(?:the\s+)?)?(?P<d1>`+enDayNum+`)\s*(?:-|–|~|\s(?i:to|until|till|through|thru|and)\s+(?:the\s+)?)\s*(?P<d2>`+enDayNum+`)\s+(?i:of\s+)?(?P<mon>`+enMonthAny+`)`+enYearOpt, func(s *scanner, m match) (val, error) {
		d1, _ := parseDay(m.g["d1"])
		d2, _ := parseDay(m.g["d2"])
		mon := enMonthOf(strings.TrimSuffix(m.g["mon"], "."))
		a, err := s.enDate(m.text, enYearOf(m), mon, d1)
		if err != nil {
			return a, err
		}
		b, err := s.dateVal(m.text, a.date.y, mon, d2)
		if err != nil {
			return b, err
		}
		if d2 < d1 {
			return val{}, invalidDate(m.text, "the range ends before it starts")
		}
		return s.span(a.r.Start, b.r.End, Daily, false), nil
	}),
	// the 3rd to the 7th, from the 3rd to the 7th: days of the most recent
	// month that holds the first.
	mkRule(scriptLatin, `(?i)(?:from\s+)?the\s+(?P<d1>[0-9]{1,2}(?:st|nd|rd|th))\s+(?:to|until|till|through|-)\s+(?:the\s+)?(?P<d2>[0-9]{1,2}(?:st|nd|rd|th))`, func(s *scanner, m match) (val, error) {
		d1, _ := parseDay(m.g["d1"])
		d2, _ := parseDay(m.g["d2"])
		return s.dayRange(m.text, d1, d2)
	}),
}
