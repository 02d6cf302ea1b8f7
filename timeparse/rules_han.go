package timeparse

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/olebedev/when/rules/zh"
)

// Pieces of the Chinese patterns.
const (
	hanNum  = `[0-9]{1,4}|[零〇一二两三四五六七八九十百千]{1,6}`
	hanMon  = `[0-9]{1,2}|十[一二]?|[一二三四五六七八九]`
	hanDay  = `[0-9]{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九]`
	hanYear = `(?P<y4>[0-9]{4})\s*年|(?P<ycn>[〇零一二三四五六七八九]{4})年|(?P<yrel>今年|本年|去年|前年|大前年|明年|后年)`
	hanRel  = `(?:上上|上|这|本|当|下下|下)一?整?个?`
	hanUnit = `天|日|周|星期|礼拜|月|年|小时|钟头`
)

// relOffset reads 上上, 上, 这, 本, 当, 下 and 下下, with or without 个, as
// a number of periods from the current one.
func relOffset(p string) int {
	switch strings.TrimRight(p, "一整个") {
	case "上上":
		return -2
	case "上":
		return -1
	case "下":
		return 1
	case "下下":
		return 2
	}
	return 0
}

// hanUnitOf reads a Chinese or English unit word.
func unitOf(w string) unit {
	switch strings.TrimSuffix(strings.ToLower(w), "s") {
	case "小时", "钟头", "hour":
		return unitHour
	case "天", "日", "day":
		return unitDay
	case "周", "星期", "礼拜", "week":
		return unitWeek
	case "月", "month":
		return unitMonth
	}
	return unitYear
}

// hanYearOf reads the year groups of hanYear; ok is false when the match
// has no year.
func (s *scanner) hanYearOf(m match) (y int, ok bool) {
	switch {
	case m.g["y4"] != "":
		return atoi(m.g["y4"]), true
	case m.g["ycn"] != "":
		n, _ := parseHan(m.g["ycn"])
		return n, true
	case m.g["yrel"] != "":
		off := map[string]int{"今年": 0, "本年": 0, "去年": -1, "前年": -2, "大前年": -3, "明年": 1, "后年": 2}
		return s.today.y + off[m.g["yrel"]], true
	}
	return 0, false
}

var hanSegments = map[string]int{
	"初": segEarly, "上旬": segEarly, "年初": segEarly, "月初": segEarly,
	"中": segMid, "中旬": segMid, "年中": segMid, "月中": segMid,
	"底": segLate, "末": segLate, "下旬": segLate, "年底": segLate, "年末": segLate, "月底": segLate, "月末": segLate,
}

func hanDayOffset(w string) int {
	switch w {
	case "大前天":
		return -3
	case "前天":
		return -2
	case "昨天", "昨日", "昨儿":
		return -1
	case "明天", "明日", "明儿":
		return 1
	case "后天":
		return 2
	case "大后天":
		return 3
	}
	return 0
}

