package timeparse

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWeekOf(t *testing.T) {
	loc := mustLoad(t, "Asia/Shanghai")
	tests := []struct {
		date string
		want string
	}{
		{"2026-11-18", "2026-W47"},
		{"2026-11-29", "2026-W48"}, // a Sunday ends its week
		{"2026-11-30", "2026-W49"},
		{"2026-01-01", "2026-W01"}, // a Thursday: week 1 of 2026
		{"2025-12-29", "2026-W01"}, // Monday of 2026-W01
		{"2026-12-31", "2026-W53"}, // 2026 has 53 weeks
		{"2027-01-03", "2026-W53"},
		{"2027-01-04", "2027-W01"},
		{"2021-01-03", "2020-W53"},
		{"2024-12-30", "2025-W01"},
		{"2026-03-05", "2026-W10"},
	}
	for _, tc := range tests {
		got := WeekOf(wall(t, tc.date, loc)).String()
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("WeekOf(%s) mismatch (-want +got):\n%s", tc.date, diff)
		}
	}
}

func TestWeekRangePrevNext(t *testing.T) {
	ny := mustLoad(t, "America/New_York")
	tests := []struct {
		week       Week
		start, end string // local wall clock
		length     time.Duration
		prev, next string
	}{
		{Week{2026, 47}, "2026-11-16", "2026-11-23", 168 * time.Hour, "2026-W46", "2026-W48"},
		{Week{2026, 44}, "2026-10-26", "2026-11-02", 169 * time.Hour, "2026-W43", "2026-W45"}, // clocks go back
		{Week{2026, 10}, "2026-03-02", "2026-03-09", 167 * time.Hour, "2026-W09", "2026-W11"}, // clocks go forward
		{Week{2026, 1}, "2025-12-29", "2026-01-05", 168 * time.Hour, "2025-W52", "2026-W02"},
		{Week{2026, 53}, "2026-12-28", "2027-01-04", 168 * time.Hour, "2026-W52", "2027-W01"},
		{Week{2027, 1}, "2027-01-04", "2027-01-11", 168 * time.Hour, "2026-W53", "2027-W02"},
		{Week{2021, 1}, "2021-01-04", "2021-01-11", 168 * time.Hour, "2020-W53", "2021-W02"},
	}
	for _, tc := range tests {
		t.Run(tc.week.String(), func(t *testing.T) {
			start, end := tc.week.Range(ny)
			got := []time.Time{start, end}
			w := []time.Time{wall(t, tc.start, ny), wall(t, tc.end, ny)}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("Range mismatch (-want +got):\n%s", diff)
			}
			if l := end.Sub(start); l != tc.length {
				t.Errorf("Range is %v long, want %v", l, tc.length)
			}
			if diff := cmp.Diff([]string{tc.prev, tc.next}, []string{tc.week.Prev().String(), tc.week.Next().String()}); diff != "" {
				t.Errorf("Prev, Next mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseWeek(t *testing.T) {
	tests := []struct {
		in   string
		want Week
		err  string
	}{
		{"2026-W47", Week{2026, 47}, ""},
		{"2026-w01", Week{2026, 1}, ""},
		{"2026-W53", Week{2026, 53}, ""},
		{"2025-W53", Week{}, `timeparse: invalid week "2025-W53" at column 7: 2025 has weeks 01 to 52`},
		{"2026-W00", Week{}, `timeparse: invalid week "2026-W00" at column 7: 2026 has weeks 01 to 53`},
		{"2026-W5", Week{}, `timeparse: invalid week "2026-W5" at column 8: expected a two-digit week`},
		{"2026W47", Week{}, `timeparse: invalid week "2026W47" at column 5: expected "-"`},
		{"2026-47", Week{}, `timeparse: invalid week "2026-47" at column 6: expected "W"`},
		{"26-W47", Week{}, `timeparse: invalid week "26-W47" at column 3: expected a four-digit year`},
		{"2026-W47x", Week{}, `timeparse: invalid week "2026-W47x" at column 9: unexpected "x" after the week`},
		{"", Week{}, `timeparse: invalid week "" at column 1: expected a four-digit year`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseWeek(tc.in)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if diff := cmp.Diff(tc.err, msg); diff != "" {
				t.Errorf("ParseWeek(%q) error mismatch (-want +got):\n%s", tc.in, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseWeek(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			if err == nil && got.String() != tc.in && tc.in != "2026-w01" {
				t.Errorf("ParseWeek(%q).String() = %q", tc.in, got.String())
			}
		})
	}
}

// TestWeekWalk walks ten years of weeks forwards and backwards and checks
// that each week starts where the previous one ended.
func TestWeekWalk(t *testing.T) {
	loc := mustLoad(t, "America/New_York")
	w := Week{2020, 1}
	for i := 0; i < 530; i++ {
		_, end := w.Range(loc)
		next := w.Next()
		start, _ := next.Range(loc)
		if !start.Equal(end) {
			t.Fatalf("%v ends at %v but %v starts at %v", w, end, next, start)
		}
		if next.Prev() != w {
			t.Fatalf("%v.Next().Prev() = %v", w, next.Prev())
		}
		if WeekOf(start) != next {
			t.Fatalf("WeekOf(%v) = %v, want %v", start, WeekOf(start), next)
		}
		w = next
	}
}
