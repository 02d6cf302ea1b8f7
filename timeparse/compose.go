package timeparse

import (
	"strings"
	"time"
	"unicode/utf8"
)

// This file composes a date part with another: an offset from an anchor
// ("3 days before last Friday", "国庆节后两天"), the first or last units of
// a period ("今年前三个月"), a day of a month ("下个月二十号", "the 20th of
// next month") and a weekday with a day of the month ("Tuesday the 19th").
// [scanner.singles] calls these on the atoms it has read, so every part
// they make may take a part of the day and a clock time, and be one side
// of a range.

// Units of Chinese offsets. A month counts with 个 ("3个月"), and a count
// of days before 前 or 后 with 天: "今年3月前" is before March, "4月9日之前"
// before 9 April.
const (
	hanOffsetUnit = `个\s*月|个?\s*(?:天|日|周|星期|礼拜|年|小时|钟头)`
	hanAgoUnit    = `个\s*月|个?\s*(?:天|周|星期|礼拜|年|小时|钟头)`
)

var (
	// enOffsetRe reads the count and direction of an English offset
	// before its anchor: "3 days before ", "the day after ".
	enOffsetRe = gatedRegexp(`^(?:(?i:(?P<n>` + enNum + `)\s+(?P<u>` + enUnit + `)|(?:the\s+)?(?P<u>day|week|month|year))\s+(?P<dir>before|after|prior\s+to|later\s+than|earlier\s+than))\s+`)
	// hanOffsetRe reads a Chinese offset after its anchor: "前三天",
	// "之后两周", "的三天后", "的第二天".
	hanOffsetRe = lazyRegexp(`^的?\s*(?:(?P<dir>之前|以前|前|之后|以后|后)\s*(?P<n>` + hanNum + `)\s*(?P<u>` + hanOffsetUnit + `)|(?P<n>` + hanNum + `)\s*(?P<u>` + hanAgoUnit + `)\s*(?P<dir>之前|以前|前|之后|以后|后)|(?P<next>第二天|次日|隔天))`)
	// yearDigitsRe finds a year written in digits in an anchor.
	yearDigitsRe = lazyRegexp(`[0-9]{4}`)
	// hanDayAfterRe reads a day of the month after a month: "二十号".
	hanDayAfterRe = lazyRegexp(`^的?\s*(` + hanDay + `)\s*[日号]`)
	// enDayOfRe reads "the 20th of " before a month.
	enDayOfRe = gatedRegexp(`^(?i:(?:the\s+)?(` + enDayNum + `|` + ordinalPattern + `)\s+of\s+)`)
)

// groups returns the named groups of a submatch index list of re that
// took part in the match, the first of each name.
func groups(names []string, text string, loc []int) map[string]string {
	g := map[string]string{}
	for k, name := range names {
		if name != "" && loc[2*k] >= 0 && g[name] == "" {
			g[name] = text[loc[2*k]:loc[2*k+1]]
		}
	}
	return g
}

// enOffsets reads an English offset from an anchor that starts at offset
// i: "3 days before last Friday", "two weeks after Christmas", "the day
// after New Year's Day". A calendar date written with its year ("two weeks
// before August 11, 2023") is not an anchor: such a question names the day
// it was asked about, and the date alone is read.
func (s *scanner) enOffsets(i int) []cand {
	m := s.findAt(enOffsetRe, i)
	if m == nil {
		return nil
	}
	g := groups(enOffsetRe.re().SubexpNames(), s.text[i:], m)
	n, k := 1, 1
	u := unitDay
	if g["n"] != "" {
		var fuzzy, ok bool
		n, fuzzy, ok = parseNumber(g["n"])
		if !ok || fuzzy {
			return nil
		}
	}
	u, k = enUnitOf(g["u"])
	n *= k
	if d := strings.ToLower(g["dir"]); strings.HasPrefix(d, "before") || strings.HasPrefix(d, "prior") || strings.HasPrefix(d, "earlier") {
		n = -n
	}
	j := i + m[1]
	if !s.startOK(j) {
		return nil
	}
	var out []cand
	for _, a := range s.singles(j) {
		if a.err != nil || a.v.weak || a.v.date != nil && yearDigitsRe().MatchString(s.text[j:a.end]) {
			continue
		}
		out = append(out, cand{end: a.end, v: s.shifted(a.v, n, u)})
	}
	return out
}

