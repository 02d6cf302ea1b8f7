package filter_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/huimemory/huimemory/core/filter"
)

// chunk is a stored chunk as the engine might see it.
type chunk struct {
	at       time.Time
	role     string
	speakers []string
}

func (c chunk) Time() time.Time { return c.at }

func (c chunk) Values(field string) []string {
	switch field {
	case "role":
		return []string{c.role}
	case "speaker":
		return c.speakers
	}
	return nil
}

func Example() {
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	e, err := filter.Parse(`timestamp >= '2026-04-06' AND timestamp <= '2026-04-12' AND role = 'user'`, shanghai)
	if err != nil {
		panic(err)
	}
	start, end := filter.TimeBounds(e)
	fmt.Println("scan", start.Format(time.DateTime), "to", end.Format(time.DateTime))

	c := chunk{at: time.Date(2026, 4, 12, 23, 30, 0, 0, shanghai), role: "user"}
	fmt.Println("match:", filter.Eval(e, c))

	_, err = filter.Parse(`sesion = 's1'`, shanghai)
	var se *filter.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.Column, err)
	}
	// Output:
	// scan 2026-04-06 00:00:00 to 2026-04-13 00:00:00
	// match: true
	// 1 filter: unknown field "sesion" at column 1
}
