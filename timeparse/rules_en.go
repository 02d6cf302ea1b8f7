package timeparse

import (
	"strings"
	"time"

	"github.com/olebedev/when/rules/en"
)

// Pieces of the English patterns. Abbreviated weekdays must be capitalised
// ("Sat", not "sat", which is a verb), and so must "May".
const (
	enNum     = `[0-9]{1,4}|an?|` + `(?i:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)` + `|a\s+couple\s+of|couple\s+of|a\s+few|few|several`
	enUnit    = `hours?|hrs?|days?|weeks?|wks?|fortnights?|months?|mos?|years?|yrs?`
	enWeekday = `(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)`
	enMonth   = `(?i:january|february|march|april|june|july|august|september|october|november|december)|May|(?i:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?`

	ordinalPattern = `1st|first|2nd|second|3rd|third|[4-9]th|fourth|fifth|sixth|seventh|eighth|ninth|1[0-9]th|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|20th|twentieth|21st|22nd|23rd|2[4-9]th|30th|thirtieth|31st|twenty[ -](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|thirty[ -]first`
)

// enWeekdayOf reads an English weekday name as an ISO weekday (1 = Monday).
func enWeekdayOf(w string) int {
	wd := en.WEEKDAY_OFFSET[strings.ToLower(w)[:3]]
	if wd == 0 {
		return 7
	}
	return wd
}

// enUnitOf reads an English unit word or abbreviation; a fortnight is
// two weeks.
func enUnitOf(w string) (unit, int) {
	w = strings.TrimSuffix(strings.ToLower(w), "s")
	switch w {
	case "hr":
		return unitHour, 1
	case "wk":
		return unitWeek, 1
	case "fortnight":
		return unitWeek, 2
	case "mo":
		return unitMonth, 1
	case "yr":
		return unitYear, 1
	}
	return unitOf(w), 1
}

var (
	howRe  = lazyRegexp(`(?i)\bhow\s+$`)
	everRe = lazyRegexp(`(?i)\b(?:ever|never)\b`)
	// yesNoRe matches the start of a yes/no question: "Have I used
	// Bootstrap before?" asks whether it ever happened, as "ever" does.
	yesNoRe = lazyRegexp(`(?i)^\s*(?:have|has|had|did|do|does)\b`)
)

// enMonthOf reads an English month name.
func enMonthOf(w string) time.Month {
	return time.Month(en.MONTH_OFFSET[strings.ToLower(w)])
}

// enRel reads this, last, next and their variants as a number of periods
// from the current one; bare is set for "past" and "this past", which mean
// the most recent one.
func enRel(p string) (n int, bare bool) {
	switch strings.Join(strings.Fields(strings.ToLower(p)), " ") {
	case "last", "previous", "the previous":
		return -1, false
	case "next", "coming", "the coming", "upcoming", "the upcoming":
		return 1, false
	case "past", "the past", "this past":
		return 0, true
	case "":
		return 0, true
	}
	return 0, false
}

var enSegments = map[string]int{
	"early": segEarly, "beginning": segEarly, "start": segEarly,
	"mid": segMid, "middle": segMid,
	"late": segLate, "end": segLate,
}

