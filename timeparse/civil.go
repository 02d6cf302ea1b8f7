package timeparse

import "time"

// civil is a calendar date with no time zone. All calendar arithmetic is
// done on civil dates at noon UTC, where no daylight-saving change can move
// a day, and only the final boundaries are placed in the reference
// location with [time.Date].
type civil struct {
	y int
	m time.Month
	d int
}

// mkCivil normalises y-m-d the way [time.Date] does: 2026-11-32 is
// 2026-12-02.
func mkCivil(y int, m time.Month, d int) civil {
	t := time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
	return civil{t.Year(), t.Month(), t.Day()}
}

func civilOf(t time.Time) civil {
	y, m, d := t.Date()
	return civil{y, m, d}
}

func (c civil) noon() time.Time { return time.Date(c.y, c.m, c.d, 12, 0, 0, 0, time.UTC) }

// add moves c by n days.
func (c civil) add(n int) civil { return mkCivil(c.y, c.m, c.d+n) }

// addMonths moves c by n months, keeping the day where the target month
// has it and using the month's last day otherwise (31 May - 3 months is
// 28 or 29 February).
func (c civil) addMonths(n int) civil {
	first := mkCivil(c.y, c.m+time.Month(n), 1)
	return civil{first.y, first.m, min(c.d, daysIn(first.y, first.m))}
}

// shift moves c by n units of u (days, weeks, months or years; hours do
// not move a date).
func (c civil) shift(n int, u unit) civil {
	switch u {
	case unitDay:
		return c.add(n)
	case unitWeek:
		return c.add(7 * n)
	case unitMonth:
		return c.addMonths(n)
	case unitYear:
		return c.addMonths(12 * n)
	}
	return c
}

// weekday returns the ISO weekday: 1 is Monday, 7 is Sunday.
func (c civil) weekday() int {
	wd := int(c.noon().Weekday())
	if wd == 0 {
		return 7
	}
	return wd
}

// monday returns the Monday of c's ISO week.
func (c civil) monday() civil { return c.add(1 - c.weekday()) }

// at returns hour h of day c in loc. Hours past 23 run into the following
// days, as with [time.Date].
func (c civil) at(h int, loc *time.Location) time.Time {
	return time.Date(c.y, c.m, c.d, h, 0, 0, 0, loc)
}

// daysIn returns the number of days in month m of year y.
func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 12, 0, 0, 0, time.UTC).Day()
}
