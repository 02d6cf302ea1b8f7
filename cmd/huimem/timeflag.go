package main

import (
	"time"

	"github.com/huimemory/huimemory/core/jsonl"
	"github.com/huimemory/huimemory/timeparse"
)

// parseTimeFlag reads a time given on the command line: RFC 3339, a date
// and time without offset, a date alone (midnight), all in loc, or a time
// phrase such as "last week" or "上周三", which means the start of the
// range it names, relative to now.
func parseTimeFlag(name, s string, loc *time.Location, now time.Time) (time.Time, error) {
	if t, err := jsonl.ParseTime(s, loc); err == nil {
		return t, nil
	}
	if r, err := timeparse.Parse(s, now); err == nil {
		return r.Start, nil
	}
	return time.Time{}, usagef("%s %q: want a time such as 2026-04-06, 2026-04-06 15:04, 2026-04-06T15:04:05+08:00 or a phrase such as \"last week\"", name, s)
}
