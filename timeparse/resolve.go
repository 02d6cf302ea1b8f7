package timeparse

import (
	"time"
)

// This file turns calendar notions into ranges. Every boundary is a local
// time built with time.Date from a civil date, so days are 23 or 25 hours
// long across a daylight-saving change.

func (s *scanner) span(start, end time.Time, g Granularity, fuzzy bool) val {
	return val{r: Range{Start: start, End: end, Granularity: g, Fuzzy: fuzzy}}
}

// dayVal is the whole of day c.
func (s *scanner) dayVal(c civil) val {
	v := s.span(c.at(0, s.loc), c.add(1).at(0, s.loc), Daily, false)
	v.day = &c
	return v
}

// hours is hours h1 to h2 of day c; h2 may pass 24.
func (s *scanner) hours(c civil, h1, h2 int) val {
	return s.span(c.at(h1, s.loc), c.at(h2, s.loc), Hourly, false)
}

// dateVal is the day y-m-d, which must exist; text is the phrase, for the
// error.
func (s *scanner) dateVal(text string, y int, m time.Month, d int) (val, error) {
	if m < 1 || m > 12 {
		return val{}, invalidDate(text, "there is no month %d", int(m))
	}
	if d < 1 {
		return val{}, invalidDate(text, "there is no day %d", d)
	}
	if n := daysIn(y, m); d > n {
		return val{}, invalidDate(text, "%s has %d days in %d", m, n, y)
	}
	c := civil{y, m, d}
	v := s.dayVal(c)
	v.date = &c
	return v, nil
}

// inferredDate is the most recent m-d that is not after today: this year's
// if it has come, else last year's. A 29 February goes back to the most
// recent leap year.
func (s *scanner) inferredDate(text string, m time.Month, d int) (val, error) {
	y := s.today.y
	if m > s.today.m || (m == s.today.m && d > s.today.d) {
		y--
	}
	y = yearWith(y, m, d)
	v, err := s.dateVal(text, y, m, d)
	if err != nil {
		return v, err
	}
	v.month = m
	v.shift = func() (val, error) { return s.dateVal(text, yearWith(y-1, m, d), m, d) }
	return v, nil
}

// yearWith returns y, or for 29 February the latest leap year not after y.
func yearWith(y int, m time.Month, d int) int {
	if m == time.February && d == 29 {
		for k := 0; k < 8 && daysIn(y, m) < 29; k++ {
			y--
		}
	}
	return y
}

// dayOfMonth is day d of the most recent month that has it and in which
// it is not after today: "the 21st" said on the 29th is the 21st of this
// month, said on the 15th the 21st of last month.
func (s *scanner) dayOfMonth(text string, d int) (val, error) {
	if d < 1 || d > 31 {
		return val{}, invalidDate(text, "there is no day %d", d)
	}
	c := civil{s.today.y, s.today.m, 1}
	if d > s.today.d {
		c = c.addMonths(-1)
	}
	for daysIn(c.y, c.m) < d {
		c = c.addMonths(-1)
	}
	v, err := s.dateVal(text, c.y, c.m, d)
	v.dom = d
	return v, err
}

// monthVal is month m of year y, which must exist.
func (s *scanner) monthVal(text string, y int, m time.Month) (val, error) {
	if m < 1 || m > 12 {
		return val{}, invalidDate(text, "there is no month %d", int(m))
	}
	v := s.span(civil{y, m, 1}.at(0, s.loc), mkCivil(y, m+1, 1).at(0, s.loc), Monthly, false)
	v.mon = &civil{y, m, 1}
	return v, nil
}

// inferredMonth is the most recent month m that is not in the future.
func (s *scanner) inferredMonth(text string, m time.Month) (val, error) {
	y := s.today.y
	if m > s.today.m {
		y--
	}
	v, err := s.monthVal(text, y, m)
	if err != nil {
		return v, err
	}
	v.month = m
	v.shift = func() (val, error) { return s.monthVal(text, y-1, m) }
	return v, nil
}

// relMonth is the month n months from this one.
func (s *scanner) relMonth(n int) val {
	c := mkCivil(s.today.y, s.today.m+time.Month(n), 1)
	v, _ := s.monthVal("", c.y, c.m)
	return v
}

