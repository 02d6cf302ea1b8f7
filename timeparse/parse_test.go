package timeparse

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The two reference times of the phrase table: a Sunday afternoon and the
// Monday morning after it, which is the start of a new ISO week.
const (
	sundayRef = "2026-11-29 15:04"
	mondayRef = "2026-11-30 09:00"
)

var zones = []string{"Asia/Shanghai", "America/New_York"}

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return loc
}

// wall parses a local wall-clock time, "2006-01-02" or "2006-01-02 15:04",
// in loc.
func wall(t testing.TB, s string, loc *time.Location) time.Time {
	t.Helper()
	if s == "" {
		return time.Time{} // an open side
	}
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02"} {
		if v, err := time.ParseInLocation(layout, s, loc); err == nil {
			return v
		}
	}
	t.Fatalf("bad time %q in test table", s)
	return time.Time{}
}

// want is an expected range written as local wall-clock times.
type want struct {
	start, end string
	g          Granularity
	fuzzy      bool
}

func (w want) in(t testing.TB, loc *time.Location, text string) Range {
	return Range{Start: wall(t, w.start, loc), End: wall(t, w.end, loc), Granularity: w.g, Fuzzy: w.fuzzy, Text: text}
}

// d, h, wk, mo, y and f build wants of each granularity; f is fuzzy.
func d(start, end string) want                { return want{start, end, Daily, false} }
func h(start, end string) want                { return want{start, end, Hourly, false} }
func wk(start, end string) want               { return want{start, end, Weekly, false} }
func mo(start, end string) want               { return want{start, end, Monthly, false} }
func y(start, end string) want                { return want{start, end, Yearly, false} }
func f(start, end string, g Granularity) want { return want{start, end, g, true} }