var enRules = []rule{
	// today, yesterday, tomorrow, the day before yesterday, the day after tomorrow.
	mkRule(scriptLatin, `(?i)(?P<w>today|yesterday|tomorrow|(?:the\s+)?day\s+before\s+yesterday|(?:the\s+)?day\s+after\s+tomorrow)`, func(s *scanner, m match) (val, error) {
		w := strings.ToLower(m.g["w"])
		n := map[string]int{"today": 0, "yesterday": -1, "tomorrow": 1}[w]
		switch {
		case strings.HasSuffix(w, "yesterday") && w != "yesterday":
			n = -2
		case strings.HasSuffix(w, "tomorrow") && w != "tomorrow":
			n = 2
		}
		return s.dayVal(s.today.add(n)), nil
	}),
	// tonight, last night, this morning, this afternoon, this evening.
	mkRule(scriptLatin, `(?i)(?P<w>tonight|last\s+night|this\s+(?P<pod>morning|afternoon|evening|noon))`, func(s *scanner, m match) (val, error) {
		w := strings.ToLower(m.g["w"])
		switch {
		case w == "tonight":
			return s.hours(s.today, 18, 24), nil
		case strings.HasPrefix(w, "last"):
			return s.hours(s.today.add(-1), 18, 24), nil
		}
		h := podHours[strings.ToLower(m.g["pod"])]
		return s.hours(s.today, h[0], h[1]), nil
	}),
	// this week, last week, the previous week, the week before last, next week.
	mkRule(scriptLatin, `(?i)(?P<p>this|last|next|previous|the\s+previous|the\s+current|(?:the\s+)?(?:coming|upcoming))\s+(?:week|wk)|(?P<bl>the\s+week\s+before\s+last)|(?P<an>the\s+week\s+after\s+next)`, func(s *scanner, m match) (val, error) {
		switch {
		case m.g["bl"] != "":
			return s.weekVal(-2), nil
		case m.g["an"] != "":
			return s.weekVal(2), nil
		}
		n, _ := enRel(m.g["p"])
		return s.weekVal(n), nil
	}),
	// Monday, on Friday, last Wednesday, this Friday, next Monday,
	// Wednesday last week, this past Sunday.
	mkRule(scriptLatin, `(?:(?i:(?P<p>this\s+past|the\s+past|this|last|next|past|previous|the\s+previous|coming|the\s+coming))\s+)?(?P<wd>`+enWeekday+`)\.?(?:\s+(?i:(?:of\s+)?(?:the\s+)?(?P<q>this|last|next|previous|coming|current)\s+(?:week|wk)))?|(?i:(?P<q>this|last|next|previous)\s+(?:week|wk)(?:'s|’s)\s+)(?P<wd>`+enWeekday+`)`, func(s *scanner, m match) (val, error) {
		w := m.g["wd"]
		wd := enWeekdayOf(w)
		p := m.g["p"]
		if m.g["q"] != "" {
			p = m.g["q"]
		}
		n, bare := enRel(p)
		var v val
		if bare {
			v = s.bareWeekday(wd)
		} else {
			v = s.weekday(n, wd)
		}
		v.wd = wd
		// A lower-case abbreviation ("sat", "wed") may be a word; it
		// counts only next to a date, or after this/last/next.
		v.weak = len(w) < 6 && w[0] >= 'a' && p == ""
		return v, nil
	}),
	// the weekend, this weekend, last weekend, next weekend.
	mkRule(scriptLatin, `(?i)(?:(?P<p>this\s+past|the\s+past|this|last|next|past|previous|coming|the\s+coming)\s+|the\s+)?week-?end`, func(s *scanner, m match) (val, error) {
		n, bare := enRel(m.g["p"])
		if bare {
			return s.bareWeekend(), nil
		}
		return s.weekend(n), nil
	}),
	// 3 days ago, two weeks ago, a month ago, an hour ago, a few days ago.
	mkRule(scriptLatin|scriptDigit, `(?i)(?P<n>`+enNum+`)\s+(?P<u>`+enUnit+`)\s+(?:ago|back)`, func(s *scanner, m match) (val, error) {
		n, fuzzy, ok := parseNumber(m.g["n"])
		if !ok {
			return val{}, errSkip
		}
		u, k := enUnitOf(m.g["u"])
		return s.ago(n*k, u, fuzzy), nil
	}),
	// 6 days before, two weeks earlier, at the end of a clause: "ago".
	needEnd(mkRule(scriptLatin|scriptDigit, `(?i)(?P<n>`+enNum+`)\s+(?P<u>`+enUnit+`)\s+(?:before|earlier|prior)`, func(s *scanner, m match) (val, error) {
		n, fuzzy, ok := parseNumber(m.g["n"])
		if !ok {
			return val{}, errSkip
		}
		u, k := enUnitOf(m.g["u"])
		return s.ago(n*k, u, fuzzy), nil
	})),
	// the last 3 days, past two weeks, the last few days, previous 24 hours.
	mkRule(scriptLatin, `(?i)(?:the\s+)?(?:last|past|previous)\s+(?P<n>`+enNum+`)\s+(?P<u>`+enUnit+`)`, func(s *scanner, m match) (val, error) {
		n, fuzzy, ok := parseNumber(m.g["n"])
		if !ok || n == 0 {
			return val{}, errSkip
		}
		u, k := enUnitOf(m.g["u"])
		return s.last(n*k, u, fuzzy), nil
	}),
	// the past week, the last month, past year: one rolling unit.
	mkRule(scriptLatin, `(?i)(?:the\s+(?:last|past)|past)\s+(?P<u>hour|hr|day|week|wk|fortnight|month|year|yr)|(?:the\s+)?(?:last|previous)\s+(?P<u>fortnight)`, func(s *scanner, m match) (val, error) {
		u, k := enUnitOf(m.g["u"])
		return s.last(k, u, false), nil
	}),
	// the week before, the week after, at the end of a clause: last week
	// and next week.
	needEnd(mkRule(scriptLatin, `(?i)the\s+(?P<u>week|month|year)\s+(?P<w>before|after)`, func(s *scanner, m match) (val, error) {
		n := 1
		if strings.EqualFold(m.g["w"], "before") {
			n = -1
		}
		switch strings.ToLower(m.g["u"]) {
		case "week":
			return s.weekVal(n), nil
		case "month":
			return s.relMonth(n), nil
		}
		return s.yearVal(s.today.y + n), nil
	})),
	// this month, last month, the previous month, the month before last, next month.
	mkRule(scriptLatin, `(?i)(?P<p>this|last|next|previous|the\s+previous|the\s+current|(?:the\s+)?(?:coming|upcoming))\s+month|(?P<bl>the\s+month\s+before\s+last)`, func(s *scanner, m match) (val, error) {
		if m.g["bl"] != "" {
			return s.relMonth(-2), nil
		}
		n, _ := enRel(m.g["p"])
		return s.relMonth(n), nil
	}),
	// early March, mid-March, late last month, the end of the month, the
	// beginning of March 2025.
	mkRule(scriptLatin, `(?:(?i:(?P<seg>early|mid|late))[\s-]+|(?i:(?:the\s+)?(?P<seg>beginning|start|middle|end)\s+of\s+(?:the\s+)?))(?:(?i:(?P<p>this|last|next|previous)\s+month|(?P<bare>month))|(?P<mon>`+enMonth+`)(?:,?\s+(?P<y>[0-9]{4}))?)`, func(s *scanner, m match) (val, error) {
		seg := enSegments[strings.ToLower(m.g["seg"])]
		switch {
		case m.g["bare"] != "":
			return s.thisMonthSegment(seg), nil
		case m.g["p"] != "":
			n, _ := enRel(m.g["p"])
			c := mkCivil(s.today.y, s.today.m+time.Month(n), 1)
			return s.monthSegment(c.y, c.m, seg), nil
		}
		mon := enMonthOf(m.g["mon"])
		y := s.today.y
		if m.g["y"] != "" {
			y = atoi(m.g["y"])
		} else if mon > s.today.m {
			y--
		}
		return s.monthSegment(y, mon, seg), nil
	}),
	// early 2025, late last year, the end of the year, the beginning of this year.
	mkRule(scriptLatin, `(?i)(?:(?P<seg>early|mid|late)[\s-]+|(?:the\s+)?(?P<seg>beginning|start|middle|end)\s+of\s+(?:the\s+)?)(?:(?P<p>this|last|next|previous)\s+year|(?P<bare>year)|(?P<y>[0-9]{4}))`, func(s *scanner, m match) (val, error) {
		seg := enSegments[strings.ToLower(m.g["seg"])]
		switch {
		case m.g["bare"] != "":
			return s.thisYearSegment(seg), nil
		case m.g["p"] != "":
			n, _ := enRel(m.g["p"])
			return s.yearSegment(s.today.y+n, seg), nil
		}
		return s.yearSegment(atoi(m.g["y"]), seg), nil
	}),
	// this March, last March, next March.
	mkRule(scriptLatin, `(?i:(?P<p>this|last|next))\s+(?P<mon>`+enMonth+`)`, func(s *scanner, m match) (val, error) {
		mon := enMonthOf(m.g["mon"])
		y := s.today.y
		switch strings.ToLower(m.g["p"]) {
		case "last":
			if mon >= s.today.m {
				y--
			}
		case "next":
			if mon <= s.today.m {
				y++
			}
		}
		return s.monthVal(m.text, y, mon)
	}),
	// this year, last year, the year before last, next year.
	mkRule(scriptLatin, `(?i)(?P<p>this|last|next|previous|the\s+previous|the\s+current|(?:the\s+)?(?:coming|upcoming))\s+(?:year|yr)|(?P<bl>the\s+year\s+before\s+last)`, func(s *scanner, m match) (val, error) {
		if m.g["bl"] != "" {
			return s.yearVal(s.today.y - 2), nil
		}
		n, _ := enRel(m.g["p"])
		return s.yearVal(s.today.y + n), nil
	}),
	// in 2025, during 2025, the year 2025.
	mkRule(scriptLatin, `(?i)(?:in|during|the\s+year|year)\s+(?P<y>[0-9]{4})`, func(s *scanner, m match) (val, error) {
		return s.yearVal(atoi(m.g["y"])), nil
	}),
	// Fuzzy phrases; see the table in the package documentation.
	mkRule(scriptLatin, `(?i)just\s+now|a\s+moment\s+ago|moments\s+ago|a\s+(?:few\s+)?minutes?\s+ago`, fuzzyFn(fuzzyJustNow)),
	mkRule(scriptLatin, `(?i)the\s+other\s+day`, fuzzyFn(fuzzyFewDaysAgo)),
	mkRule(scriptLatin, `(?i)recently|lately|of\s+late|these\s+days|in\s+recent\s+(?:days|weeks|times)`, fuzzyFn(fuzzyRecent)),
	mkRule(scriptLatin, `(?i)(?:a\s+(?:little\s+|short\s+)?while|some\s*time)\s+(?:ago|back)`, fuzzyFn(fuzzyWhileAgo)),
	mkRule(scriptLatin, `(?i)(?:a\s+)?long\s+(?:time|while)\s+(?:ago|back)|long\s+ago|ages\s+ago|way\s+back`, func(s *scanner, m match) (val, error) {
		if howRe().MatchString(s.text[:m.start]) {
			return val{}, errSkip // "How long ago was ...?" asks for a time
		}
		return s.fuzzy(fuzzyLongAgo), nil
	}),
	mkRule(scriptLatin, `(?i)earlier|previously|in\s+the\s+past`, fuzzyFn(fuzzyBefore)),
	// "before" on its own, at the end of a clause: "what did we say before?"
	// but not "before the launch".
	needEnd(mkRule(scriptLatin, `(?i)before`, func(s *scanner, m match) (val, error) {
		clause := s.text[strings.LastIndexAny(s.text[:m.start], ".?!;\n")+1 : m.start]
		if everRe().MatchString(s.text[:m.start]) || yesNoRe().MatchString(clause) {
			return val{}, errSkip // "Have I (ever) ... before?" means at any time
		}
		return s.fuzzy(fuzzyBefore), nil
	})),
	// earlier today, earlier this week, earlier this month, earlier this year.
	mkRule(scriptLatin, `(?i)earlier\s+(?P<w>today|this\s+week|this\s+month|this\s+year)`, func(s *scanner, m match) (val, error) {
		var start time.Time
		g := Hourly
		switch w := strings.ToLower(m.g["w"]); {
		case w == "today":
			start = s.today.at(0, s.loc)
		case strings.HasSuffix(w, "week"):
			start, g = s.weekVal(0).r.Start, Daily
		case strings.HasSuffix(w, "month"):
			start, g = s.relMonth(0).r.Start, Daily
		default:
			start, g = s.yearVal(s.today.y).r.Start, Monthly
		}
		return s.span(start, s.ref, g, true), nil
	}),
}

