// Command corpusgen writes the phrase corpus that TestCorpus checks (the
// test runs it), one JSON object per line on stdout:
//
//	{"phrase": "上周五前三天", "now": "2026-11-29T15:04:00+08:00", "zone": "Asia/Shanghai",
//	 "start": "2026-11-17T00:00:00+08:00", "end": "2026-11-18T00:00:00+08:00", "example": false}
//
// It combines date parts, parts of the day, clock times, offsets, holidays
// and ranges at a few reference times in two zones (New York on both of
// its 2026 daylight-saving days), and computes each expected range here
// with plain calendar arithmetic, never with timeparse. The lunar holidays
// come from the published dates below. "example" marks the phrases that
// the grammar was asked to read. Run from timeparse/:
//
//	go run ./testdata/corpusgen
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// day is a civil date; arithmetic goes through time.Date at noon UTC.
type day struct {
	y int
	m time.Month
	d int
}

func mk(y int, m time.Month, d int) day {
	t := time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
	return day{t.Year(), t.Month(), t.Day()}
}
func (c day) plus(n int) day { return mk(c.y, c.m, c.d+n) }
func (c day) wd() int {
	w := int(time.Date(c.y, c.m, c.d, 12, 0, 0, 0, time.UTC).Weekday())
	if w == 0 {
		return 7
	}
	return w
}
func (c day) less(o day) bool {
	return time.Date(c.y, c.m, c.d, 0, 0, 0, 0, time.UTC).Before(time.Date(o.y, o.m, o.d, 0, 0, 0, 0, time.UTC))
}
func monthsIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 12, 0, 0, 0, time.UTC).Day() }

// plusMonths keeps the day, or the month's last day.
func (c day) plusMonths(n int) day {
	f := mk(c.y, c.m+time.Month(n), 1)
	return day{f.y, f.m, min(c.d, monthsIn(f.y, f.m))}
}

// span is an expected range as wall clocks; start "" is open.
type span struct{ start, end wallT }

type wallT struct {
	c    day
	h, i int
	set  bool
	ref  bool // the reference time itself
}

func at(c day, h int) wallT { return wallT{c: c, h: h, set: true} }
func days(a, b day) span    { return span{at(a, 0), at(b, 0)} }
func oneDay(a day) span     { return days(a, a.plus(1)) }
func hour(c day, h int) span {
	return span{at(c, h), at(c, h+1)}
}
func toRef(a day) span { return span{at(a, 0), wallT{ref: true, set: true}} }

type ctx struct {
	now   time.Time // in zone
	zone  *time.Location
	today day
}

func (x ctx) inst(w wallT) string {
	if !w.set {
		return ""
	}
	if w.ref {
		return x.now.Format(time.RFC3339)
	}
	return time.Date(w.c.y, w.c.m, w.c.d, w.h, w.i, 0, 0, x.zone).Format(time.RFC3339)
}

type entry struct {
	Phrase  string `json:"phrase"`
	Now     string `json:"now"`
	Zone    string `json:"zone"`
	Start   string `json:"start"`
	End     string `json:"end"`
	Example bool   `json:"example,omitempty"`
}

var out = json.NewEncoder(os.Stdout)
var seen = map[string]bool{}

// requested are the phrases the grammar was asked to read.
var requested = map[string]bool{
	"2 weeks ago at 8am": true, "1 month ago at 9:30am": true, "April 9, 2013 at 6:11 a.m.": true,
	"December 13, 2014 at midnight": true, "Tuesday the 19th": true, "20th of next month": true,
	"上两周": true, "上两天": true, "下個月二十號": true, "去年国庆节": true, "春节前": true,
	"last christmas": true, "two weekends ago": true, "3 days before last Friday": true,
}

func (x ctx) emit(phrase string, sp span, issue bool) {
	issue = issue || requested[phrase]
	e := entry{phrase, x.now.Format(time.RFC3339), x.zone.String(), x.inst(sp.start), x.inst(sp.end), issue}
	key := e.Phrase + "|" + e.Now + "|" + e.Zone
	if seen[key] {
		return
	}
	seen[key] = true
	out.SetEscapeHTML(false)
	if err := out.Encode(e); err != nil {
		panic(err)
	}
}

