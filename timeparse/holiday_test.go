package timeparse

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLunarDates checks the generated table against published dates and
// against what is true of every year: 春节 falls between 21 January and
// 20 February, 端午 between 27 May and 25 June, 中秋 between 7 September
// and 8 October, and Qingming on 4, 5 or 6 April. Whether the table is
// what lunar-go computes is checked in internal/lunargen.
func TestLunarDates(t *testing.T) {
	published := map[int][lunarKinds]civil{
		2000: {{2000, 2, 5}, {2000, 6, 6}, {2000, 9, 12}, {2000, 4, 4}},
		2008: {{2008, 2, 7}, {2008, 6, 8}, {2008, 9, 14}, {2008, 4, 4}},
		2020: {{2020, 1, 25}, {2020, 6, 25}, {2020, 10, 1}, {2020, 4, 4}},
		2023: {{2023, 1, 22}, {2023, 6, 22}, {2023, 9, 29}, {2023, 4, 5}},
		2024: {{2024, 2, 10}, {2024, 6, 10}, {2024, 9, 17}, {2024, 4, 4}},
		2025: {{2025, 1, 29}, {2025, 5, 31}, {2025, 10, 6}, {2025, 4, 4}},
		2026: {{2026, 2, 17}, {2026, 6, 19}, {2026, 9, 25}, {2026, 4, 5}},
	}
	kinds := [lunarKinds]holiday{hSpring, hDragonBoat, hMidAutumn, hQingming}
	for y, want := range published {
		var got [lunarKinds]civil
		for k, h := range kinds {
			got[k], _ = h.on(y)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(civil{})); diff != "" {
			t.Errorf("holidays of %d (-published +table):\n%s", y, diff)
		}
	}
	within := func(c civil, m1 time.Month, d1 int, m2 time.Month, d2 int) bool {
		return !c.before(civil{c.y, m1, d1}) && !civil{c.y, m2, d2}.before(c)
	}
	for y := lunarFirstYear; y <= lunarLastYear; y++ {
		spring, _ := hSpring.on(y)
		dragon, _ := hDragonBoat.on(y)
		moon, _ := hMidAutumn.on(y)
		qm, _ := hQingming.on(y)
		if !within(spring, 1, 21, 2, 20) || !within(dragon, 5, 27, 6, 25) || !within(moon, 9, 7, 10, 8) || !within(qm, 4, 4, 4, 6) {
			t.Errorf("%d: 春节 %v, 端午 %v, 中秋 %v, 清明 %v out of their seasons", y, spring, dragon, moon, qm)
		}
		if lantern, _ := hLantern.on(y); lantern != spring.add(14) {
			t.Errorf("%d: 元宵 %v is not 14 days after 春节 %v", y, lantern, spring)
		}
	}
	if _, ok := hSpring.on(lunarLastYear + 1); ok {
		t.Errorf("春节 of %d resolved outside the table", lunarLastYear+1)
	}
}

// TestHolidayErrors checks that a lunar holiday outside the table is an
// invalid date, not a guess.
func TestHolidayErrors(t *testing.T) {
	ref := wall(t, sundayRef, mustLoad(t, "Asia/Shanghai"))
	_, err := Parse("2060年春节", ref)
	if diff := cmp.Diff(`timeparse: invalid date "2060年春节": the lunar calendar table covers 1990 to 2050`, errString(err)); diff != "" {
		t.Errorf("Parse(2060年春节) error (-want +got):\n%s", diff)
	}
	r, err := Parse("2060年元旦", ref)
	if err != nil || r.Start.Year() != 2060 {
		t.Errorf("Parse(2060年元旦) = %v, %v; a fixed-date holiday needs no table", r, err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestExtractCompositions covers the new shapes inside questions, and
// the words that must stay text.
func TestExtractCompositions(t *testing.T) {
	loc := mustLoad(t, "Asia/Shanghai")
	ref := wall(t, sundayRef, loc)
	type result struct {
		R    Range
		Rest string
		OK   bool
	}
	tests := []struct {
		query string
		want  want
		text  string
		rest  string
		ok    bool
	}{
		{"春节前我们讨论了什么", f("2026-02-09", "2026-02-16", Daily), "春节前", "我们讨论了什么", true},
		{"去年國慶節去了哪裡", d("2025-10-01", "2025-10-02"), "去年國慶節", "去了哪裡", true},
		{"what did we plan 3 days before last Friday?", d("2026-11-17", "2026-11-18"), "3 days before last Friday", "what did we plan?", true},
		{"what did I eat last christmas", d("2025-12-25", "2025-12-26"), "last christmas", "what did I eat", true},
		{"上两周的会议纪要", wk("2026-11-09", "2026-11-23"), "上两周", "会议纪要", true},
		{"下個月二十號有什麼安排", d("2026-12-20", "2026-12-21"), "下個月二十號", "有什麼安排", true},
		{"who called 2 weeks ago at 8am?", h("2026-11-15 08:00", "2026-11-15 09:00"), "2 weeks ago at 8am", "who called?", true},
		{"what happened since Christmas 2025", d("2025-12-25", sundayRef), "since Christmas 2025", "what happened", true},
		// A bare English holiday is mostly a habit: text.
		{"Which movie does Tim enjoy watching during Thanksgiving?", want{}, "", "Which movie does Tim enjoy watching during Thanksgiving?", false},
		{"What do they do on Christmas morning?", want{}, "", "What do they do on Christmas morning?", false},
		// A date written with its year is read alone, as before.
		{"the puppy she got two weeks before August 11, 2023", d("2023-08-11", "2023-08-12"), "August 11, 2023", "the puppy she got two weeks before", true},
		{"今年3月前的计划", mo("2026-03-01", "2026-04-01"), "今年3月", "前的计划", true},
		{"前两天说的事", f("2026-11-22", "2026-11-28", Daily), "前两天", "说的事", true},
		{"五一班的同学", want{}, "", "五一班的同学", false},
		{"住在五一路", want{}, "", "住在五一路", false},
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