var hanRules = []rule{
	// 今天, 昨天, 前天, 大前天, 明天, 后天.
	mkRule(scriptHan, `大前天|前天|昨天|昨日|昨儿|今天|今日|今儿|明天|明日|明儿|后天|大后天`, func(s *scanner, m match) (val, error) {
		return s.dayVal(s.today.add(hanDayOffset(m.text))), nil
	}),
	// 今早, 今晚, 昨晚, 明早: a day and a part of it in one word.
	mkRule(scriptHan, `今早|今晨|今晚|今夜|昨晚|昨夜|明早|明晚`, func(s *scanner, m match) (val, error) {
		c := s.today
		switch m.text[:3] {
		case "昨":
			c = c.add(-1)
		case "明":
			c = c.add(1)
		}
		if strings.HasSuffix(m.text, "早") || strings.HasSuffix(m.text, "晨") {
			return s.hours(c, 6, 12), nil
		}
		return s.hours(c, 18, 24), nil
	}),
	// 本周, 这周, 这个星期, 上周, 上个星期, 上礼拜, 上上周, 下周.
	mkRule(scriptHan, `(?P<p>`+hanRel+`)(?:周|星期|礼拜)`, func(s *scanner, m match) (val, error) {
		if strings.HasPrefix(m.g["p"], "当") {
			return val{}, errSkip
		}
		return s.weekVal(relOffset(m.g["p"])), nil
	}),
	// 周三, 上周三, 星期五, 礼拜天, 这个星期一, 下周日.
	mkRule(scriptHan, `(?P<p>`+hanRel+`)?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天1-7])`, func(s *scanner, m match) (val, error) {
		wd, ok := zh.WEEKDAY_OFFSET[m.g["wd"]]
		if m.g["wd"] == "7" {
			wd, ok = 7, true
		}
		if !ok || strings.HasPrefix(m.g["p"], "当") {
			return val{}, errSkip
		}
		var v val
		if m.g["p"] == "" {
			if s.afterCount(m.start) {
				return val{}, errSkip
			}
			v = s.bareWeekday(wd)
		} else {
			v = s.weekday(relOffset(m.g["p"]), wd)
		}
		v.wd = wd
		return v, nil
	}),
	// 周末, 上周末, 这周末.
	mkRule(scriptHan, `(?P<p>`+hanRel+`)?周末`, func(s *scanner, m match) (val, error) {
		if m.g["p"] == "" {
			return s.bareWeekend(), nil
		}
		return s.weekend(relOffset(m.g["p"])), nil
	}),
	// 三天前, 两周前, 3个月前, 一年以前, 三小时前, 几天前.
	mkRule(scriptHan|scriptDigit, `(?P<n>`+hanNum+`|几|数)\s*个?\s*(?P<u>`+hanUnit+`)\s*(?:前|以前|之前)`, func(s *scanner, m match) (val, error) {
		n, fuzzy, ok := parseNumber(m.g["n"])
		u := unitOf(m.g["u"])
		if !ok || (u == unitYear && n >= 1000) { // "2025年前" is "before 2025"
			return val{}, errSkip
		}
		return s.ago(n, u, fuzzy), nil
	}),
	// 过去三天, 最近三天, 近两周, 最近3个月, 过去24小时, 最近几天.
	mkRule(scriptHan, `(?:过去|最近|近)\s*的?\s*(?P<n>`+hanNum+`|几)\s*个?\s*(?P<u>`+hanUnit+`)(?:里|内|中|以来|来)?`, func(s *scanner, m match) (val, error) {
		n, fuzzy, ok := parseNumber(m.g["n"])
		if !ok || n == 0 {
			return val{}, errSkip
		}
		return s.last(n, unitOf(m.g["u"]), fuzzy), nil
	}),
	// 本月, 这个月, 上个月, 上月, 下个月.
	mkRule(scriptHan, `(?P<p>`+hanRel+`)月份?`, func(s *scanner, m match) (val, error) {
		return s.relMonth(relOffset(m.g["p"])), nil
	}),
	// 月初, 上个月底, 本月中旬, 3月初, 2025年3月下旬.
	mkRule(scriptHan|scriptDigit, `(?:(?P<p>`+hanRel+`)月|(?:(?:`+hanYear+`)\s*)?(?P<mon>`+hanMon+`)\s*月份?)的?(?P<seg>初|中|底|末|上旬|中旬|下旬)|月(?P<seg>初|中|底|末)|(?P<seg>上旬|中旬|下旬)`, func(s *scanner, m match) (val, error) {
		seg := hanSegments[m.g["seg"]]
		if m.g["seg"] == "中" && strings.HasSuffix(m.text, "中") && s.notMid(m.start+len(m.text)) {
			return val{}, errSkip // "3月中国", "这个月中间"
		}
		switch {
		case m.g["p"] != "":
			c := mkCivil(s.today.y, s.today.m+time.Month(relOffset(m.g["p"])), 1)
			return s.monthSegment(c.y, c.m, seg), nil
		case m.g["mon"] != "":
			mon, _ := parseHan(m.g["mon"])
			if m.g["mon"][0] <= '9' {
				mon = atoi(m.g["mon"])
			}
			v, err := s.namedMonth(m, time.Month(mon))
			if err != nil {
				return v, err
			}
			c := civilOf(v.r.Start)
			return s.monthSegment(c.y, c.m, seg), nil
		}
		if s.afterCount(m.start) {
			return val{}, errSkip
		}
		return s.thisMonthSegment(seg), nil
	}),
	// 3月, 三月, 十二月份, 2025年3月, 去年3月.
	mkRule(scriptHan|scriptDigit, `(?:(?:`+hanYear+`)\s*)?(?P<mon>`+hanMon+`)\s*月份?`, func(s *scanner, m match) (val, error) {
		mon, _ := parseHan(m.g["mon"])
		if m.g["mon"][0] <= '9' {
			mon = atoi(m.g["mon"])
		}
		return s.namedMonth(m, time.Month(mon))
	}),
	// 4月6日, 4月6号, 2026年4月6日, 去年三月十五号, 5月 3日, 2025年3月8.
	mkRule(scriptHan|scriptDigit, `(?:(?:`+hanYear+`)\s*)?(?P<mon>`+hanMon+`)\s*月\s*(?P<day>`+hanDay+`)(?:\s*(?P<suf>[日号]))?`, func(s *scanner, m match) (val, error) {
		mon, _ := parseHan(m.g["mon"])
		if m.g["mon"][0] <= '9' {
			mon = atoi(m.g["mon"])
		}
		d, _ := parseDay(m.g["day"])
		y, hasYear := s.hanYearOf(m)
		if m.g["suf"] == "" && !s.dayEnds(m.start+len(m.text)) {
			return val{}, errSkip // "3月8个人"
		}
		if hasYear {
			return s.dateVal(m.text, y, time.Month(mon), d)
		}
		return s.inferredDate(m.text, time.Month(mon), d)
	}),
	// 2号到6号, 十号至十五号: days of the most recent month that holds the first.
	mkRule(scriptHan|scriptDigit, `(?P<d1>`+hanDay+`)\s*[日号]\s*(?:到|至|-|–|~|～)\s*(?P<d2>`+hanDay+`)\s*[日号]`, func(s *scanner, m match) (val, error) {
		d1, _ := parseDay(m.g["d1"])
		d2, _ := parseDay(m.g["d2"])
		return s.dayRange(m.text, d1, d2)
	}),
	// 上半年, 下半年, 去年上半年, 2025年下半年.
	mkRule(scriptHan|scriptDigit, `(?:(?:`+hanYear+`)的?)?(?P<half>上|下)半年`, func(s *scanner, m match) (val, error) {
		y, ok := s.hanYearOf(m)
		if !ok {
			y = s.today.y
		}
		return s.yearHalf(y, map[string]int{"上": 1, "下": 2}[m.g["half"]]), nil
	}),
	// 上一年, 上年, 这一年, 这一整年, 下一年.
	mkRule(scriptHan, `(?P<p>上上|上|这|本|下下|下)(?P<one>一)?(?P<whole>整)?年`, func(s *scanner, m match) (val, error) {
		p := m.g["p"]
		if p == "这" && m.g["one"] == "" && m.g["whole"] == "" {
			return val{}, errSkip // "这年头"
		}
		if next, _ := utf8.DecodeRuneInString(s.text[m.start+len(m.text):]); strings.ContainsRune("纪级轻头", next) {
			return val{}, errSkip // "上年纪", "这年头"
		}
		return s.yearVal(s.today.y + relOffset(p)), nil
	}),
	// 这几天 is fuzzy below; 这几周, 这几个月, 这几年: the last few units.
	mkRule(scriptHan, `这几个?(?P<u>周|星期|礼拜|月|年)`, func(s *scanner, m match) (val, error) {
		return s.last(few, unitOf(m.g["u"]), true), nil
	}),
	// 周初, 周中, 上周初, 本周中: Monday-Tuesday and Wednesday-Thursday.
	mkRule(scriptHan, `(?P<p>`+hanRel+`)?(?:周|星期|礼拜)(?P<seg>初|中)`, func(s *scanner, m match) (val, error) {
		if m.g["p"] == "" && s.afterCount(m.start) || strings.HasPrefix(m.g["p"], "当") {
			return val{}, errSkip // "一周中"
		}
		if m.g["seg"] == "中" && s.notMid(m.start+len(m.text)) {
			return val{}, errSkip
		}
		return s.weekSegment(relOffset(m.g["p"]), hanSegments[m.g["seg"]]), nil
	}),
	// 今年, 去年, 前年, 2025年, 二〇二五年, 去年底, 今年年初.
	mkRule(scriptHan|scriptDigit, `(?:`+hanYear+`)(?:的?(?P<seg>年初|年中|年底|年末|初|底|末))?`, func(s *scanner, m match) (val, error) {
		y, _ := s.hanYearOf(m)
		if seg := m.g["seg"]; seg != "" {
			return s.yearSegment(y, hanSegments[seg]), nil
		}
		return s.yearVal(y), nil
	}),
	// 年初, 年中, 年底: this year's if it has started, else last year's.
	mkRule(scriptHan, `(?P<seg>年初|年中|年底|年末)`, func(s *scanner, m match) (val, error) {
		if s.afterCount(m.start) {
			return val{}, errSkip
		}
		return s.thisYearSegment(hanSegments[m.g["seg"]]), nil
	}),
	// Fuzzy phrases; see the table in the package documentation.
	mkRule(scriptHan, `刚才|刚刚|方才`, fuzzyFn(fuzzyJustNow)),
	mkRule(scriptHan, `这几天|这些天|这两天|近几天|近日`, fuzzyFn(fuzzyFewDays)),
	mkRule(scriptHan, `前几天|前些天|前两天`, fuzzyFn(fuzzyFewDaysAgo)),
	mkRule(scriptHan, `最近|近来|近期|最近这段时间|最近一段时间|这段时间|这阵子|最近这阵子`, fuzzyFn(fuzzyRecent)),
	mkRule(scriptHan, `前段时间|前一段时间|前阵子|前一阵子?|前些日子|前些时候`, fuzzyFn(fuzzyWhileAgo)),
	mkRule(scriptHan, `很久以前|很久之前|好久以前|好久之前|很早以前|很早之前|老早以前`, fuzzyFn(fuzzyLongAgo)),
	mkRule(scriptHan, `之前|以前|从前|早些时候|早前|此前|先前`, fuzzyFn(fuzzyBefore)),
	mkRule(scriptHan, `今天早些时候|今天稍早`, func(s *scanner, m match) (val, error) {
		return s.span(s.today.at(0, s.loc), s.ref, Hourly, true), nil
	}),
}