func needEnd(r rule) rule {
	r.needEnd = true
	return r
}

// digitRules read numeric dates, which are the same in both languages.
var digitRules = []rule{
	// 2026-04-06, 2026/4/6, 2026.4.6.
	mkRule(scriptDigit, `(?P<y>[0-9]{4})(?P<s1>[-/.])(?P<m>[0-9]{1,2})(?P<s2>[-/.])(?P<d>[0-9]{1,2})`, func(s *scanner, m match) (val, error) {
		if m.g["s1"] != m.g["s2"] {
			return val{}, errSkip
		}
		return s.dateVal(m.text, atoi(m.g["y"]), time.Month(atoi(m.g["m"])), atoi(m.g["d"]))
	}),
	// 2026-04, 2026/4.
	mkRule(scriptDigit, `(?P<y>[0-9]{4})[-/](?P<m>[0-9]{1,2})`, func(s *scanner, m match) (val, error) {
		return s.monthVal(m.text, atoi(m.g["y"]), time.Month(atoi(m.g["m"])))
	}),
	// 2026-W47.
	mkRule(scriptDigit, `[0-9]{4}-[Ww][0-9]{2}`, func(s *scanner, m match) (val, error) {
		w, err := ParseWeek(m.text)
		if err != nil {
			return val{}, invalidDate(m.text, "%d has weeks 01 to %d", atoi(m.text[:4]), weeksIn(atoi(m.text[:4])))
		}
		start, end := w.Range(s.loc)
		return s.span(start, end, Weekly, false), nil
	}),
}

var allRules = func() []rule {
	var all []rule
	all = append(all, hanRules...)
	all = append(all, enRules...)
	all = append(all, enRules2...)
	all = append(all, digitRules...)
	all = append(all, holidayRules...)
	all = append(all, composeRules...)
	return all
}()
