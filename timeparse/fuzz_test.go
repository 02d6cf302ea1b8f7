package timeparse

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"上周三下午我们讨论了什么",
	"what did we discuss last Wednesday afternoon?",
	"从4月1日到4月10日",
	"4月1日至10日",
	"between April 1 and April 10",
	"from March to May",
	"2月30日",
	"February 30",
	"2026-13-01",
	"2026-W53",
	"三小时前",
	"昨天下午3点",
	"yesterday at 3:30pm",
	"the 6th of April, 2026",
	"最近几天",
	"a long time ago",
	"since Monday",
	"11月到2月",
	"二〇二五年三月十五号",
	"一百零五天前",
	"99999天前",
	"before",
	"上週五下午4點",
	"這幾週",
	"Fri 8th Aug, 2025",
	"from 3 to 7 June",
	"2号到6号",
	"the evening of the 9th",
	"2025年 3月 8日",
	"end of the previous week",
	"the first half of 2025",
	"2月29日",
	"thu 5 march",
	"before April 9",
	"after last Monday",
	"4月9日之前",
	"截至上周五",
	"3 days before last Friday",
	"上週五前三天",
	"去年国庆节",
	"春节前后",
	"2 weeks ago at 8am",
	"Tuesday the 19th",
	"下個月二十號",
	"上两周",
	"今年前三个月",
	"from Christmas to New Year's Day",
	"April 9, 2013 at 6:11 a.m.",
}

// fuzzRefs are the reference times the fuzzers try, one in each zone of the
// phrase table, one of them on a daylight-saving change.
func fuzzRefs(t testing.TB) []time.Time {
	return []time.Time{
		wall(t, sundayRef, mustLoad(t, "Asia/Shanghai")),
		time.Date(2026, 11, 1, 1, 30, 0, 0, mustLoad(t, "America/New_York")),
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	refs := fuzzRefs(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, ref := range refs {
			r, err := Parse(text, ref)
			if err != nil {
				continue
			}
			if !r.Start.Before(r.End) {
				t.Errorf("Parse(%q) = [%v, %v): empty", text, r.Start, r.End)
			}
			if r.Granularity < Hourly || r.Granularity > Yearly {
				t.Errorf("Parse(%q) granularity %v", text, r.Granularity)
			}
			// Invalid UTF-8 is dropped before parsing.
			if !strings.Contains(strings.ToValidUTF8(text, ""), r.Text) || r.Text == "" {
				t.Errorf("Parse(%q).Text = %q is not in the input", text, r.Text)
			}
		}
	})
}

func FuzzExtract(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
		f.Add("请问" + s + "的会议")
		f.Add("what about " + s + " then?")
	}
	refs := fuzzRefs(f)
	f.Fuzz(func(t *testing.T, query string) {
		for _, ref := range refs {
			r, rest, ok := Extract(query, ref)
			if len(rest) > len(query) {
				t.Errorf("Extract(%q) rest %q is longer than the input", query, rest)
			}
			if !utf8.ValidString(rest) {
				t.Errorf("Extract(%q) rest %q is not valid UTF-8", query, rest)
			}
			if !ok {
				continue
			}
			if !r.Start.Before(r.End) {
				t.Errorf("Extract(%q) = [%v, %v): empty", query, r.Start, r.End)
			}
			if r.Text == "" || !strings.Contains(strings.ToValidUTF8(query, ""), r.Text) {
				t.Errorf("Extract(%q).Text = %q is not in the input", query, r.Text)
			}
		}
	})
}
