package timeparse

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestExtractInQuestions covers time phrases inside questions, and the words
// that the false-positive audit over the LoCoMo and BEAM questions showed
// must stay text.
func TestExtractInQuestions(t *testing.T) {
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
		{"上週五我們討論了什麼", d("2026-11-20", "2026-11-21"), "上週五", "我們討論了什麼", true},
		{"這個週末有什麼安排", d("2026-11-28", "2026-11-30"), "這個週末", "有什麼安排", true},
		{"我三天前说过什么", d("2026-11-26", "2026-11-27"), "三天前", "我说过什么", true},
		{"what did we do on the 21st?", d("2026-11-21", "2026-11-22"), "on the 21st", "what did we do?", true},
		{"we talked on wed 5 march", d("2026-03-05", "2026-03-06"), "on wed 5 march", "we talked", true},
		{"from 3 to 7 June we were away", d("2026-06-03", "2026-06-08"), "from 3 to 7 June", "we were away", true},
		{"周二到周四的会议", d("2026-11-24", "2026-11-27"), "周二到周四", "会议", true},
		{"Was the first half of September 2022 a good month?", d("2022-09-01", "2022-09-16"), "the first half of September 2022", "Was a good month?", true},
		{"What event did John volunteer at last weekend?", d("2026-11-21", "2026-11-23"), "last weekend", "What event did John volunteer at?", true},
		{"what did we say at 3pm", h("2026-11-29 15:00", "2026-11-29 16:00"), "at 3pm", "what did we say", true},
		{"3月中国发布了什么", mo("2026-03-01", "2026-04-01"), "3月", "中国发布了什么", true},
		{"Which library did we pick before? Have we tested it?", f("2025-11-29", sundayRef, Monthly), "before", "Which library did we pick? Have we tested it?", true},
		// Open ranges: before, until, after a phrase, and 之前, 以后, 截至.
		{"what did we decide before April 9?", d("", "2026-04-09"), "before April 9", "what did we decide?", true},
		{"notes until 9 April", d("", "2026-04-10"), "until 9 April", "notes", true},
		{"what happened after April 9", d("2026-04-10", "2026-11-29 15:04"), "after April 9", "what happened", true},
		{"4月9日之前我们说了什么", d("", "2026-04-09"), "4月9日之前", "我们说了什么", true},
		{"上周以后的会议", wk("2026-11-23", "2026-11-29 15:04"), "上周以后", "会议", true},
		{"截至上周五的进度", d("", "2026-11-21"), "截至上周五", "进度", true},
		{"from April 1 until April 9", d("2026-04-01", "2026-04-10"), "from April 1 until April 9", "", true},
		// After a time word, "before" counts from the date: the date alone.
		{"Where was Tim in the week before 16 November 2023?", d("2023-11-16", "2023-11-17"), "16 November 2023", "Where was Tim in the week before?", true},
		{"the puppy she got two weeks before August 11, 2023", d("2023-08-11", "2023-08-12"), "August 11, 2023", "the puppy she got two weeks before", true},
		{"after tomorrow", want{}, "", "after tomorrow", false},
		{"before the launch", want{}, "", "before the launch", false},
		// Ordinary words stay text.
		{"May I ask what we discussed?", want{}, "", "May I ask what we discussed?", false},
		{"what was the second option?", want{}, "", "what was the second option?", false},
		{"we met in the 21st century", want{}, "", "we met in the 21st century", false},
		{"what happened on the 3rd floor", want{}, "", "what happened on the 3rd floor", false},
		{"wed like to know", want{}, "", "wed like to know", false},
		{"I sat down on sat", want{}, "", "I sat down on sat", false},
		{"I think we should march the 3rd battalion", want{}, "", "I think we should march the 3rd battalion", false},
		{"How long ago was Caroline's 18th birthday?", want{}, "", "How long ago was Caroline's 18th birthday?", false},
		{"Have I ever practiced conditional probability problems before?", want{}, "", "Have I ever practiced conditional probability problems before?", false},
		// A yes/no question's "before" means at any time, as "ever" does.
		{"Have I used Bootstrap in my project before?", want{}, "", "Have I used Bootstrap in my project before?", false},
		{"Did we talk about the budget before?", want{}, "", "Did we talk about the budget before?", false},
		{"OK. Has Alice mentioned Kyoto before?", want{}, "", "OK. Has Alice mentioned Kyoto before?", false},
		{"the class attended on Tuesdays at 6 PM", want{}, "", "the class attended on Tuesdays at 6 PM", false},
		{"meet the week after the launch", want{}, "", "meet the week after the launch", false},
		{"我上年纪了", want{}, "", "我上年纪了", false},
		{"这年头谁还写信", want{}, "", "这年头谁还写信", false},
		{"一周中最忙的一天", want{}, "", "一周中最忙的一天", false},
		{"2号线怎么走", want{}, "", "2号线怎么走", false},
		{"5 of the team", want{}, "", "5 of the team", false},
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

// TestSimplify checks that the traditional-to-simplified table keeps byte
// offsets, which Extract relies on to cut the phrase from the original.
func TestSimplify(t *testing.T) {
	for tr, si := range tradToSimp {
		if utf8.RuneLen(tr) != utf8.RuneLen(si) {
			t.Errorf("%q → %q changes the length", tr, si)
		}
	}
	if diff := cmp.Diff("上周五两个礼拜前 last week", simplify("上週五兩個禮拜前 last week")); diff != "" {
		t.Errorf("simplify mismatch (-want +got):\n%s", diff)
	}
}

func TestParseDateErrors(t *testing.T) {
	ref := wall(t, sundayRef, mustLoad(t, "Asia/Shanghai"))
	tests := []struct {
		text string
		msg  string
	}{
		{"from 7 to 3 June", `timeparse: invalid date "from 7 to 3 June": the range ends before it starts`},
		{"6号到2号", `timeparse: invalid date "6号到2号": the range ends before it starts`},
		{"2025年2月29日", `timeparse: invalid date "2025年2月29日": February has 28 days in 2025`},
		{"31 of June", `timeparse: invalid date "31 of June": June has 30 days in 2026`},
		{"the 32nd", `timeparse: invalid date "the 32nd": there is no day 32`},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			_, err := Parse(tc.text, ref)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", tc.text)
			}
			if diff := cmp.Diff(tc.msg, err.Error()); diff != "" {
				t.Errorf("Parse(%q) message mismatch (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}