// Published dates of the lunar holidays and Qingming, 2024-2026.
var lunar = map[string]map[int]day{
	"spring":    {2024: {2024, 2, 10}, 2025: {2025, 1, 29}, 2026: {2026, 2, 17}},
	"lantern":   {2024: {2024, 2, 24}, 2025: {2025, 2, 12}, 2026: {2026, 3, 3}},
	"qingming":  {2024: {2024, 4, 4}, 2025: {2025, 4, 4}, 2026: {2026, 4, 5}},
	"dragon":    {2024: {2024, 6, 10}, 2025: {2025, 5, 31}, 2026: {2026, 6, 19}},
	"midautumn": {2024: {2024, 9, 17}, 2025: {2025, 10, 6}, 2026: {2026, 9, 25}},
}

// holiday describes one holiday: its day in year y, and its period.
type holiday struct {
	zh, zhHant, en string
	on             func(y int) (day, bool)
	before, length int // the period: from on+before, length days
}

func fixed(m time.Month, d int) func(int) (day, bool) {
	return func(y int) (day, bool) { return day{y, m, d}, true }
}
func fromTable(k string, off int) func(int) (day, bool) {
	return func(y int) (day, bool) {
		c, ok := lunar[k][y]
		return c.plus(off), ok
	}
}

var holidays = []holiday{
	{"元旦", "元旦", "New Year's Day", fixed(1, 1), 0, 1},
	{"国庆节", "國慶節", "National Day", fixed(10, 1), 0, 7},
	{"五一", "五一", "May Day", fixed(5, 1), 0, 5},
	{"圣诞节", "聖誕節", "Christmas", fixed(12, 25), 0, 1},
	{"平安夜", "平安夜", "Christmas Eve", fixed(12, 24), 0, 1},
	{"春节", "春節", "Chinese New Year", fromTable("spring", 0), -1, 8},
	{"除夕", "除夕", "", fromTable("spring", -1), 0, 1},
	{"元宵节", "元宵節", "Lantern Festival", fromTable("lantern", 0), 0, 1},
	{"清明节", "清明節", "Qingming Festival", fromTable("qingming", 0), 0, 1},
	{"端午节", "端午節", "Dragon Boat Festival", fromTable("dragon", 0), 0, 1},
	{"中秋节", "中秋節", "Mid-Autumn Festival", fromTable("midautumn", 0), 0, 1},
}

// holidaySpan is holiday h in year y with a modifier: "" the day, 期间 the
// period, 前 the week before it, 后 the week after, 前后 both with it.
func (h holiday) span(y int, mod string) (day, day, bool) {
	c, ok := h.on(y)
	if mod == "" {
		return c, c.plus(1), ok
	}
	first := c.plus(h.before)
	switch mod {
	case "前":
		return first.plus(-7), first, ok
	case "后":
		return first.plus(h.length), first.plus(h.length + 7), ok
	case "前后":
		return first.plus(-7), first.plus(h.length + 7), ok
	}
	return first, first.plus(h.length), ok
}

var zhNum = map[int]string{1: "一", 2: "两", 3: "三", 4: "四", 5: "五", 7: "七", 10: "十", 12: "十二", 15: "十五", 20: "二十", 28: "二十八"}
var enNum = map[int]string{1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 7: "seven", 10: "ten"}
var zhWd = []string{"", "一", "二", "三", "四", "五", "六", "日"}
var enWd = []string{"", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

func hant(s string) string {
	return strings.NewReplacer("周", "週", "个", "個", "两", "兩", "号", "號", "这", "這", "后", "後", "过", "過", "点", "點", "礼", "禮", "节", "節", "国", "國", "庆", "慶", "圣", "聖", "诞", "誕", "间", "間").Replace(s)
}

func main() {
	refs := []string{"2026-11-29 15:04", "2026-11-30 09:00", "2026-03-08 15:00", "2026-11-01 15:00", "2026-02-20 12:00"}
	for _, zone := range []string{"Asia/Shanghai", "America/New_York"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			panic(err)
		}
		for _, r := range refs {
			now, err := time.ParseInLocation("2006-01-02 15:04", r, loc)
			if err != nil {
				panic(err)
			}
			y, m, d := now.Date()
			gen(ctx{now: now, zone: loc, today: day{y, m, d}})
		}
	}
}

