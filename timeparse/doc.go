// Package timeparse resolves natural-language time phrases in Chinese and
// English, such as "上周三下午", "last Wednesday afternoon", "3个月前" or
// "between April 1 and April 10", to exact half-open time ranges.
//
// HuiMemory uses it in two places. Recall calls [Extract] on the query text:
// the phrase becomes a time filter and the rest of the query is what is
// searched for ("上周三下午我们讨论了什么" searches "我们讨论了什么" within
// that afternoon). The archive and the progressive scan, which walks the
// memory backwards one ISO week at a time, use the [Week] helpers
// ([WeekOf], [ParseWeek], [Week.Range], [Week.Prev], [Week.Next]). The
// package is a leaf: it imports nothing else from HuiMemory.
//
// # Ranges
//
// Every phrase is resolved relative to a reference time ref, in ref's
// location. Day boundaries are local midnights made with [time.Date], so a
// day is 23 or 25 hours long when daylight saving starts or ends, and a
// week holding the change is 167 or 169 hours long. [Range.End] is always
// exclusive. Weeks are ISO weeks: Monday 00:00 to the next Monday 00:00.
//
// Phrases and what they mean (at ref Sunday 2026-11-29 15:04):
//
//	今天 today / 昨天 yesterday / 前天 the day before yesterday / 大前天
//	  / 明天 tomorrow / 后天 the day after tomorrow      that day
//	本周 这周 这个星期 this week                          2026-11-23 to 2026-11-30
//	上周 上个星期 上礼拜 last week                        2026-11-16 to 2026-11-23
//	上上周 the week before last; 下周 next week           two weeks back; next week
//	上周三 last Wednesday                                 Wednesday of the previous ISO week: 2026-11-18
//	这周五 本周五 this Friday                             Friday of this ISO week, even if still to come
//	周三 星期三 Wednesday, on Wednesday, this past Wednesday
//	                                                      the most recent Wednesday (see below): 2026-11-25
//	Wednesday last week / this week / next week          that week's Wednesday
//	周末 the weekend, this past weekend                   the most recent weekend, Saturday 00:00 to
//	                                                      Monday 00:00: this week's once Saturday has
//	                                                      come, else last week's
//	上周末 last weekend; 这周末 this weekend              the previous ISO week's; this ISO week's
//	三天前 3 days ago / 两周前 2 weeks ago / 3个月前 3 months ago / 两年前 2 years ago
//	                                                      that day / ISO week / calendar month / year
//	三小时前 3 hours ago                                  the clock hour that held ref-3h
//	过去三天 最近三天 近三天 the last 3 days, the past 3 days
//	                                                      today's midnight minus 3 days up to ref
//	                                                      (the three previous days and today so far);
//	                                                      weeks count 7 days, months and years are
//	                                                      calendar steps, hours count from ref
//	the past week, the last month (with "the" or "past") one rolling unit up to ref
//	本月 这个月 this month; 上个月 上月 last month        the calendar month
//	月初 / 月中 / 月底 月末 early / mid / late <month>,
//	  the beginning / middle / end of <month>            days 1-10 / 11-20 / 21 to the end
//	3月初, 上个月底, early March, end of last month       the same split in that month
//	今年 this year; 去年 last year; 前年 the year before last
//	年初 / 年中 / 年底, early / mid / late 2025,
//	  the beginning / end of the year                    January-April / May-August / September-December
//	月底, 年底, the end of the month / year               this month's / year's part, even before it comes
//	上半年 下半年, the first / second half of 2025         January-June / July-December
//	early / mid / late this week, end of last week,
//	  本周初 本周中                                        Monday-Tuesday / Wednesday-Thursday / Friday-Sunday
//	3月 三月 March, in March                              the most recent March not in the future: this
//	                                                      year's if it has begun, else last year's
//	2025年3月, March 2025; last March; this March          that month; the last March before this
//	                                                      month; this year's March
//	2026-04-06, 2026/4/6, 4月6日, 4月6号, 2026年4月6日,
//	  April 6, April 6, 2026, 6 April 2026, Apr 6th,
//	  the 6th of April                                   that day; without a year the most recent one
//	                                                      that is not after today
//	2025年, in 2025; 2026-04; 2026-W47                    the year; the month; the ISO week
//	从4月1日到4月10日, 4月1日至10日, from March to May,
//	  between April 1 and April 10, April 1 to 10        Start of the first part to End of the last
//	since Monday, 从上周三以来, 上周三至今                 Start of the phrase up to ref
//	before April 9, 4月9日之前, 上周以前                  open start (zero) up to the phrase's Start
//	until April 9, till Friday, 截至上周五, 直到4月9日     open start (zero) up to the phrase's End
//	after April 9, 4月9日以后, 上周之后                   End of the phrase up to ref
//	  ("the week before August 3", "two weeks after Monday": a time word
//	  before "before"/"after" counts from the date; those read the date alone)
//	earlier today / this week / this month / this year   the period's start up to ref (fuzzy)
//
// A bare weekday ("周三", "on Wednesday") means the most recent such day,
// today included: this ISO week's if it is today or has passed, else last
// week's. Memory is about the past, so "周五" said on a Monday is the
// Friday just gone. "上周三" and "last Wednesday" both mean Wednesday of the
// previous ISO week; on a Sunday that is ten days back, not three. The
// weekday rule of github.com/olebedev/when counts weeks from Sunday and
// gets this wrong, so weekdays are resolved here.
//
// Without an explicit year, a date or month means the most recent one not in
// the future. In a range whose start would come after its end, the start
// moves back one period: at 2026-11-29, "11月到2月" is 2025-11-01 to
// 2026-03-01, and "Friday to Monday" said on a Sunday starts on the Friday
// of the week before. A range still reversed, such as "4月10日到4月1日", is
// an error.
//
// Traditional characters (上週五, 這個週末, 兩個禮拜前) are read through a
// small character table with the same byte offsets, so Extract cuts the
// phrase from the text as written. The full phrase list (weekday with a
// date, days before the month, "the 21st", 2号到6号, fortnights, yr/wk, and
// everything below) is in docs/time-phrases.md.
//
// # Composition
//
// Parts compose (compose.go): an offset of any unit from any day or
// period ("3 days before last Friday", "上周五前三天", "国庆节后两天",
// "the day after Christmas"), the first or last units of a period
// ("今年前三个月", "上个月后10天"), a day of a month ("下个月二十号", "the
// 20th of next month"), a weekday choosing the month of a day ("Tuesday
// the 19th": the most recent 19th that is a Tuesday) and "n units ago"
// with a clock time ("2 weeks ago at 8am": that day, 14 days back). Each
// of them may take a part of the day and a clock time and be a side of a
// range. "上两周", "前三天" and "上三个月" are the whole units before the
// current one; "two weekends ago" and "两个周末前" count weekends back. A
// calendar date written with its year is not an offset's anchor ("two
// weeks before August 11, 2023" reads the date alone).
//
// # Holidays
//
// 元旦, 五一, 国庆, 圣诞, 平安夜, 情人节, 万圣节, 感恩节 and their English
// names are computed; 春节, 除夕, 元宵, 端午, 中秋 and 清明 are read from a
// table for 1990-2050 generated from github.com/6tail/lunar-go
// (lunardates_gen.go; internal/lunargen, a module of its own, regenerates
// and checks it). A holiday without a year is the most recent one that
// has begun; 去年, 2025年, "last", "this", "next" and "2025" choose it.
// 期间 and 假期 are the holiday period (春节: 除夕 to 初七; 国庆: 1-7
// October; 五一: 1-5 May); 前, 后 and 前后, and "around", are the week
// before, the week after, or both with the holiday, and are fuzzy. An
// English holiday without a year or this/last/next ("during Thanksgiving")
// is mostly a habit, so Extract reads it only as the anchor of an offset
// or a side of a range; Parse reads it alone.
//
// # Parts of the day
//
// A part of the day may follow a day phrase ("昨天下午", "上周三的晚上",
// "yesterday afternoon", "Monday in the morning"), and so may a clock time
// ("昨天下午3点", "yesterday at 3pm"), which resolves to the hour it falls in.
// The hours, all with Hour granularity, are:
//
//	凌晨                       00-06
//	早上 早晨 上午  morning     06-12
//	中午            noon, midday, lunchtime   11-13
//	下午            afternoon   12-18
//	傍晚                        17-19
//	晚上 夜里 夜晚  evening, night  18-24
//	深夜 半夜       late night  22-02 (into the next day)
//	                midnight    00-01
//	今早 / 今晚 昨晚 tonight / last night / this morning   today 06-12 / 18-24, yesterday 18-24
//
// A part of the day on its own ("下午", "afternoon") is not a phrase.
//
// # Fuzzy phrases
//
// Vague phrases get [Range.Fuzzy] set and the span they plausibly mean. d0
// is today's local midnight, and "d0 - 3 months" is the same day three
// calendar months back:
//
//	Phrases                                          Start          End          Granularity
//	刚才 刚刚 just now, a moment ago, a few minutes ago   ref - 1h       ref          hour
//	最近几天 这几天 近日 the last few days               d0 - 7 days    ref          day
//	几天前 前几天 前些天 a few days ago, the other day   d0 - 7 days    d0 - 1 day   day
//	几周前 几个月前 a few weeks / months ago             d0 - 7 units   d0 - 1 unit  the unit
//	最近 近来 近期 recently, lately, these days          d0 - 14 days   ref          day
//	前段时间 前阵子 前些日子 a while ago, some time ago  d0 - 3 months  d0 - 7 days  week
//	很久以前 很久之前 a long time ago, long ago          d0 - 10 years  d0 - 3 months year
//	之前 以前 从前 早些时候 earlier, previously, before,
//	  in the past                                    d0 - 1 year    ref          month
//
// "before" counts only at the end of a clause ("what did we say before?"),
// not in "before the launch", and not in a yes/no question ("Have I used
// Bootstrap before?", "did we … before?") or after "ever" or "never":
// those ask whether something happened at all.
//
// # Words that are not phrases
//
// Abbreviated weekdays must be capitalised ("Sat", not "sat"). "May" must be
// capitalised, and on its own it needs a word such as "in", "since" or "to"
// before it ("May I ask" is not a month). Month abbreviations ("Mar",
// "Dec") need a day or a year. A bare weekday, 年中 or 月中 right after a
// count ("一周一次", "一年中", "三个月中") is not a phrase, and 过去 alone
// (as in "发过去") is not one either. Numeric dates other than year-first
// ones (4/6, 6.4.2026) are ambiguous and not read.
//
// # Use of github.com/olebedev/when
//
// The English month-and-day rule of when finds "April 6", "6th of April"
// and "Sept. 1st", its clock rules find "3pm", "15:30" and "下午3点半", and
// its word tables supply weekday, month, number and ordinal names. when
// turns phrases into one instant by adding multiples of 24 hours (wrong
// across daylight-saving changes) and lets time.Date roll 30 February into
// March, so this package only uses it to read words: validity, weeks and
// ranges are computed here.
//
// # Cost
//
// Nothing is compiled at package init: each rule's regular expression, and
// when's rules, are compiled on first use. Before compiling or running a
// rule at an offset, the scanner asks the rule's gate, read from the
// pattern's syntax tree with regexp/syntax: the runes a match can start
// with, case-folded literal prefixes one of which every match starts with,
// and case-folded literal strings one of which every match contains ("the
// week before" must contain "before" or "after"). Reading a gate costs
// more than compiling its pattern, so the gates are generated into
// gates_gen.go (go test ./timeparse -run TestGeneratedGates -update; the
// test fails when the file is stale). A gate never rejects text its rule
// matches: gate_test.go checks every rule over the test corpus and under
// fuzzing, and that Parse and Extract answer the same without the gates.
// A query without a time phrase thus compiles and runs almost no rule.
// when's own packages still compile their rule lists at their package
// init.
package timeparse
