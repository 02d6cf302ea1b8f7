package timeparse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Reference times on New York's daylight-saving days of 2026.
const (
	refSpringDay = "2026-03-08 15:00" // a Sunday: clocks went forward at 02:00
	refFallDay   = "2026-11-01 15:00" // a Sunday: clocks went back at 02:00
	refAfterCNY  = "2026-02-20 12:00" // a Friday, three days after 春节
)

// compositionTable lists each shape of the grammar and compositions of
// shapes, in simplified and traditional Chinese and English, with the
// range they all mean at ref.
var compositionTable = []phraseGroup{
	// Offsets of any unit from an anchor.
	{refSun, []string{"3 days before last Friday", "three days before last Friday", "上周五前三天", "上週五前三天", "上周五的三天前", "上周五之前3天"}, d("2026-11-17", "2026-11-18"), false},
	{refSun, []string{"2 days after last Friday", "上周五后两天", "上週五後兩天", "上周五之后2天", "上周五的两天后"}, d("2026-11-22", "2026-11-23"), false},
	{refSun, []string{"a week before yesterday", "1 week before yesterday", "昨天前一周", "昨天前一週"}, d("2026-11-21", "2026-11-22"), false},
	{refSun, []string{"2 months after last Monday", "上周一后两个月", "上週一後兩個月"}, d("2027-01-16", "2027-01-17"), false},
	{refSun, []string{"the day before last Friday", "上周五的前一天", "上週五的前一天"}, d("2026-11-19", "2026-11-20"), false},
	{refSun, []string{"the day after Christmas", "the day after last Christmas", "圣诞节的第二天", "聖誕節的第二天", "圣诞节后一天", "1 day after Christmas"}, d("2025-12-26", "2025-12-27"), false},
	{refSun, []string{"3 weeks after Christmas 2025", "2025年圣诞节后三周", "2025年聖誕節後三週"}, d("2026-01-15", "2026-01-16"), false},
	{refSun, []string{"3 days before last Friday at 3pm", "上周五前三天下午3点", "上週五前三天下午3點"}, h("2026-11-17 15:00", "2026-11-17 16:00"), false},
	// The first or last units of a period.
	{refSun, []string{"今年前三个月", "今年前三個月", "今年前3个月"}, mo("2026-01-01", "2026-04-01"), false},
	{refSun, []string{"去年后两个月", "去年後兩個月"}, mo("2025-11-01", "2026-01-01"), false},
	{refSun, []string{"上个月前10天", "上個月前十天"}, d("2026-10-01", "2026-10-11"), false},
	// Whole units before this one.
	{refSun, []string{"上两周", "上兩週", "前两周", "前兩週", "上两个星期"}, wk("2026-11-09", "2026-11-23"), false},
	{refSun, []string{"前三天", "上三天", "上3天"}, d("2026-11-26", "2026-11-29"), false},
	{refSun, []string{"上两天", "上兩天", "上2天"}, d("2026-11-27", "2026-11-29"), false},
	{refSun, []string{"上三个月", "上三個月", "前三个月"}, mo("2026-08-01", "2026-11-01"), false},
	{refSun, []string{"前两年", "前兩年", "上两年"}, y("2024-01-01", "2026-01-01"), false},
	// n units ago, then a part of the day or a clock time.
	{refSun, []string{"2 weeks ago at 8am", "two weeks ago at 8 am", "两周前早上8点", "兩週前早上8點", "两周前的早上八点"}, h("2026-11-15 08:00", "2026-11-15 09:00"), false},
	{refSun, []string{"1 month ago at 9:30am", "a month ago at 9:30 a.m.", "一个月前上午9点半", "一個月前上午9點半"}, h("2026-10-29 09:00", "2026-10-29 10:00"), false},
	{refSun, []string{"a year ago in the evening", "一年前晚上", "一年前的晚上"}, h("2025-11-29 18:00", "2025-11-30 00:00"), false},
	// Dates with clock times and midnight.
	{refSun, []string{"April 9, 2013 at 6:11 a.m.", "April 9, 2013 at 6:11am", "2013年4月9日早上6点", "2013年4月9日早上6點"}, h("2013-04-09 06:00", "2013-04-09 07:00"), false},
	{refSun, []string{"December 13, 2014 at midnight", "2014年12月13日0点", "2014年12月13日凌晨0點"}, h("2014-12-13 00:00", "2014-12-13 01:00"), false},
	// A weekday with a day of the month, a day of a month.
	{refSun, []string{"Tuesday the 19th", "tuesday the 19th"}, d("2026-05-19", "2026-05-20"), false},
	{refSun, []string{"Friday the 13th", "friday the 13th"}, d("2026-11-13", "2026-11-14"), false},
	{refSun, []string{"20th of next month", "the 20th of next month", "下个月二十号", "下個月二十號", "下个月20号", "下个月20日"}, d("2026-12-20", "2026-12-21"), false},
	{refSun, []string{"the 5th of last month", "上个月5号", "上個月五號", "上月5日"}, d("2026-10-05", "2026-10-06"), false},
	{refSun, []string{"上个月5号晚上", "上個月5號晚上", "the evening of the 5th of last month"}, h("2026-10-05 18:00", "2026-10-06 00:00"), false},
	// Weekends ago.
	{refSun, []string{"two weekends ago", "2 weekends ago", "两个周末前", "兩個週末前", "上上周末", "上上週末"}, d("2026-11-14", "2026-11-16"), false},
	// Holidays with a year, the most recent one, and around them.
	{refSun, []string{"去年国庆节", "去年國慶節", "去年国庆", "2025年国庆节", "National Day 2025", "National Day last year"}, d("2025-10-01", "2025-10-02"), false},
	{refSun, []string{"国庆节", "國慶節", "国庆", "this National Day", "last National Day"}, d("2026-10-01", "2026-10-02"), false},
	{refSun, []string{"国庆期间", "國慶期間", "国庆假期", "十一长假", "十一長假", "国庆黄金周", "國慶黃金週"}, d("2026-10-01", "2026-10-08"), false},
	{refSun, []string{"春节", "春節", "大年初一", "Chinese New Year", "last Chinese New Year", "this Spring Festival", "今年春节", "2026年春节"}, d("2026-02-17", "2026-02-18"), false},
	{refSun, []string{"春节期间", "春節期間", "春节假期", "今年春节期间"}, d("2026-02-16", "2026-02-24"), false},
	{refSun, []string{"春节前", "春節前", "今年春节前"}, f("2026-02-09", "2026-02-16", Daily), false},
	{refSun, []string{"春节后", "春節後"}, f("2026-02-24", "2026-03-03", Daily), false},
	{refSun, []string{"中秋节前后", "中秋節前後", "中秋前后"}, f("2026-09-18", "2026-10-03", Daily), false},
	{refSun, []string{"去年中秋节", "去年中秋節", "2025年中秋", "Mid-Autumn Festival 2025", "mid-autumn festival last year"}, d("2025-10-06", "2025-10-07"), false},
	{refSun, []string{"端午节", "端午節", "端午", "Dragon Boat Festival"}, d("2026-06-19", "2026-06-20"), false},
	{refSun, []string{"元宵节", "元宵節", "元宵", "Lantern Festival"}, d("2026-03-03", "2026-03-04"), false},
	{refSun, []string{"清明节", "清明節", "清明", "Qingming", "Tomb-Sweeping Day"}, d("2026-04-05", "2026-04-06"), false},
	{refSun, []string{"除夕", "大年三十", "今年除夕"}, d("2026-02-16", "2026-02-17"), false},
	{refSun, []string{"五一", "劳动节", "勞動節", "五一劳动节", "May Day"}, d("2026-05-01", "2026-05-02"), false},
	{refSun, []string{"五一假期", "五一期间", "五一期間"}, d("2026-05-01", "2026-05-06"), false},
	{refSun, []string{"元旦", "今年元旦", "New Year's Day", "new year's day", "New Years Day"}, d("2026-01-01", "2026-01-02"), false},
	{refSun, []string{"last christmas", "last Christmas", "Christmas last year", "Christmas 2025", "去年圣诞节", "去年聖誕節", "圣诞节", "Christmas", "xmas"}, d("2025-12-25", "2025-12-26"), false},
	{refSun, []string{"next Christmas", "this Christmas", "今年圣诞节", "今年聖誕節"}, d("2026-12-25", "2026-12-26"), false},
	{refSun, []string{"Thanksgiving", "感恩节", "this Thanksgiving"}, d("2026-11-26", "2026-11-27"), false},
	{refSun, []string{"last Christmas Eve at 8pm", "去年平安夜晚上8点", "去年平安夜晚上8點"}, h("2025-12-24 20:00", "2025-12-24 21:00"), false},
	{refSun, []string{"中秋节晚上", "中秋節晚上", "Mid-Autumn Festival in the evening"}, h("2026-09-25 18:00", "2026-09-26 00:00"), false},
	{refSun, []string{"around Christmas 2025", "2025年圣诞节前后", "2025年聖誕節前後"}, f("2025-12-18", "2026-01-02", Daily), false},
	// 春节 has not come yet: the most recent one is last year's.
	{"2026-02-10 12:00", []string{"春节", "春節", "Chinese New Year", "last Chinese New Year"}, d("2025-01-29", "2025-01-30"), false},
	{"2026-02-10 12:00", []string{"春节前", "春節前"}, f("2026-02-09", "2026-02-16", Daily), false},
	{refAfterCNY, []string{"春节", "last Chinese New Year", "Chinese New Year"}, d("2026-02-17", "2026-02-18"), false},
	// Ranges of any two parts.
	{refSun, []string{"from Christmas to New Year's Day", "从圣诞节到元旦", "從聖誕節到元旦"}, d("2025-12-25", "2026-01-02"), false},
	{refSun, []string{"从中秋到国庆", "從中秋到國慶", "中秋节到国庆节"}, d("2026-09-25", "2026-10-02"), false},
	{refSun, []string{"from 3 days before last Friday to last Friday", "从上周五前三天到上周五", "從上週五前三天到上週五"}, d("2026-11-17", "2026-11-21"), false},
	{refSun, []string{"from last Monday morning to yesterday evening", "从上周一上午到昨天晚上", "從上週一上午到昨天晚上"}, h("2026-11-16 06:00", "2026-11-29 00:00"), false},
	{refSun, []string{"since last Christmas", "去年圣诞节以来", "从去年圣诞节以来"}, d("2025-12-25", refSun), false},
	{refSun, []string{"国庆节之前", "國慶節之前", "before National Day"}, d("", "2026-10-01"), false},

	// Daylight saving in New York, on the days the clocks change.
	{refSpringDay, []string{"today", "今天", "3 days after Thursday", "周四后三天", "週四後三天"}, d("2026-03-08", "2026-03-09"), true},
	{refSpringDay, []string{"today at 3am", "今天凌晨3点", "今天凌晨3點"}, h("2026-03-08 03:00", "2026-03-08 04:00"), true},
	{refSpringDay, []string{"上两天", "上兩天"}, d("2026-03-06", "2026-03-08"), true},
	{refSpringDay, []string{"1 week ago at 8am", "一周前早上8点"}, h("2026-03-01 08:00", "2026-03-01 09:00"), true},
	{refSpringDay, []string{"上两周", "前兩週"}, wk("2026-02-16", "2026-03-02"), true},
	{refFallDay, []string{"today", "今天", "the day after Saturday", "周六的第二天", "週六的第二天"}, d("2026-11-01", "2026-11-02"), true},
	{refFallDay, []string{"上两天", "上兩天"}, d("2026-10-30", "2026-11-01"), true},
	{refFallDay, []string{"two weekends ago", "两个周末前"}, d("2026-10-17", "2026-10-19"), true},
	{"2026-11-02 10:00", []string{"yesterday at 1am", "昨天凌晨1点"}, h("2026-11-01 01:00", "2026-11-01 02:00"), true},
	{"2026-11-02 10:00", []string{"上两天", "上兩天"}, d("2026-10-31", "2026-11-02"), true},
}

func TestParseCompositions(t *testing.T) {
	for _, zone := range zones {
		loc := mustLoad(t, zone)
		for _, g := range compositionTable {
			if g.nyOnly && zone != "America/New_York" {
				continue
			}
			ref := wall(t, g.ref, loc)
			for _, text := range g.texts {
				t.Run(fmt.Sprintf("%s/%s/%s", zone, g.ref[:10], text), func(t *testing.T) {
					got, err := Parse(text, ref)
					if err != nil {
						t.Fatalf("Parse(%q) at %s: %v", text, ref, err)
					}
					w := g.want.in(t, loc, strings.TrimFunc(text, isJunk))
					if diff := cmp.Diff(w, got); diff != "" {
						t.Errorf("Parse(%q) at %s mismatch (-want +got):\n%s", text, ref, diff)
					}
				})
			}
		}
	}
}