// hanOffsets reads a Chinese offset after anchor a: "上周五前三天",
// "国庆节后两天", "春节的前一天", "圣诞节的第二天". After a period longer
// than the unit, 前 and 后 take its first or last units instead:
// "今年前三个月", "这个月前10天", "上周后两天".
func (s *scanner) hanOffsets(a cand) []cand {
	// Every offset starts with 的, a direction, 第, 次, 隔 or a count.
	if r, _ := utf8.DecodeRuneInString(s.text[a.end:]); !(isHanNumeral(r) || r >= '0' && r <= '9' || strings.ContainsRune("的前之以后第次隔 ", r)) {
		return nil
	}
	m := hanOffsetRe().FindStringSubmatchIndex(s.text[a.end:])
	if m == nil || !s.endOK(a.end+m[1]) {
		return nil
	}
	g := groups(hanOffsetRe().SubexpNames(), s.text[a.end:], m)
	end := a.end + m[1]
	if g["next"] != "" {
		return []cand{{end: end, v: s.shifted(a.v, 1, unitDay)}}
	}
	n, _, ok := parseNumber(g["n"])
	if !ok || n == 0 {
		return nil
	}
	u := unitOf(strings.TrimLeft(g["u"], "个 \t"))
	back := strings.HasSuffix(g["dir"], "前")
	if a.v.day == nil && a.v.r.Granularity != Hourly {
		// 前 right after the period (no 的) is its first units.
		if v, ok := s.partOf(a.v, n, u, !back); ok && !strings.HasPrefix(s.text[a.end:], "的") {
			return []cand{{end: end, v: v}}
		}
	}
	if back {
		n = -n
	}
	return []cand{{end: end, v: s.shifted(a.v, n, u)}}
}

// shifted is v moved by n units of u. A day stays a day, and an hour of a
// day keeps its clock time; a period moves both its ends.
func (s *scanner) shifted(v val, n int, u unit) val {
	if u == unitHour {
		d := time.Duration(n) * time.Hour
		return s.span(v.r.Start.Add(d), v.r.End.Add(d), Hourly, v.r.Fuzzy)
	}
	if v.day != nil {
		return s.dayVal(v.day.shift(n, u))
	}
	at := func(t time.Time) time.Time {
		c := civilOf(t).shift(n, u)
		return time.Date(c.y, c.m, c.d, t.Hour(), t.Minute(), 0, 0, s.loc)
	}
	g := v.r.Granularity
	if g > u.granularity() {
		g = u.granularity()
	}
	return s.span(at(v.r.Start), at(v.r.End), g, v.r.Fuzzy)
}

// partOf is the first n units of period v, or the last n when last is
// set; ok is false when they do not fit in it.
func (s *scanner) partOf(v val, n int, u unit, last bool) (val, bool) {
	if u == unitHour {
		return val{}, false
	}
	start, end := civilOf(v.r.Start), civilOf(v.r.End)
	if last {
		start = end.shift(-n, u)
	} else {
		end = start.shift(n, u)
	}
	if start.before(civilOf(v.r.Start)) || civilOf(v.r.End).before(end) || start == civilOf(v.r.Start) && end == civilOf(v.r.End) {
		return val{}, false
	}
	return s.span(start.at(0, s.loc), end.at(0, s.loc), u.granularity(), v.r.Fuzzy), true
}

// monthDay reads a day after month a: "下个月二十号", "上个月5号". A
// named month and a day ("4月6日") are a date atom of their own.
func (s *scanner) monthDay(a cand) []cand {
	if a.v.mon == nil || a.v.month != 0 {
		return nil
	}
	m := hanDayAfterRe().FindStringSubmatchIndex(s.text[a.end:])
	if m == nil || !s.endOK(a.end+m[1]) {
		return nil
	}
	d, _ := parseDay(s.text[a.end+m[2] : a.end+m[3]])
	end := a.end + m[1]
	v, err := s.dateVal(s.text[:end], a.v.mon.y, a.v.mon.m, d)
	return []cand{{end: end, v: v, err: err}}
}