// phraseTable lists each phrase with its range at sundayRef and at
// mondayRef. The same wall-clock ranges are expected in every zone.
var phraseTable = []struct {
	text     string
	sun, mon want
}{
	// Chinese.
	{"今天", d("2026-11-29", "2026-11-30"), d("2026-11-30", "2026-12-01")},
	{"昨天", d("2026-11-28", "2026-11-29"), d("2026-11-29", "2026-11-30")},
	{"前天", d("2026-11-27", "2026-11-28"), d("2026-11-28", "2026-11-29")},
	{"大前天", d("2026-11-26", "2026-11-27"), d("2026-11-27", "2026-11-28")},
	{"明天", d("2026-11-30", "2026-12-01"), d("2026-12-01", "2026-12-02")},
	{"后天", d("2026-12-01", "2026-12-02"), d("2026-12-02", "2026-12-03")},
	{"本周", wk("2026-11-23", "2026-11-30"), wk("2026-11-30", "2026-12-07")},
	{"这个星期", wk("2026-11-23", "2026-11-30"), wk("2026-11-30", "2026-12-07")},
	{"上周", wk("2026-11-16", "2026-11-23"), wk("2026-11-23", "2026-11-30")},
	{"上个星期", wk("2026-11-16", "2026-11-23"), wk("2026-11-23", "2026-11-30")},
	{"上礼拜", wk("2026-11-16", "2026-11-23"), wk("2026-11-23", "2026-11-30")},
	{"上上周", wk("2026-11-09", "2026-11-16"), wk("2026-11-16", "2026-11-23")},
	{"下周", wk("2026-11-30", "2026-12-07"), wk("2026-12-07", "2026-12-14")},
	{"周三", d("2026-11-25", "2026-11-26"), d("2026-11-25", "2026-11-26")},
	{"上周三", d("2026-11-18", "2026-11-19"), d("2026-11-25", "2026-11-26")},
	{"上周三下午", h("2026-11-18 12:00", "2026-11-18 18:00"), h("2026-11-25 12:00", "2026-11-25 18:00")},
	{"星期五晚上", h("2026-11-27 18:00", "2026-11-28 00:00"), h("2026-11-27 18:00", "2026-11-28 00:00")},
	{"礼拜天", d("2026-11-29", "2026-11-30"), d("2026-11-29", "2026-11-30")},
	{"周一", d("2026-11-23", "2026-11-24"), d("2026-11-30", "2026-12-01")},
	{"这周五", d("2026-11-27", "2026-11-28"), d("2026-12-04", "2026-12-05")},
	{"三天前", d("2026-11-26", "2026-11-27"), d("2026-11-27", "2026-11-28")},
	{"两周前", wk("2026-11-09", "2026-11-16"), wk("2026-11-16", "2026-11-23")},
	{"3个月前", mo("2026-08-01", "2026-09-01"), mo("2026-08-01", "2026-09-01")},
	{"一个月前", mo("2026-10-01", "2026-11-01"), mo("2026-10-01", "2026-11-01")},
	{"过去三天", d("2026-11-26", sundayRef), d("2026-11-27", mondayRef)},
	{"最近三天", d("2026-11-26", sundayRef), d("2026-11-27", mondayRef)},
	{"本月", mo("2026-11-01", "2026-12-01"), mo("2026-11-01", "2026-12-01")},
	{"上个月", mo("2026-10-01", "2026-11-01"), mo("2026-10-01", "2026-11-01")},
	{"月初", d("2026-11-01", "2026-11-11"), d("2026-11-01", "2026-11-11")},
	{"月底", d("2026-11-21", "2026-12-01"), d("2026-11-21", "2026-12-01")},
	{"上个月底", d("2026-10-21", "2026-11-01"), d("2026-10-21", "2026-11-01")},
	{"上个月初", d("2026-10-01", "2026-10-11"), d("2026-10-01", "2026-10-11")},
	{"3月初", d("2026-03-01", "2026-03-11"), d("2026-03-01", "2026-03-11")},
	{"今年", y("2026-01-01", "2027-01-01"), y("2026-01-01", "2027-01-01")},
	{"去年", y("2025-01-01", "2026-01-01"), y("2025-01-01", "2026-01-01")},
	{"前年", y("2024-01-01", "2025-01-01"), y("2024-01-01", "2025-01-01")},
	{"去年底", mo("2025-09-01", "2026-01-01"), mo("2025-09-01", "2026-01-01")},
	{"周末", d("2026-11-28", "2026-11-30"), d("2026-11-28", "2026-11-30")},
	{"上周末", d("2026-11-21", "2026-11-23"), d("2026-11-28", "2026-11-30")},
	{"3月", mo("2026-03-01", "2026-04-01"), mo("2026-03-01", "2026-04-01")},
	{"十二月", mo("2025-12-01", "2026-01-01"), mo("2025-12-01", "2026-01-01")},
	{"2025年3月", mo("2025-03-01", "2025-04-01"), mo("2025-03-01", "2025-04-01")},
	{"4月6日", d("2026-04-06", "2026-04-07"), d("2026-04-06", "2026-04-07")},
	{"4月6号", d("2026-04-06", "2026-04-07"), d("2026-04-06", "2026-04-07")},
	{"2026年4月6日", d("2026-04-06", "2026-04-07"), d("2026-04-06", "2026-04-07")},
	{"2025年", y("2025-01-01", "2026-01-01"), y("2025-01-01", "2026-01-01")},
	{"从4月1日到4月10日", d("2026-04-01", "2026-04-11"), d("2026-04-01", "2026-04-11")},
	{"4月1日至10日", d("2026-04-01", "2026-04-11"), d("2026-04-01", "2026-04-11")},
	{"11月到2月", mo("2025-11-01", "2026-03-01"), mo("2025-11-01", "2026-03-01")},
	{"最近", f("2026-11-15", sundayRef, Daily), f("2026-11-16", mondayRef, Daily)},
	{"最近几天", f("2026-11-22", sundayRef, Daily), f("2026-11-23", mondayRef, Daily)},
	{"几天前", f("2026-11-22", "2026-11-28", Daily), f("2026-11-23", "2026-11-29", Daily)},
	{"前段时间", f("2026-08-29", "2026-11-22", Weekly), f("2026-08-30", "2026-11-23", Weekly)},
	{"前阵子", f("2026-08-29", "2026-11-22", Weekly), f("2026-08-30", "2026-11-23", Weekly)},
	{"之前", f("2025-11-29", sundayRef, Monthly), f("2025-11-30", mondayRef, Monthly)},
	{"以前", f("2025-11-29", sundayRef, Monthly), f("2025-11-30", mondayRef, Monthly)},
	{"早些时候", f("2025-11-29", sundayRef, Monthly), f("2025-11-30", mondayRef, Monthly)},
	{"很久以前", f("2016-11-29", "2026-08-29", Yearly), f("2016-11-30", "2026-08-30", Yearly)},
	{"三小时前", h("2026-11-29 12:00", "2026-11-29 13:00"), h("2026-11-30 06:00", "2026-11-30 07:00")},
	{"昨天晚上", h("2026-11-28 18:00", "2026-11-29 00:00"), h("2026-11-29 18:00", "2026-11-30 00:00")},
	{"今天上午", h("2026-11-29 06:00", "2026-11-29 12:00"), h("2026-11-30 06:00", "2026-11-30 12:00")},
	{"上周三下午3点", h("2026-11-18 15:00", "2026-11-18 16:00"), h("2026-11-25 15:00", "2026-11-25 16:00")},

	// English.
	{"today", d("2026-11-29", "2026-11-30"), d("2026-11-30", "2026-12-01")},
	{"yesterday", d("2026-11-28", "2026-11-29"), d("2026-11-29", "2026-11-30")},
	{"the day before yesterday", d("2026-11-27", "2026-11-28"), d("2026-11-28", "2026-11-29")},
	{"tomorrow", d("2026-11-30", "2026-12-01"), d("2026-12-01", "2026-12-02")},
	{"the day after tomorrow", d("2026-12-01", "2026-12-02"), d("2026-12-02", "2026-12-03")},
	{"this week", wk("2026-11-23", "2026-11-30"), wk("2026-11-30", "2026-12-07")},
	{"last week", wk("2026-11-16", "2026-11-23"), wk("2026-11-23", "2026-11-30")},
	{"the week before last", wk("2026-11-09", "2026-11-16"), wk("2026-11-16", "2026-11-23")},
	{"next week", wk("2026-11-30", "2026-12-07"), wk("2026-12-07", "2026-12-14")},
	{"Wednesday", d("2026-11-25", "2026-11-26"), d("2026-11-25", "2026-11-26")},
	{"last Wednesday", d("2026-11-18", "2026-11-19"), d("2026-11-25", "2026-11-26")},
	{"last Wednesday afternoon", h("2026-11-18 12:00", "2026-11-18 18:00"), h("2026-11-25 12:00", "2026-11-25 18:00")},
	{"on Monday", d("2026-11-23", "2026-11-24"), d("2026-11-30", "2026-12-01")},
	{"this Friday morning", h("2026-11-27 06:00", "2026-11-27 12:00"), h("2026-12-04 06:00", "2026-12-04 12:00")},
	{"Friday evening", h("2026-11-27 18:00", "2026-11-28 00:00"), h("2026-11-27 18:00", "2026-11-28 00:00")},
	{"Sunday", d("2026-11-29", "2026-11-30"), d("2026-11-29", "2026-11-30")},
	{"a week ago", wk("2026-11-16", "2026-11-23"), wk("2026-11-23", "2026-11-30")},
	{"3 weeks ago", wk("2026-11-02", "2026-11-09"), wk("2026-11-09", "2026-11-16")},
	{"two days ago", d("2026-11-27", "2026-11-28"), d("2026-11-28", "2026-11-29")},
	{"a month ago", mo("2026-10-01", "2026-11-01"), mo("2026-10-01", "2026-11-01")},
	{"3 months ago", mo("2026-08-01", "2026-09-01"), mo("2026-08-01", "2026-09-01")},
	{"last 3 days", d("2026-11-26", sundayRef), d("2026-11-27", mondayRef)},
	{"the past 2 weeks", wk("2026-11-15", sundayRef), wk("2026-11-16", mondayRef)},
	{"the past week", wk("2026-11-22", sundayRef), wk("2026-11-23", mondayRef)},
	{"this month", mo("2026-11-01", "2026-12-01"), mo("2026-11-01", "2026-12-01")},
	{"last month", mo("2026-10-01", "2026-11-01"), mo("2026-10-01", "2026-11-01")},
	{"early March", d("2026-03-01", "2026-03-11"), d("2026-03-01", "2026-03-11")},
	{"end of last month", d("2026-10-21", "2026-11-01"), d("2026-10-21", "2026-11-01")},
	{"the end of the month", d("2026-11-21", "2026-12-01"), d("2026-11-21", "2026-12-01")},
	{"this year", y("2026-01-01", "2027-01-01"), y("2026-01-01", "2027-01-01")},
	{"last year", y("2025-01-01", "2026-01-01"), y("2025-01-01", "2026-01-01")},
	{"the year before last", y("2024-01-01", "2025-01-01"), y("2024-01-01", "2025-01-01")},
	{"the end of last year", mo("2025-09-01", "2026-01-01"), mo("2025-09-01", "2026-01-01")},
	{"the weekend", d("2026-11-28", "2026-11-30"), d("2026-11-28", "2026-11-30")},
	{"last weekend", d("2026-11-21", "2026-11-23"), d("2026-11-28", "2026-11-30")},
	{"this weekend", d("2026-11-28", "2026-11-30"), d("2026-12-05", "2026-12-07")},
	{"March", mo("2026-03-01", "2026-04-01"), mo("2026-03-01", "2026-04-01")},
	{"in March", mo("2026-03-01", "2026-04-01"), mo("2026-03-01", "2026-04-01")},
	{"December", mo("2025-12-01", "2026-01-01"), mo("2025-12-01", "2026-01-01")},
	{"March 2025", mo("2025-03-01", "2025-04-01"), mo("2025-03-01", "2025-04-01")},
	{"April 6", d("2026-04-06", "2026-04-07"), d("2026-04-06", "2026-04-07")},
	{"April 6, 2026", d("2026-04-06", "2026-04-07"), d("2026-04-06", "2026-04-07")},
	{"6 April 2026", d("2026-04-06", "2026-04-07"), d("2026-04-06", "2026-04-07")},
	{"Apr 6th", d("2026-04-06", "2026-04-07"), d("2026-04-06", "2026-04-07")},
	{"in 2025", y("2025-01-01", "2026-01-01"), y("2025-01-01", "2026-01-01")},
	{"between April 1 and April 10", d("2026-04-01", "2026-04-11"), d("2026-04-01", "2026-04-11")},
	{"from March to May", mo("2026-03-01", "2026-06-01"), mo("2026-03-01", "2026-06-01")},
	{"from April 1 to April 10", d("2026-04-01", "2026-04-11"), d("2026-04-01", "2026-04-11")},
	{"Friday to Monday", d("2026-11-20", "2026-11-24"), d("2026-11-27", "2026-12-01")},
	{"since Monday", d("2026-11-23", sundayRef), d("2026-11-30", mondayRef)},
	{"recently", f("2026-11-15", sundayRef, Daily), f("2026-11-16", mondayRef, Daily)},
	{"lately", f("2026-11-15", sundayRef, Daily), f("2026-11-16", mondayRef, Daily)},
	{"a few days ago", f("2026-11-22", "2026-11-28", Daily), f("2026-11-23", "2026-11-29", Daily)},
	{"a while ago", f("2026-08-29", "2026-11-22", Weekly), f("2026-08-30", "2026-11-23", Weekly)},
	{"some time ago", f("2026-08-29", "2026-11-22", Weekly), f("2026-08-30", "2026-11-23", Weekly)},
	{"a long time ago", f("2016-11-29", "2026-08-29", Yearly), f("2016-11-30", "2026-08-30", Yearly)},
	{"earlier", f("2025-11-29", sundayRef, Monthly), f("2025-11-30", mondayRef, Monthly)},
	{"before", f("2025-11-29", sundayRef, Monthly), f("2025-11-30", mondayRef, Monthly)},
	{"3 hours ago", h("2026-11-29 12:00", "2026-11-29 13:00"), h("2026-11-30 06:00", "2026-11-30 07:00")},
	{"yesterday afternoon", h("2026-11-28 12:00", "2026-11-28 18:00"), h("2026-11-29 12:00", "2026-11-29 18:00")},
	{"last night", h("2026-11-28 18:00", "2026-11-29 00:00"), h("2026-11-29 18:00", "2026-11-30 00:00")},
	{"yesterday at 3pm", h("2026-11-28 15:00", "2026-11-28 16:00"), h("2026-11-29 15:00", "2026-11-29 16:00")},

	// Numeric, the same in both languages.
	{"2026-04-06", d("2026-04-06", "2026-04-07"), d("2026-04-06", "2026-04-07")},
	{"2026/4/6", d("2026-04-06", "2026-04-07"), d("2026-04-06", "2026-04-07")},
	{"2026-W47", wk("2026-11-16", "2026-11-23"), wk("2026-11-16", "2026-11-23")},
}

