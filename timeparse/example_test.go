package timeparse_test

import (
	"fmt"
	"time"

	"github.com/huimemory/huimemory/timeparse"
)

func ExampleParse() {
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	// A Sunday: "上周三" is Wednesday of the previous ISO week.
	ref := time.Date(2026, 11, 29, 15, 4, 0, 0, shanghai)
	r, err := timeparse.Parse("上周三下午", ref)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Start, "to", r.End, r.Granularity)

	_, err = timeparse.Parse("2月30日", ref)
	fmt.Println(err)
	// Output:
	// 2026-11-18 12:00:00 +0800 CST to 2026-11-18 18:00:00 +0800 CST hour
	// timeparse: invalid date "2月30日": February has 28 days in 2026
}

func ExampleExtract() {
	newYork, _ := time.LoadLocation("America/New_York")
	ref := time.Date(2026, 11, 29, 15, 4, 0, 0, newYork)
	r, rest, ok := timeparse.Extract("what did we discuss last Wednesday afternoon?", ref)
	fmt.Println(ok, r.Text)
	fmt.Println(r.Start.Format(time.DateTime), "to", r.End.Format(time.DateTime))
	fmt.Println(rest)
	// Output:
	// true last Wednesday afternoon
	// 2026-11-18 12:00:00 to 2026-11-18 18:00:00
	// what did we discuss?
}

func ExampleWeekOf() {
	ref := time.Date(2026, 11, 29, 15, 4, 0, 0, time.UTC)
	w := timeparse.WeekOf(ref)
	start, end := w.Range(time.UTC)
	fmt.Println(w, w.Prev(), start.Format(time.DateOnly), end.Format(time.DateOnly))
	// Output:
	// 2026-W48 2026-W47 2026-11-23 2026-11-30
}