func gen(x ctx) {
	t := x.today
	monday := t.plus(1 - t.wd())
	bare := func(wd int) day { // the most recent weekday wd, today included
		if wd > t.wd() {
			return monday.plus(wd - 8)
		}
		return monday.plus(wd - 1)
	}

	// Day anchors, in three scripts, with the day they name.
	type anchor struct {
		zh, en string
		c      day
	}
	anchors := []anchor{{"今天", "today", t}, {"昨天", "yesterday", t.plus(-1)}, {"前天", "the day before yesterday", t.plus(-2)}}
	for wd := 1; wd <= 7; wd++ {
		anchors = append(anchors,
			anchor{"周" + zhWd[wd], enWd[wd], bare(wd)},
			anchor{"上周" + zhWd[wd], "last " + enWd[wd], monday.plus(wd - 8)},
			anchor{"这周" + zhWd[wd], "this " + enWd[wd], monday.plus(wd - 1)})
	}

	// Parts of the day and clock times after a day anchor.
	type part struct {
		zh, en string
		h1, h2 int
	}
	parts := []part{{"上午", "morning", 6, 12}, {"下午", "afternoon", 12, 18}, {"晚上", "evening", 18, 24}, {"凌晨", "", 0, 6}}
	type clock struct {
		zh, en string
		h      int
	}
	clocks := []clock{{"下午3点", "at 3pm", 15}, {"上午10点", "at 10:30am", 10}, {"晚上8点", "at 8 p.m.", 20}, {"早上七点", "at 7am", 7}}
	for _, a := range anchors {
		x.emit(a.zh, oneDay(a.c), false)
		x.emit(hant(a.zh), oneDay(a.c), false)
		x.emit(a.en, oneDay(a.c), false)
		for _, p := range parts {
			sp := span{at(a.c, p.h1), at(a.c, p.h2)}
			x.emit(a.zh+p.zh, sp, false)
			x.emit(hant(a.zh)+p.zh, sp, false)
			if p.en != "" {
				x.emit(a.en+" "+p.en, sp, false)
			}
		}
		for _, c := range clocks {
			x.emit(a.zh+c.zh, hour(a.c, c.h), false)
			x.emit(hant(a.zh+c.zh), hour(a.c, c.h), false)
			x.emit(a.en+" "+c.en, hour(a.c, c.h), false)
		}
	}

	// Offsets of any unit from an anchor.
	type unitT struct {
		zh, en string
		shift  func(c day, n int) day
	}
	units := []unitT{
		{"天", "day", func(c day, n int) day { return c.plus(n) }},
		{"周", "week", func(c day, n int) day { return c.plus(7 * n) }},
		{"个月", "month", func(c day, n int) day { return c.plusMonths(n) }},
	}
	offAnchors := []anchor{{"昨天", "yesterday", t.plus(-1)}, {"上周五", "last Friday", monday.plus(-3)}, {"上周一", "last Monday", monday.plus(-7)}, {"周三", "Wednesday", bare(3)}}
	for _, a := range offAnchors {
		for _, u := range units {
			for _, n := range []int{1, 2, 3, 5, 10} {
				before, after := oneDay(u.shift(a.c, -n)), oneDay(u.shift(a.c, n))
				plural := "s"
				if n == 1 {
					plural = ""
				}
				x.emit(fmt.Sprintf("%d %s%s before %s", n, u.en, plural, a.en), before, false)
				x.emit(fmt.Sprintf("%s %s%s after %s", enNum[n], u.en, plural, a.en), after, false)
				x.emit(a.zh+"前"+zhNum[n]+u.zh, before, false)
				x.emit(hant(a.zh+"后"+zhNum[n]+u.zh), after, false)
				x.emit(fmt.Sprintf("%s的%d%s前", a.zh, n, u.zh), before, false)
				x.emit(fmt.Sprintf("%s之后%d%s", a.zh, n, u.zh), after, false)
			}
		}
		x.emit("the day before "+a.en, oneDay(a.c.plus(-1)), false)
		x.emit("the day after "+a.en, oneDay(a.c.plus(1)), false)
		x.emit(a.zh+"的前一天", oneDay(a.c.plus(-1)), false)
		x.emit(a.zh+"的第二天", oneDay(a.c.plus(1)), false)
		x.emit("3 days before "+a.en+" at 3pm", hour(a.c.plus(-3), 15), false)
		x.emit(a.zh+"前三天下午", span{at(a.c.plus(-3), 12), at(a.c.plus(-3), 18)}, false)
	}
	x.emit("3 days before last Friday", oneDay(monday.plus(-6)), true)

	// "n units ago" at a clock time: that day.
	for _, n := range []int{1, 2, 3} {
		for _, u := range []struct {
			en, zh string
			c      day
		}{{"day", "天", t.plus(-n)}, {"week", "周", t.plus(-7 * n)}, {"month", "个月", t.plusMonths(-n)}, {"year", "年", t.plusMonths(-12 * n)}} {
			plural := "s"
			if n == 1 {
				plural = ""
			}
			x.emit(fmt.Sprintf("%d %s%s ago at 8am", n, u.en, plural), hour(u.c, 8), false)
			x.emit(fmt.Sprintf("%s %s%s ago at 9:30pm", enNum[n], u.en, plural), hour(u.c, 21), false)
			x.emit(fmt.Sprintf("%s%s前下午3点", zhNum[n], u.zh), hour(u.c, 15), false)
			x.emit(hant(fmt.Sprintf("%s%s前的晚上", zhNum[n], u.zh)), span{at(u.c, 18), at(u.c, 24)}, false)
		}
	}
	x.emit("2 weeks ago at 8am", hour(t.plus(-14), 8), true)
	x.emit("1 month ago at 9:30am", hour(t.plusMonths(-1), 9), true)

	// Rolling spans up to now, and whole units before this one.
	for _, n := range []int{2, 3, 4, 5, 7, 10} {
		x.emit(fmt.Sprintf("past %d days", n), toRef(t.plus(-n)), false)
		x.emit(fmt.Sprintf("the last %d weeks", n), toRef(t.plus(-7*n)), false)
		x.emit(fmt.Sprintf("past %d months", n), toRef(t.plusMonths(-n)), false)
		x.emit(fmt.Sprintf("过去%s天", zhNum[n]), toRef(t.plus(-n)), false)
		x.emit(hant(fmt.Sprintf("最近%s周", zhNum[n])), toRef(t.plus(-7*n)), false)
		x.emit(fmt.Sprintf("近%d个月", n), toRef(t.plusMonths(-n)), false)
		x.emit(fmt.Sprintf("上%s周", zhNum[n]), days(monday.plus(-7*n), monday), false)
		x.emit(hant(fmt.Sprintf("上%s天", zhNum[n])), days(t.plus(-n), t), false)
		x.emit(fmt.Sprintf("上%s个月", zhNum[n]), days(mk(t.y, t.m-time.Month(n), 1), day{t.y, t.m, 1}), false)
		x.emit(fmt.Sprintf("前%s周", zhNum[n]), days(monday.plus(-7*n), monday), false)
		x.emit(fmt.Sprintf("前%s年", zhNum[n]), days(day{t.y - n, 1, 1}, day{t.y, 1, 1}), false)
		if n != 2 {
			x.emit(fmt.Sprintf("前%s天", zhNum[n]), days(t.plus(-n), t), false)
		}
	}
	x.emit("上两周", days(monday.plus(-14), monday), true)
	x.emit("上两天", days(t.plus(-2), t), true)

	// Start, middle and end of months, weeks and years.
	type period struct {
		zh, en string
		first  day
	}
	months := []period{{"这个月", "this month", day{t.y, t.m, 1}}, {"上个月", "last month", mk(t.y, t.m-1, 1)}, {"下个月", "next month", mk(t.y, t.m+1, 1)}}
	for _, p := range months {
		next := mk(p.first.y, p.first.m+1, 1)
		segs := []struct {
			zh, en string
			a, b   day
		}{{"初", "early", p.first, p.first.plus(10)}, {"中旬", "mid", p.first.plus(10), p.first.plus(20)}, {"底", "late", p.first.plus(20), next}}
		for _, s := range segs {
			x.emit(p.zh+s.zh, days(s.a, s.b), false)
			x.emit(hant(p.zh+s.zh), days(s.a, s.b), false)
			x.emit(s.en+" "+p.en, days(s.a, s.b), false)
		}
		// A day of that month.
		for _, d := range []int{1, 5, 15, 20, 28} {
			c := day{p.first.y, p.first.m, d}
			x.emit(fmt.Sprintf("%s%d号", p.zh, d), oneDay(c), false)
			x.emit(hant(fmt.Sprintf("%s%s号", p.zh, zhNum[d])), oneDay(c), false)
			x.emit(fmt.Sprintf("the %d%s of %s", d, ordSuffix(d), p.en), oneDay(c), false)
			x.emit(fmt.Sprintf("%s%d号晚上", p.zh, d), span{at(c, 18), at(c, 24)}, false)
		}
	}
	next := mk(t.y, t.m+1, 1)
	x.emit("20th of next month", oneDay(day{next.y, next.m, 20}), true)
	x.emit("下個月二十號", oneDay(day{next.y, next.m, 20}), true)
	for _, w := range []struct {
		zh, en string
		n      int
	}{{"这周", "this week", 0}, {"上周", "last week", -1}, {"下周", "next week", 1}} {
		mon := monday.plus(7 * w.n)
		x.emit(w.zh+"初", days(mon, mon.plus(2)), false)
		x.emit(hant(w.zh+"中"), days(mon.plus(2), mon.plus(4)), false)
		x.emit("early "+w.en, days(mon, mon.plus(2)), false)
		x.emit("the end of "+w.en, days(mon.plus(4), mon.plus(7)), false)
	}
	for _, yy := range []struct {
		zh, en string
		y      int
	}{{"今年", "this year", t.y}, {"去年", "last year", t.y - 1}, {"前年", "the year before last", t.y - 2}} {
		x.emit(yy.zh+"年初", days(day{yy.y, 1, 1}, day{yy.y, 5, 1}), false)
		x.emit(yy.zh+"年底", days(day{yy.y, 9, 1}, day{yy.y + 1, 1, 1}), false)
		if yy.y != t.y-2 {
			x.emit("the beginning of "+yy.en, days(day{yy.y, 1, 1}, day{yy.y, 5, 1}), false)
			x.emit("the end of "+yy.en, days(day{yy.y, 9, 1}, day{yy.y + 1, 1, 1}), false)
		}
		x.emit(yy.zh+"前三个月", days(day{yy.y, 1, 1}, day{yy.y, 4, 1}), false)
		x.emit(yy.zh+"后两个月", days(day{yy.y, 11, 1}, day{yy.y + 1, 1, 1}), false)
	}

	// Holidays: with a year, the most recent one, and around them.
	for _, h := range holidays {
		for _, mod := range []string{"", "期间", "前", "后", "前后"} {
			if mod == "期间" && h.length == 1 {
				continue
			}
			for _, yr := range []struct {
				zh string
				y  int
			}{{"去年", t.y - 1}, {"今年", t.y}, {"2025年", 2025}, {"2024年", 2024}} {
				if a, b, ok := h.span(yr.y, mod); ok {
					x.emit(yr.zh+h.zh+mod, days(a, b), false)
					x.emit(hant(yr.zh+h.zhHant+mod), days(a, b), false)
				}
			}
			// The most recent one that has begun.
			for y := t.y + 1; y >= t.y-2; y-- {
				if a, b, ok := h.span(y, mod); ok && !t.less(a) {
					x.emit(h.zh+mod, days(a, b), false)
					x.emit(hant(h.zhHant+mod), days(a, b), false)
					break
				}
			}
		}
		if h.en == "" {
			continue
		}
		for y := t.y; y >= t.y-2; y-- { // the most recent one before today
			if c, ok := h.on(y); ok && c.less(t) {
				x.emit("last "+h.en, oneDay(c), false)
				x.emit("the day after last "+h.en, oneDay(c.plus(1)), false)
				x.emit("last "+h.en+" at 8pm", hour(c, 20), false)
				break
			}
		}
		for _, y := range []int{2024, 2025} {
			if c, ok := h.on(y); ok {
				x.emit(fmt.Sprintf("%s %d", h.en, y), oneDay(c), false)
				x.emit(fmt.Sprintf("2 days before %s %d", h.en, y), oneDay(c.plus(-2)), false)
			}
		}
		if c, ok := h.on(t.y); ok {
			x.emit("this "+h.en, oneDay(c), false)
			x.emit(h.en+" this year", oneDay(c), false)
		}
	}
	x.emit("去年国庆节", oneDay(day{t.y - 1, 10, 1}), true)
	x.emit("last christmas", oneDay(lastBefore(t, 12, 25)), true)
	if sp, ok := recentSpan(t, holidays[5], "前"); ok {
		x.emit("春节前", sp, true)
	}

	// Weekends ago, weekday with a day of the month.
	for n := 1; n <= 4; n++ {
		sat := monday.plus(5 - 7*n)
		x.emit(fmt.Sprintf("%s weekends ago", enNum[n]), days(sat, sat.plus(2)), n == 2)
		x.emit(fmt.Sprintf("%d weekends ago", n), days(sat, sat.plus(2)), false)
		x.emit(hant(fmt.Sprintf("%s个周末前", zhNum[n])), days(sat, sat.plus(2)), false)
	}
	for wd := 1; wd <= 7; wd++ {
		for _, d := range []int{1, 13, 19, 28} {
			c := day{t.y, t.m, 1}
			for k := 0; k < 400; k++ {
				if cand := (day{c.y, c.m, d}); cand.wd() == wd && !t.less(cand) {
					x.emit(fmt.Sprintf("%s the %d%s", enWd[wd], d, ordSuffix(d)), oneDay(cand), wd == 2 && d == 19)
					break
				}
				c = mk(c.y, c.m-1, 1)
			}
		}
	}

	// Ranges of any two parts.
	x.emit("从前天到昨天", days(t.plus(-2), t), false)
	x.emit("from the day before yesterday to today", days(t.plus(-2), t.plus(1)), false)
	x.emit("从上周一到上周五", days(monday.plus(-7), monday.plus(-2)), false)
	x.emit("從上週一到上週五", days(monday.plus(-7), monday.plus(-2)), false)
	x.emit("from last Monday to last Friday", days(monday.plus(-7), monday.plus(-2)), false)
	x.emit("from 3 days before last Friday to last Friday", days(monday.plus(-6), monday.plus(-2)), false)
	x.emit("从上周五前三天到上周五", days(monday.plus(-6), monday.plus(-2)), false)
	x.emit("from last Monday morning to yesterday evening", span{at(monday.plus(-7), 6), at(t.plus(-1), 24)}, false)
	x.emit("从上个月初到上个月中旬", days(mk(t.y, t.m-1, 1), mk(t.y, t.m-1, 21)), false)
	x.emit("从去年元宵节到去年国庆节", days(lunar["lantern"][t.y-1], day{t.y - 1, 10, 2}), false)
	x.emit("从去年春节到去年中秋节", days(lunar["spring"][t.y-1], lunar["midautumn"][t.y-1].plus(1)), false)
	x.emit("from Christmas 2024 to New Year's Day 2025", days(day{2024, 12, 25}, day{2025, 1, 2}), false)
	x.emit("from last Christmas to yesterday", days(lastBefore(t, 12, 25), t), false)

	// The other examples of the request.
	x.emit("April 9, 2013 at 6:11 a.m.", hour(day{2013, 4, 9}, 6), true)
	x.emit("December 13, 2014 at midnight", hour(day{2014, 12, 13}, 0), true)
}

// recentSpan is holiday h with mod in the latest year it has begun by t.
func recentSpan(t day, h holiday, mod string) (span, bool) {
	for y := t.y + 1; y >= t.y-2; y-- {
		if a, b, ok := h.span(y, mod); ok && !t.less(a) {
			return days(a, b), true
		}
	}
	return span{}, false
}

// lastBefore is the latest m-d before t.
func lastBefore(t day, m time.Month, d int) day {
	c := day{t.y, m, d}
	if !c.less(t) {
		c.y--
	}
	return c
}

func ordSuffix(d int) string {
	switch {
	case d%10 == 1 && d != 11:
		return "st"
	case d%10 == 2 && d != 12:
		return "nd"
	case d%10 == 3 && d != 13:
		return "rd"
	}
	return "th"
}
