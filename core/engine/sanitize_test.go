package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

func TestFocusQuery(t *testing.T) {
	tests := []struct {
		name, in, text, timeText string
	}{
		{"plain question", "我上次说的那部电影叫什么？", "我上次说的那部电影叫什么？", "我上次说的那部电影叫什么？"},
		{"zh marker", "哎，今天好累啊，刚下班回来。不好意思，我真正想问的是：我上次说的那部文艺片叫什么？",
			"我上次说的那部文艺片叫什么？", "我上次说的那部文艺片叫什么？"},
		{"zh marker, time in small talk", "记得上周那个活动挺热闹的。说正事，我学会做的那道鱼叫什么？",
			"我学会做的那道鱼叫什么？", "我学会做的那道鱼叫什么？"},
		{"zh marker keeps the question's own time", "今天天气真好。我想问的是：五一那天我去了哪里？",
			"五一那天我去了哪里？", "五一那天我去了哪里？"},
		{"traditional marker", "今天好忙。我真正想問的是：你推薦過哪些畫家？", "你推薦過哪些畫家？", "你推薦過哪些畫家？"},
		{"afterthought", "等等，先别管刚才那个，我想问你推荐给我的画家都有谁？", "我想问你推荐给我的画家都有谁？", "我想问你推荐给我的画家都有谁？"},
		{"afterthought alone", "等等，你推荐给我的画家都有谁？", "你推荐给我的画家都有谁？", "你推荐给我的画家都有谁？"},
		{"afterthought without a question after it", "等等", "等等", "等等"},
		{"afterthought inside a word is no afterthought", "我等等再说吧，你推荐的书是哪本？", "我等等再说吧，你推荐的书是哪本？", "我等等再说吧，你推荐的书是哪本？"},
		{"en marker", "Sorry for the long story about my weekend. My actual question is: which hotel did I book in Kyoto?",
			"which hotel did I book in Kyoto?", "which hotel did I book in Kyoto?"},
		{"en marker, upper case", "Long day. MY ACTUAL QUESTION IS what was the name of my dog?", "what was the name of my dog?", "what was the name of my dog?"},
		{"en afterthought", "Wait, which book did you recommend to me?", "which book did you recommend to me?", "which book did you recommend to me?"},
		{"a marker with nothing meaningful after it", "我想问的是：嗯", "我想问的是：嗯", "我想问的是：嗯"},
		{"question after small talk: time only from the question", "昨天下班好累啊。我上次跟你说的那本书叫什么？",
			"昨天下班好累啊。我上次跟你说的那本书叫什么？", "我上次跟你说的那本书叫什么？"},
		{"en question after small talk", "Last week was hectic at work. What was the name of the restaurant I liked?",
			"Last week was hectic at work. What was the name of the restaurant I liked?", "What was the name of the restaurant I liked?"},
		{"short last sentence: the whole query", "我上周去了厦门。好玩吗？", "我上周去了厦门。好玩吗？", "我上周去了厦门。好玩吗？"},
		{"two questions: the time may be in the first", "4月30号的天气如何？我去干什么了？",
			"4月30号的天气如何？我去干什么了？", "4月30号的天气如何？我去干什么了？"},
		{"small talk, then two questions", "今天好累。5月4号的天气怎么样？我的心情怎么样？",
			"今天好累。5月4号的天气怎么样？我的心情怎么样？", "5月4号的天气怎么样？我的心情怎么样？"},
		{"zh-Hant question after small talk", "上週末在家休息。我跟你說過我最近在練習什麼樂器？",
			"上週末在家休息。我跟你說過我最近在練習什麼樂器？", "我跟你說過我最近在練習什麼樂器？"},
		{"empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, timeText := focusQuery(tt.in)
			if text != tt.text || timeText != tt.timeText {
				t.Errorf("focusQuery(%q) = %q, %q; want %q, %q", tt.in, text, timeText, tt.text, tt.timeText)
			}
		})
	}
}

func FuzzFocusQuery(f *testing.F) {
	f.Add("哎，今天好累啊。我真正想问的是：我上次说的那部文艺片叫什么？")
	f.Add("Wait, which book did you recommend?")
	f.Add("İstanbul trip. My actual question is: where did I stay?")
	f.Fuzz(func(t *testing.T, q string) {
		text, timeText := focusQuery(q)
		if !strings.HasSuffix(text, timeText) {
			t.Fatalf("timeText %q is not a suffix of text %q", timeText, text)
		}
		if len(text) > len(q) {
			t.Fatalf("text %q longer than the query %q", text, q)
		}
	})
}

// TestPlanChattyTime: a time word in small talk does not scope the
// search; one in the question does; a vague phrase of days or weeks scans,
// one of months or years only bounds the search.
func TestPlanChattyTime(t *testing.T) {
	e := openTest(t)
	now := time.Date(2023, 5, 7, 15, 0, 0, 0, cst)
	tests := []struct {
		q, phrase string // phrase: the resolved time phrase, "" for none
		scan      bool
		text      string
	}{
		{"记得上周那个活动挺热闹的。说正事，我学会做的那道鱼叫什么？", "", false, "我学会做的那道鱼叫什么？"},
		{"昨天下班好累啊。我上次跟你说的那本书叫什么？", "", false, "昨天下班好累啊。我上次跟你说的那本书叫什么？"},
		{"哎今天好累。上周五我跟你说我去了哪个公园？", "上周五", false, "哎今天好累。 我跟你说我去了哪个公园？"},
		{"我最近计划去哪个国家玩？", "最近", true, "我计划去哪个国家玩？"},
		{"我之前说我打算在哪个城市找瑜伽课来着？", "之前", false, "我说我打算在哪个城市找瑜伽课来着？"},
		{"What did we say about the budget earlier?", "earlier", false, "What did we say about the budget?"},
	}
	for _, tt := range tests {
		p, err := e.read.planQuery(core.Query{Text: tt.q, Now: now})
		if err != nil {
			t.Fatalf("%q: %v", tt.q, err)
		}
		phrase := ""
		if p.resolved != nil {
			phrase = p.resolved.Text
		}
		if phrase != tt.phrase || p.scan != tt.scan || p.text != tt.text {
			t.Errorf("%q: phrase %q, scan %v, text %q; want %q, %v, %q", tt.q, phrase, p.scan, p.text, tt.phrase, tt.scan, tt.text)
		}
		if tt.phrase != "" && !tt.scan && (p.since.IsZero() || p.before.IsZero()) {
			t.Errorf("%q: window %v .. %v, want the phrase's", tt.q, p.since, p.before)
		}
	}
}
