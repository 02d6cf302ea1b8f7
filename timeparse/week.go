package timeparse

import (
	"fmt"
	"strconv"
	"time"
)

// Week is an ISO 8601 week: weeks start on Monday, and week 1 of a year is
// the week that holds the year's first Thursday. Year is the ISO
// week-numbering year, which differs from the calendar year for a few days
// around New Year: 2027-01-01 is in 2026-W53.
//
// The archive files sessions by Week, and the progressive scan walks Weeks
// backwards with [Week.Prev].
type Week struct {
	Year, Week int
}

// WeekOf returns the ISO week that holds t, in t's own location.
func WeekOf(t time.Time) Week {
	y, w := t.ISOWeek()
	return Week{Year: y, Week: w}
}

// String formats w as "2026-W47", with the week zero-padded to two digits.
func (w Week) String() string {
	return fmt.Sprintf("%04d-W%02d", w.Year, w.Week)
}

// Range returns the week's Monday 00:00 and the next Monday 00:00 in loc;
// the end is exclusive. Both are local midnights computed with [time.Date],
// so a week that holds a daylight-saving change is 167 or 169 hours long.
// A Week outside its year's range, such as 2025-W53, counts on from the
// year's last week: 2025-W53 is the same range as 2026-W01.
func (w Week) Range(loc *time.Location) (start, end time.Time) {
	m := w.monday()
	return m.at(0, loc), m.add(7).at(0, loc)
}

// Prev returns the week before w.
func (w Week) Prev() Week {
	return WeekOf(w.monday().add(-7).noon())
}

// Next returns the week after w.
func (w Week) Next() Week {
	return WeekOf(w.monday().add(7).noon())
}

// monday returns the Monday that starts w.
func (w Week) monday() civil {
	// 4 January is always in week 1.
	jan4 := civil{w.Year, time.January, 4}
	return jan4.monday().add(7 * (w.Week - 1))
}

// weeksIn returns the number of ISO weeks in year: 52 or 53.
func weeksIn(year int) int {
	// 28 December is always in the year's last week.
	_, w := time.Date(year, time.December, 28, 12, 0, 0, 0, time.UTC).ISOWeek()
	return w
}

// ParseWeek parses an ISO week written as "2026-W47" (the "W" may be lower
// case). The week must exist: 2026-W53 does, 2025-W53 does not. Errors give
// the 1-based column of the problem.
func ParseWeek(s string) (Week, error) {
	fail := func(col int, format string, args ...any) (Week, error) {
		return Week{}, fmt.Errorf("timeparse: invalid week %q at column %d: %s", s, col, fmt.Sprintf(format, args...))
	}
	for i := 0; i < 4; i++ {
		if i >= len(s) || !isDigit(s[i]) {
			return fail(i+1, "expected a four-digit year")
		}
	}
	if len(s) < 5 || s[4] != '-' {
		return fail(5, `expected "-"`)
	}
	if len(s) < 6 || (s[5] != 'W' && s[5] != 'w') {
		return fail(6, `expected "W"`)
	}
	for i := 6; i < 8; i++ {
		if i >= len(s) || !isDigit(s[i]) {
			return fail(i+1, "expected a two-digit week")
		}
	}
	if len(s) > 8 {
		return fail(9, "unexpected %q after the week", s[8:])
	}
	y, _ := strconv.Atoi(s[:4])
	n, _ := strconv.Atoi(s[6:8])
	if n < 1 || n > weeksIn(y) {
		return fail(7, "%d has weeks 01 to %d", y, weeksIn(y))
	}
	return Week{Year: y, Week: n}, nil
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