func (s *scanner) yearVal(y int) val {
	v := s.span(civil{y, 1, 1}.at(0, s.loc), civil{y + 1, 1, 1}.at(0, s.loc), Yearly, false)
	v.year = y
	return v
}

// weekVal is the ISO week n weeks from this one.
func (s *scanner) weekVal(n int) val {
	mon := s.today.monday().add(7 * n)
	return s.span(mon.at(0, s.loc), mon.add(7).at(0, s.loc), Weekly, false)
}

// weekday is ISO weekday wd (1 = Monday) of the week n weeks from this one.
func (s *scanner) weekday(n, wd int) val {
	return s.dayVal(s.today.monday().add(7*n + wd - 1))
}

// bareWeekday is the most recent weekday wd: this week's if it is today or
// has passed, else last week's.
func (s *scanner) bareWeekday(wd int) val {
	n := 0
	if wd > s.today.weekday() {
		n = -1
	}
	v := s.weekday(n, wd)
	v.shift = func() (val, error) { return s.weekday(n-1, wd), nil }
	return v
}

// weekend is Saturday 00:00 to Monday 00:00 of the week n weeks from this
// one.
func (s *scanner) weekend(n int) val {
	sat := s.today.monday().add(7*n + 5)
	return s.span(sat.at(0, s.loc), sat.add(2).at(0, s.loc), Daily, false)
}

// bareWeekend is the most recent weekend: this week's once it has started,
// else last week's.
func (s *scanner) bareWeekend() val {
	if s.today.weekday() >= 6 {
		return s.weekend(0)
	}
	return s.weekend(-1)
}

// Segments of a month and of a year: early, mid and late.
const (
	segEarly = 1
	segMid   = 2
	segLate  = 3
)

// monthSegment is days 1-10, 11-20 or 21 to the end of month m of year y.
func (s *scanner) monthSegment(y int, m time.Month, seg int) val {
	first := civil{y, m, 1}
	next := mkCivil(y, m+1, 1)
	start, end := first, next
	switch seg {
	case segEarly:
		end = civil{y, m, 11}
	case segMid:
		start, end = civil{y, m, 11}, civil{y, m, 21}
	case segLate:
		start = civil{y, m, 21}
	}
	return s.span(start.at(0, s.loc), end.at(0, s.loc), Daily, false)
}

// yearSegment is January-April, May-August or September-December of y.
func (s *scanner) yearSegment(y, seg int) val {
	start := mkCivil(y, time.Month(4*(seg-1)+1), 1)
	end := mkCivil(y, time.Month(4*seg+1), 1)
	return s.span(start.at(0, s.loc), end.at(0, s.loc), Monthly, false)
}

// thisMonthSegment is this month's segment: "月底" and "the end of the
// month" mean this month's end even before it has come.
func (s *scanner) thisMonthSegment(seg int) val {
	return s.monthSegment(s.today.y, s.today.m, seg)
}

// thisYearSegment is this year's segment.
func (s *scanner) thisYearSegment(seg int) val {
	return s.yearSegment(s.today.y, seg)
}

// yearHalf is January-June (half 1) or July-December (half 2) of y.
func (s *scanner) yearHalf(y, half int) val {
	start := civil{y, time.Month(6*(half-1) + 1), 1}
	end := mkCivil(y, time.Month(6*half+1), 1)
	return s.span(start.at(0, s.loc), end.at(0, s.loc), Monthly, false)
}

// weekSegment is Monday-Tuesday (early), Wednesday-Thursday (mid) or
// Friday-Sunday (late) of the ISO week n weeks from this one.
func (s *scanner) weekSegment(n, seg int) val {
	mon := s.today.monday().add(7 * n)
	from := map[int]int{segEarly: 0, segMid: 2, segLate: 4}[seg]
	to := map[int]int{segEarly: 2, segMid: 4, segLate: 7}[seg]
	return s.span(mon.add(from).at(0, s.loc), mon.add(to).at(0, s.loc), Daily, false)
}

// unit is a calendar unit counted in "3 days ago" and "last 3 weeks".
type unit int

const (
	unitHour unit = iota + 1
	unitDay
	unitWeek
	unitMonth
	unitYear
)

func (u unit) granularity() Granularity {
	return map[unit]Granularity{unitHour: Hourly, unitDay: Daily, unitWeek: Weekly, unitMonth: Monthly, unitYear: Yearly}[u]
}

