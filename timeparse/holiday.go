package timeparse

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Holidays. Fixed-date ones are computed; the lunar ones (春节, 元宵, 端午,
// 中秋) and the Qingming solar term are read from lunarDates, a table
// generated from github.com/6tail/lunar-go for 1990 to 2050 (see
// lunardates_gen.go). Every holiday is a day; some also have a holiday
// period, which 期间 and 假期 name:
//
//	春节        正月初一        period: 除夕 to 初七, 8 days
//	国庆        1 October       period: 1-7 October
//	五一        1 May           period: 1-5 May
//
// Around a holiday (its period, or the day), 前 is the 7 days before, 后
// the 7 days after and 前后 or "around" both together with the holiday
// itself; those three are fuzzy.

// Indexes of lunarDates' columns.
const (
	lunarSpring = iota
	lunarDragonBoat
	lunarMidAutumn
	lunarQingming
	lunarKinds
)

type holiday int

const (
	hNewYear holiday = iota + 1
	hNewYearsEve
	hValentine
	hLabour
	hNational
	hHalloween
	hThanksgiving
	hChristmasEve
	hChristmas
	hSpring
	hSpringEve
	hLantern
	hQingming
	hDragonBoat
	hMidAutumn
)

// on returns the day of holiday h in year y; ok is false for a lunar
// holiday outside the table's years.
func (h holiday) on(y int) (c civil, ok bool) {
	fixed := map[holiday]civil{
		hNewYear: {y, 1, 1}, hNewYearsEve: {y, 12, 31}, hValentine: {y, 2, 14}, hLabour: {y, 5, 1},
		hNational: {y, 10, 1}, hHalloween: {y, 10, 31}, hChristmasEve: {y, 12, 24}, hChristmas: {y, 12, 25},
	}
	if c, ok := fixed[h]; ok {
		return c, true
	}
	if h == hThanksgiving { // the fourth Thursday of November
		first := civil{y, 11, 1}
		return first.add((4-first.weekday()+7)%7 + 21), true
	}
	if y < lunarFirstYear || y > lunarLastYear {
		return civil{}, false
	}
	row := lunarDates[y-lunarFirstYear]
	at := func(k int) civil { return civil{y, time.Month(row[k] / 100), int(row[k] % 100)} }
	switch h {
	case hSpringEve:
		return at(lunarSpring).add(-1), true
	case hLantern:
		return at(lunarSpring).add(14), true
	case hQingming:
		return at(lunarQingming), true
	case hDragonBoat:
		return at(lunarDragonBoat), true
	case hMidAutumn:
		return at(lunarMidAutumn), true
	}
	return at(lunarSpring), true
}

// period returns the first day and the length in days of the holiday
// period of h in year y: the day alone for most holidays.
func (h holiday) period(y int) (first civil, days int, ok bool) {
	c, ok := h.on(y)
	switch h {
	case hSpring:
		return c.add(-1), 8, ok
	case hNational:
		return c, 7, ok
	case hLabour:
		return c, 5, ok
	}
	return c, 1, ok
}

// What is said around a holiday.
type holidayMod int

const (
	modDay    holidayMod = iota // the day: 春节, Christmas
	modPeriod                   // the holiday period: 春节期间, 国庆假期
	modBefore                   // the week before: 春节前
	modAfter                    // the week after: 国庆后
	modAround                   // both and the period: 中秋前后, around Christmas
)

// holidaySpan is the days [start, end) of h in year y with modifier mod.
func holidaySpan(h holiday, y int, mod holidayMod) (start, end civil, ok bool) {
	if mod == modDay {
		c, ok := h.on(y)
		return c, c.add(1), ok
	}
	first, n, ok := h.period(y)
	switch mod {
	case modBefore:
		return first.add(-7), first, ok
	case modAfter:
		return first.add(n), first.add(n + 7), ok
	case modAround:
		return first.add(-7), first.add(n + 7), ok
	}
	return first, first.add(n), ok
}

// How the year of a holiday is chosen.
type holidayYear int

const (
	yearRecent holidayYear = iota // the most recent one that has begun
	yearLast                      // the most recent one before today: "last Christmas"
	yearNext                      // the first one after today: "next Christmas"
	yearGiven                     // the year given
)

// holidayVal resolves holiday h with modifier mod. For yearGiven, y is
// the year; yearRecent picks the latest year whose span has begun by
// today, so that "春节前" said the day before the festival is this year's.
func (s *scanner) holidayVal(text string, h holiday, mod holidayMod, how holidayYear, y int) (val, error) {
	switch how {
	case yearRecent, yearLast, yearNext:
		found := false
		for k := 0; k <= 3 && !found; k++ {
			yy := s.today.y + 1 - k
			if how == yearNext {
				yy = s.today.y + k
			}
			start, _, ok := holidaySpan(h, yy, mod)
			if !ok {
				continue
			}
			switch how {
			case yearRecent:
				found = !s.today.before(start)
			case yearLast:
				found = start.before(s.today)
			default:
				found = s.today.before(start)
			}
			if found {
				y = yy
			}
		}
		if !found {
			return val{}, invalidDate(text, "the lunar calendar table covers %d to %d", lunarFirstYear, lunarLastYear)
		}
	}
	v, err := s.holidayIn(text, h, mod, y)
	if err == nil && how != yearGiven {
		v.shift = func() (val, error) { return s.holidayIn(text, h, mod, y-1) }
	}
	v.hol = &holidayOf{h, how, y}
	return v, err
}

// holidayOf is what names a holiday, so that 前, 后 or 前后 may follow it.
type holidayOf struct {
	h   holiday
	how holidayYear
	y   int
}

// holidayAround reads 前, 后 or 前后 after holiday a: "春节前", "国庆后",
// "中秋节前后". The week before or after is the holiday's of the latest
// year in which it has begun, unless a year was given.
func (s *scanner) holidayAround(a cand) []cand {
	if a.v.hol == nil {
		return nil
	}
	rest := s.text[a.end:]
	var out []cand
	for _, w := range []string{"前后", "前", "后"} {
		if strings.HasPrefix(rest, w) && s.endOK(a.end+len(w)) {
			text := s.text[:a.end+len(w)]
			how, y := a.v.hol.how, a.v.hol.y
			if how != yearGiven {
				how = yearRecent
			}
			v, err := s.holidayVal(text, a.v.hol.h, hanHolidayMod(w), how, y)
			out = append(out, cand{end: a.end + len(w), v: v, err: err})
		}
	}
	return out
}

// holidayIn is holiday h with modifier mod in year y.
func (s *scanner) holidayIn(text string, h holiday, mod holidayMod, y int) (val, error) {
	start, end, ok := holidaySpan(h, y, mod)
	if !ok {
		return val{}, invalidDate(text, "the lunar calendar table covers %d to %d", lunarFirstYear, lunarLastYear)
	}
	if end == start.add(1) {
		return s.dayVal(start), nil
	}
	fuzzy := mod == modBefore || mod == modAfter || mod == modAround
	return s.span(start.at(0, s.loc), end.at(0, s.loc), Daily, fuzzy), nil
}

// before reports whether c is an earlier day than d.
func (c civil) before(d civil) bool {
	if c.y != d.y {
		return c.y < d.y
	}
	if c.m != d.m {
		return c.m < d.m
	}
	return c.d < d.d
}

// hanHolidays maps each Chinese holiday name, in simplified characters, to
// its holiday.
var hanHolidays = map[string]holiday{
	"元旦": hNewYear, "跨年夜": hNewYearsEve, "情人节": hValentine,
	"五一": hLabour, "五一节": hLabour, "劳动节": hLabour, "五一劳动节": hLabour,
	"国庆": hNational, "国庆节": hNational, "十一": hNational,
	"万圣节": hHalloween, "感恩节": hThanksgiving,
	"平安夜": hChristmasEve, "圣诞": hChristmas, "圣诞节": hChristmas,
	"春节": hSpring, "大年初一": hSpring, "除夕": hSpringEve, "大年三十": hSpringEve, "年三十": hSpringEve,
	"元宵": hLantern, "元宵节": hLantern, "清明": hQingming, "清明节": hQingming,
	"端午": hDragonBoat, "端午节": hDragonBoat, "中秋": hMidAutumn, "中秋节": hMidAutumn,
}

// hanHolidayMod reads the word after a Chinese holiday name.
func hanHolidayMod(w string) holidayMod {
	switch w {
	case "":
		return modDay
	case "前":
		return modBefore
	case "后":
		return modAfter
	case "前后":
		return modAround
	}
	return modPeriod
}

// enHoliday reads an English holiday name.
func enHoliday(w string) holiday {
	w = strings.Join(strings.Fields(strings.ToLower(strings.NewReplacer("’", "'", "-", " ").Replace(w))), " ")
	switch {
	case strings.Contains(w, "eve") && strings.HasPrefix(w, "christmas"):
		return hChristmasEve
	case strings.HasPrefix(w, "christmas"), w == "xmas":
		return hChristmas
	case strings.HasPrefix(w, "new year") && strings.HasSuffix(w, "eve"):
		return hNewYearsEve
	case strings.HasPrefix(w, "new year"):
		return hNewYear
	case strings.HasPrefix(w, "valentine"):
		return hValentine
	case w == "halloween":
		return hHalloween
	case strings.HasPrefix(w, "thanksgiving"):
		return hThanksgiving
	case strings.HasSuffix(w, "new year"), w == "spring festival":
		return hSpring
	case strings.HasPrefix(w, "lantern"):
		return hLantern
	case strings.HasPrefix(w, "qingming"), strings.HasPrefix(w, "tomb"):
		return hQingming
	case strings.HasPrefix(w, "dragon"):
		return hDragonBoat
	case strings.HasPrefix(w, "mid"):
		return hMidAutumn
	case w == "national day":
		return hNational
	}
	return hLabour // May Day
}

const (
	// hanHolidayNames are the Chinese holiday names, longest first within
	// a prefix; 十一 counts only before a word for the holiday period.
	hanHolidayNames = `元旦|跨年夜|情人节|五一劳动节|五一节?|劳动节|国庆节?|万圣节|感恩节|平安夜|圣诞节?|春节|大年初一|除夕|大年三十|年三十|元宵节?|清明节?|端午节?|中秋节?`
	hanHolidayMods  = `期间|假期|长假|小长假|黄金周`
	enHolidayNames  = `(?i:christmas(?:\s+day|\s+eve)?|xmas|new\s+year(?:'s|’s|s)?\s+(?:day|eve)|valentine(?:'s|’s|s)?\s+day|halloween|thanksgiving(?:\s+day)?|(?:chinese|lunar)\s+new\s+year|spring\s+festival|lantern\s+festival|qingming(?:\s+festival)?|tomb[-\s]sweeping\s+day|dragon\s+boat\s+festival|mid-?autumn\s+festival|national\s+day)|New\s+Year|May\s+Day`
)

var holidayRules = []rule{
	// 春节, 去年国庆节, 2025年中秋, 国庆期间, 十一长假; 前, 后 and 前后
	// after them are read by holidayAround.
	mkRule(scriptHan|scriptDigit, `(?:(?:`+hanYear+`)的?)?(?:(?P<h>`+hanHolidayNames+`)(?P<mod>`+hanHolidayMods+`)?|(?P<h>十一)(?P<mod>假期|长假|小长假|黄金周))`, func(s *scanner, m match) (val, error) {
		h := hanHolidays[m.g["h"]]
		mod := hanHolidayMod(m.g["mod"])
		if next, _ := utf8.DecodeRuneInString(s.text[m.start+len(m.text):]); m.g["h"] == "五一" && m.g["mod"] == "" && strings.ContainsRune("班级路号楼栋中小", next) {
			return val{}, errSkip // "五一班", "五一路"
		}
		if y, ok := s.hanYearOf(m); ok {
			return s.holidayVal(m.text, h, mod, yearGiven, y)
		}
		return s.holidayVal(m.text, h, mod, yearRecent, 0)
	}),
	// Christmas, last Christmas, Christmas 2025, Christmas last year,
	// around Christmas, New Year's Eve, Thanksgiving.
	mkRule(scriptLatin, `(?i:(?P<around>around|about)\s+)?(?i:(?P<p>last|this|next|the\s+last)\s+)?(?P<h>`+enHolidayNames+`)(?:,?\s+(?P<y>[0-9]{4})|\s+(?i:(?P<q>last|this|next)\s+year))?`, func(s *scanner, m match) (val, error) {
		h := enHoliday(m.g["h"])
		mod := modDay
		if m.g["around"] != "" {
			mod = modAround
		}
		switch {
		case m.g["y"] != "":
			return s.holidayVal(m.text, h, mod, yearGiven, atoi(m.g["y"]))
		case m.g["q"] != "":
			n, _ := enRel(m.g["q"])
			return s.holidayVal(m.text, h, mod, yearGiven, s.today.y+n)
		}
		switch strings.ToLower(strings.Join(strings.Fields(m.g["p"]), " ")) {
		case "last", "the last":
			return s.holidayVal(m.text, h, mod, yearLast, 0)
		case "next":
			return s.holidayVal(m.text, h, mod, yearNext, 0)
		case "this":
			return s.holidayVal(m.text, h, mod, yearGiven, s.today.y)
		}
		v, err := s.holidayVal(m.text, h, mod, yearRecent, 0)
		v.anchorOnly = true
		return v, err
	}),
}