func TestParsePhrases(t *testing.T) {
	for _, zone := range zones {
		loc := mustLoad(t, zone)
		for _, ref := range []string{sundayRef, mondayRef} {
			refTime := wall(t, ref, loc)
			for _, tc := range phraseTable {
				t.Run(fmt.Sprintf("%s/%s/%s", zone, ref[:10], tc.text), func(t *testing.T) {
					w := tc.sun
					if ref == mondayRef {
						w = tc.mon
					}
					got, err := Parse(tc.text, refTime)
					if err != nil {
						t.Fatalf("Parse(%q) at %s: %v", tc.text, refTime, err)
					}
					if diff := cmp.Diff(w.in(t, loc, tc.text), got); diff != "" {
						t.Errorf("Parse(%q) at %s mismatch (-want +got):\n%s", tc.text, refTime, diff)
					}
				})
			}
		}
	}
}

// TestParseDST checks ranges on and across the daylight-saving changes of
// America/New_York in 2026: clocks went forward on 8 March and back on
// 1 November. The expected instants carry their UTC offsets.
func TestParseDST(t *testing.T) {
	ny := mustLoad(t, "America/New_York")
	rfc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatalf("bad time %q in test table: %v", s, err)
		}
		return v
	}
	tests := []struct {
		ref, text  string
		start, end string
		g          Granularity
		length     time.Duration
	}{
		// Monday after the fall-back Sunday: yesterday is 25 hours long.
		{"2026-11-02T10:00:00-05:00", "yesterday", "2026-11-01T00:00:00-04:00", "2026-11-02T00:00:00-05:00", Daily, 25 * time.Hour},
		{"2026-11-02T10:00:00-05:00", "昨天", "2026-11-01T00:00:00-04:00", "2026-11-02T00:00:00-05:00", Daily, 25 * time.Hour},
		{"2026-11-02T10:00:00-05:00", "昨天凌晨", "2026-11-01T00:00:00-04:00", "2026-11-01T06:00:00-05:00", Hourly, 7 * time.Hour},
		{"2026-11-02T10:00:00-05:00", "the day before yesterday", "2026-10-31T00:00:00-04:00", "2026-11-01T00:00:00-04:00", Daily, 24 * time.Hour},
		// The week that holds the fall-back Sunday is 169 hours long.
		{"2026-11-04T10:00:00-05:00", "last week", "2026-10-26T00:00:00-04:00", "2026-11-02T00:00:00-05:00", Weekly, 169 * time.Hour},
		{"2026-11-04T10:00:00-05:00", "上周", "2026-10-26T00:00:00-04:00", "2026-11-02T00:00:00-05:00", Weekly, 169 * time.Hour},
		{"2026-11-04T10:00:00-05:00", "上周日", "2026-11-01T00:00:00-04:00", "2026-11-02T00:00:00-05:00", Daily, 25 * time.Hour},
		// On the fall-back day 01:00-02:00 happens twice.
		{"2026-11-01T03:30:00-05:00", "3 hours ago", "2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00", Hourly, time.Hour},
		{"2026-11-01T03:30:00-05:00", "两小时前", "2026-11-01T01:00:00-05:00", "2026-11-01T02:00:00-05:00", Hourly, time.Hour},
		{"2026-11-01T03:30:00-05:00", "today", "2026-11-01T00:00:00-04:00", "2026-11-02T00:00:00-05:00", Daily, 25 * time.Hour},
		// Monday after the spring-forward Sunday: yesterday is 23 hours long.
		{"2026-03-09T10:00:00-04:00", "yesterday", "2026-03-08T00:00:00-05:00", "2026-03-09T00:00:00-04:00", Daily, 23 * time.Hour},
		{"2026-03-09T10:00:00-04:00", "昨天", "2026-03-08T00:00:00-05:00", "2026-03-09T00:00:00-04:00", Daily, 23 * time.Hour},
		{"2026-03-09T10:00:00-04:00", "yesterday evening", "2026-03-08T18:00:00-04:00", "2026-03-09T00:00:00-04:00", Hourly, 6 * time.Hour},
		{"2026-03-09T10:00:00-04:00", "last week", "2026-03-02T00:00:00-05:00", "2026-03-09T00:00:00-04:00", Weekly, 167 * time.Hour},
		{"2026-03-09T10:00:00-04:00", "this week", "2026-03-09T00:00:00-04:00", "2026-03-16T00:00:00-04:00", Weekly, 168 * time.Hour},
		{"2026-03-09T10:00:00-04:00", "last 2 days", "2026-03-07T00:00:00-05:00", "2026-03-09T10:00:00-04:00", Daily, 57 * time.Hour},
		{"2026-03-20T10:00:00-04:00", "3月初", "2026-03-01T00:00:00-05:00", "2026-03-11T00:00:00-04:00", Daily, 239 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.ref+"/"+tc.text, func(t *testing.T) {
			got, err := Parse(tc.text, rfc(tc.ref).In(ny))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.text, err)
			}
			w := Range{Start: rfc(tc.start), End: rfc(tc.end), Granularity: tc.g, Text: tc.text}
			if diff := cmp.Diff(w, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.text, diff)
			}
			if l := got.End.Sub(got.Start); l != tc.length {
				t.Errorf("Parse(%q) is %v long, want %v", tc.text, l, tc.length)
			}
			if got.Start.Location() != ny {
				t.Errorf("Parse(%q) is in %v, want %v", tc.text, got.Start.Location(), ny)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	ref := wall(t, sundayRef, mustLoad(t, "Asia/Shanghai"))
	tests := []struct {
		text string
		is   error
		msg  string
	}{
		{"xyz", ErrNoTime, `timeparse: no time phrase in "xyz"`},
		{"上周三下午我们讨论了什么", ErrNoTime, `timeparse: no time phrase in "上周三下午我们讨论了什么"`},
		{"", ErrNoTime, `timeparse: no time phrase in ""`},
		{"下午", ErrNoTime, `timeparse: no time phrase in "下午"`},
		{"may", ErrNoTime, `timeparse: no time phrase in "may"`},
		{"2月30日", ErrInvalidDate, `timeparse: invalid date "2月30日": February has 28 days in 2026`},
		{"February 30", ErrInvalidDate, `timeparse: invalid date "February 30": February has 28 days in 2026`},
		{"2026-13-01", ErrInvalidDate, `timeparse: invalid date "2026-13-01": there is no month 13`},
		{"2026-02-30", ErrInvalidDate, `timeparse: invalid date "2026-02-30": February has 28 days in 2026`},
		{"2025年2月29日", ErrInvalidDate, `timeparse: invalid date "2025年2月29日": February has 28 days in 2025`},
		{"4月31日", ErrInvalidDate, `timeparse: invalid date "4月31日": April has 30 days in 2026`},
		{"13月", ErrInvalidDate, `timeparse: invalid date "13月": there is no month 13`},
		{"2025-W53", ErrInvalidDate, `timeparse: invalid date "2025-W53": 2025 has weeks 01 to 52`},
		{"4月10日到4月1日", ErrInvalidDate, `timeparse: invalid date "4月10日到4月1日": the range ends before it starts`},
		{"since tomorrow", ErrInvalidDate, `timeparse: invalid date "since tomorrow": it starts after the reference time 2026-11-29T15:04:00+08:00`},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			_, err := Parse(tc.text, ref)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", tc.text)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("Parse(%q) error %v does not wrap %v", tc.text, err, tc.is)
			}
			if diff := cmp.Diff(tc.msg, err.Error()); diff != "" {
				t.Errorf("Parse(%q) message mismatch (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

// TestParseTrims checks that spaces and punctuation around a phrase are
// ignored and that Text is the phrase itself.
func TestParseTrims(t *testing.T) {
	loc := mustLoad(t, "Asia/Shanghai")
	ref := wall(t, sundayRef, loc)
	for _, text := range []string{"  上周三下午。", "「上周三下午」", "上周三下午?"} {
		got, err := Parse(text, ref)
		if err != nil {
			t.Fatalf("Parse(%q): %v", text, err)
		}
		w := h("2026-11-18 12:00", "2026-11-18 18:00").in(t, loc, "上周三下午")
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("Parse(%q) mismatch (-want +got):\n%s", text, diff)
		}
	}
}

func TestGranularityString(t *testing.T) {
	got := []string{Hourly.String(), Daily.String(), Weekly.String(), Monthly.String(), Yearly.String(), Granularity(0).String()}
	w := []string{"hour", "day", "week", "month", "year", "Granularity(0)"}
	if diff := cmp.Diff(w, got); diff != "" {
		t.Errorf("Granularity.String mismatch (-want +got):\n%s", diff)
	}
}