// back returns the time n units before: for hours counted from ref, for
// days and longer from today's midnight.
func (s *scanner) back(n int, u unit) time.Time {
	switch u {
	case unitHour:
		return s.ref.Add(-time.Duration(n) * time.Hour)
	case unitDay:
		return s.today.add(-n).at(0, s.loc)
	case unitWeek:
		return s.today.add(-7*n).at(0, s.loc)
	case unitMonth:
		return s.today.addMonths(-n).at(0, s.loc)
	default:
		return s.today.addMonths(-12*n).at(0, s.loc)
	}
}

// floorHour returns the start of t's hour, even in a zone whose offset is
// not whole hours and in the hour repeated when clocks go back.
func floorHour(t time.Time) time.Time {
	return t.Add(-time.Duration(t.Minute())*time.Minute - time.Duration(t.Second())*time.Second - time.Duration(t.Nanosecond()))
}

// few is how many units "a few", "several" and "几" reach back.
const few = 7

// ago is "n units ago": that hour, day, ISO week, calendar month or calendar
// year. A fuzzy count ("a few days ago", "几天前") is the span from 7 units
// back to 1 unit back.
func (s *scanner) ago(n int, u unit, fuzzy bool) val {
	if fuzzy {
		return s.span(s.back(few, u), s.back(1, u), u.granularity(), true)
	}
	var v val
	switch u {
	case unitHour:
		h := floorHour(s.ref.Add(-time.Duration(n) * time.Hour))
		return s.span(h, h.Add(time.Hour), Hourly, false)
	case unitDay:
		return s.dayVal(s.today.add(-n))
	case unitWeek:
		v = s.weekVal(-n)
	case unitMonth:
		v = s.relMonth(-n)
	default:
		v = s.yearVal(s.today.y - n)
	}
	// "2 weeks ago at 8am" is that day: today's date n units back.
	point := s.today.shift(-n, u)
	v.point = &point
	return v
}

// last is "the last n units": from n units back (hours from ref, longer
// units from today's midnight) up to ref. "The last 3 days" on a Sunday
// afternoon starts on Thursday 00:00. A fuzzy count ("the last few days")
// reaches 7 units back.
func (s *scanner) last(n int, u unit, fuzzy bool) val {
	if fuzzy {
		n = few
	}
	return s.span(s.back(n, u), s.ref, u.granularity(), fuzzy)
}

// Fuzzy phrases; the table is in the package documentation.
type fuzzyKind int

const (
	fuzzyJustNow fuzzyKind = iota + 1
	fuzzyFewDays
	fuzzyFewDaysAgo
	fuzzyRecent
	fuzzyWhileAgo
	fuzzyLongAgo
	fuzzyBefore
)

func (s *scanner) fuzzy(k fuzzyKind) val {
	switch k {
	case fuzzyJustNow:
		return s.span(s.ref.Add(-time.Hour), s.ref, Hourly, true)
	case fuzzyFewDays:
		return s.span(s.back(7, unitDay), s.ref, Daily, true)
	case fuzzyFewDaysAgo:
		return s.span(s.back(7, unitDay), s.back(1, unitDay), Daily, true)
	case fuzzyRecent:
		return s.span(s.back(14, unitDay), s.ref, Daily, true)
	case fuzzyWhileAgo:
		return s.span(s.back(3, unitMonth), s.back(7, unitDay), Weekly, true)
	case fuzzyLongAgo:
		return s.span(s.back(10, unitYear), s.back(3, unitMonth), Yearly, true)
	default: // fuzzyBefore
		return s.span(s.back(1, unitYear), s.ref, Monthly, true)
	}
}

// dayRange is days d1 to d2 of the most recent month in which d1 is not
// after today: "2号到6号", "the 3rd to the 7th".
func (s *scanner) dayRange(text string, d1, d2 int) (val, error) {
	a, err := s.dayOfMonth(text, d1)
	if err != nil {
		return a, err
	}
	b, err := s.dateVal(text, a.date.y, a.date.m, d2)
	if err != nil {
		return b, err
	}
	if d2 < d1 {
		return val{}, invalidDate(text, "the range ends before it starts")
	}
	return s.span(a.r.Start, b.r.End, Daily, false), nil
}