// dayOfMonthOf reads "the 20th of" a month at offset i: "the 20th of
// next month", "the 3rd of last month".
func (s *scanner) dayOfMonthOf(i int) []cand {
	m := s.findAt(enDayOfRe, i)
	if m == nil {
		return nil
	}
	d, ok := parseDay(s.text[i+m[2] : i+m[3]])
	j := i + m[1]
	if !ok || !s.startOK(j) {
		return nil
	}
	var out []cand
	for _, a := range s.atoms(j) {
		if a.err == nil && a.v.mon != nil {
			v, err := s.dateVal(s.text[i:a.end], a.v.mon.y, a.v.mon.m, d)
			out = append(out, cand{end: a.end, v: v, err: err})
		}
	}
	return out
}

// weekdayDom is the most recent day d of a month that falls on ISO weekday
// wd and is not after today: "Tuesday the 19th".
func (s *scanner) weekdayDom(text string, wd, d int) (val, error) {
	c := civil{s.today.y, s.today.m, 1}
	for k := 0; k < 12*28; k++ {
		if d <= daysIn(c.y, c.m) {
			day := civil{c.y, c.m, d}
			if day.weekday() == wd && !s.today.before(day) {
				return s.dateVal(text, day.y, day.m, day.d)
			}
		}
		c = c.addMonths(-1)
	}
	return val{}, invalidDate(text, "there is no day %d", d)
}

var composeRules = []rule{
	// two weekends ago, 3 weekends back.
	mkRule(scriptLatin|scriptDigit, `(?i)(?P<n>`+enNum+`)\s+week-?ends?\s+(?:ago|back)`, func(s *scanner, m match) (val, error) {
		n, fuzzy, ok := parseNumber(m.g["n"])
		if !ok || fuzzy {
			return val{}, errSkip
		}
		return s.weekend(-n), nil
	}),
	// 两个周末前, 三个周末以前.
	mkRule(scriptHan|scriptDigit, `(?P<n>`+hanNum+`)\s*个?\s*周末\s*(?:前|以前|之前)`, func(s *scanner, m match) (val, error) {
		n, _, ok := parseNumber(m.g["n"])
		if !ok {
			return val{}, errSkip
		}
		return s.weekend(-n), nil
	}),
	// 上两周, 上三个月, 前三天, 前两年: the n whole units before this one.
	mkRule(scriptHan, `(?P<p>上|前)\s*(?P<n>`+hanNum+`)\s*个?\s*(?P<u>`+hanUnit+`)`, func(s *scanner, m match) (val, error) {
		n, _, ok := parseNumber(m.g["n"])
		u := unitOf(m.g["u"])
		if !ok || n == 0 || m.g["p"] == "前" && n == 2 && u == unitDay {
			return val{}, errSkip // 前两天 is "a couple of days ago", a fuzzy phrase
		}
		return s.previous(n, u), nil
	}),
}

// previous is the n whole units before the current one: for "上两周" on a
// Sunday, the two ISO weeks before this one.
func (s *scanner) previous(n int, u unit) val {
	switch u {
	case unitHour:
		h := floorHour(s.ref)
		return s.span(h.Add(-time.Duration(n)*time.Hour), h, Hourly, false)
	case unitDay:
		return s.span(s.today.add(-n).at(0, s.loc), s.today.at(0, s.loc), Daily, false)
	case unitWeek:
		return s.span(s.weekVal(-n).r.Start, s.weekVal(0).r.Start, Weekly, false)
	case unitMonth:
		return s.span(s.relMonth(-n).r.Start, s.relMonth(0).r.Start, Monthly, false)
	}
	return s.span(s.yearVal(s.today.y-n).r.Start, s.yearVal(s.today.y).r.Start, Yearly, false)
}
