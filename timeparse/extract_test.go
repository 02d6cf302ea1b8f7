package timeparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtract(t *testing.T) {
	loc := mustLoad(t, "Asia/Shanghai")
	ref := wall(t, sundayRef, loc)
	type result struct {
		R    Range
		Rest string
		OK   bool
	}
	tests := []struct {
		query string
		want  want // zero when ok is false
		text  string
		rest  string
		ok    bool
	}{
		{"上周三下午我们讨论了什么", h("2026-11-18 12:00", "2026-11-18 18:00"), "上周三下午", "我们讨论了什么", true},
		{"what did we discuss last Wednesday afternoon?", h("2026-11-18 12:00", "2026-11-18 18:00"), "last Wednesday afternoon", "what did we discuss?", true},
		{"上周三下午，我们讨论了什么", h("2026-11-18 12:00", "2026-11-18 18:00"), "上周三下午", "我们讨论了什么", true},
		{"我们从4月1日到4月10日做了什么", d("2026-04-01", "2026-04-11"), "从4月1日到4月10日", "我们做了什么", true},
		{"what happened between April 1 and April 10 with Bob", d("2026-04-01", "2026-04-11"), "between April 1 and April 10", "what happened with Bob", true},
		{"what did we decide on Monday, and why?", d("2026-11-23", "2026-11-24"), "on Monday", "what did we decide, and why?", true},
		{"上周的会议记录", wk("2026-11-16", "2026-11-23"), "上周", "会议记录", true},
		{"last week's plan", wk("2026-11-16", "2026-11-23"), "last week", "plan", true},
		{"Tell me about the meeting 3 days ago.", d("2026-11-26", "2026-11-27"), "3 days ago", "Tell me about the meeting.", true},
		{"we sat down in March to plan", mo("2026-03-01", "2026-04-01"), "in March", "we sat down to plan", true},
		{"what did we say before?", f("2025-11-29", sundayRef, Monthly), "before", "what did we say?", true},
		{"在上周三讨论的方案", d("2026-11-18", "2026-11-19"), "在上周三", "讨论的方案", true},
		{"最近在忙什么", f("2026-11-15", sundayRef, Daily), "最近", "在忙什么", true},
		{"X 2026-04-06 Y", d("2026-04-06", "2026-04-07"), "2026-04-06", "X Y", true},
		// No phrase.
		{"what did we discuss?", want{}, "", "what did we discuss?", false},
		{"I may have said something", want{}, "", "I may have said something", false},
		{"what did we say before the launch", want{}, "", "what did we say before the launch", false},
		{"May I ask what we discussed?", want{}, "", "May I ask what we discussed?", false},
		{"一周一次的例会", want{}, "", "一周一次的例会", false},
		{"把文件发过去了吗", want{}, "", "把文件发过去了吗", false},
		{"what did we do in May?", mo("2026-05-01", "2026-06-01"), "in May", "what did we do?", true},
		{"  ", want{}, "", "", false},
		// An impossible date is kept as query text.
		{"2月30日的会议纪要", want{}, "", "2月30日的会议纪要", false},
		{"notes from February 30 ", want{}, "", "notes from February 30", false},
		{"the 2026-13-01 report", want{}, "", "the 2026-13-01 report", false},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r, rest, ok := Extract(tc.query, ref)
			w := result{Rest: tc.rest, OK: tc.ok}
			if tc.ok {
				w.R = tc.want.in(t, loc, tc.text)
			}
			if diff := cmp.Diff(w, result{r, rest, ok}); diff != "" {
				t.Errorf("Extract(%q) mismatch (-want +got):\n%s", tc.query, diff)
			}
		})
	}
}
