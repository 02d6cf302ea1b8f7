package main

import (
	"time"

	"github.com/huimemory/huimemory/core/jsonl"
)

// parseTimeFlag reads a time given on the command line: RFC 3339, a date
// and time without offset, or a date alone (midnight), in loc.
func parseTimeFlag(name, s string, loc *time.Location) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t, nil
	}
	t, err := jsonl.ParseTime(s, loc)
	if err != nil {
		return time.Time{}, usagef("%s %q: want a time such as 2026-04-06, 2026-04-06 15:04 or 2026-04-06T15:04:05+08:00", name, s)
	}
	return t, nil
}