func fuzzyFn(k fuzzyKind) func(s *scanner, m match) (val, error) {
	return func(s *scanner, m match) (val, error) { return s.fuzzy(k), nil }
}

// namedMonth resolves month mon with the year groups of m: the year given,
// or the most recent such month that is not in the future.
func (s *scanner) namedMonth(m match, mon time.Month) (val, error) {
	if y, ok := s.hanYearOf(m); ok {
		return s.monthVal(m.text, y, mon)
	}
	return s.inferredMonth(m.text, mon)
}

// notMid reports whether the 中 that ends at offset i starts a word rather
// than meaning "the middle": "3月中国", "这周中间", "上个月中的会".
func (s *scanner) notMid(i int) bool {
	next, _ := utf8.DecodeRuneInString(s.text[i:])
	return strings.ContainsRune("国文心间层学期央部级型等秋断止药医华式的", next)
}

// dayEnds reports whether a day number that ends at offset i, written
// without 日 or 号, is not followed by more of a word: "2025年3月8" at the
// end of a clause or before a space or a part of the day.
func (s *scanner) dayEnds(i int) bool {
	if i >= len(s.text) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(s.text[i:])
	return isJunk(next) || next < utf8.RuneSelf && !isWord(next) || strings.ContainsRune("凌早上中下傍晚夜", next)
}
