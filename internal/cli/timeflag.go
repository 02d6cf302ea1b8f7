package cli

import (
	"slices"
	"time"
	// The zone database is built in, so that time.zone and --tz work on
	// machines without /usr/share/zoneinfo (containers, Windows).
	_ "time/tzdata"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/jsonl"
	"github.com/huimemory/huimemory/timeparse"
)

// tzFlag adds --tz to a command that reads or shows times.
func (a *App) tzFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.tz, "tz", "", "IANA time zone for now, time phrases and times shown, such as Asia/Shanghai (default time.zone, or the machine's)")
}

// parseTimeFlag reads a time given on the command line: RFC 3339, a date
// and time without offset, a date alone (midnight), all in loc, or a time
// phrase such as "last week" or "上周三", which means the start of the
// range it names, relative to now.
func parseTimeFlag(name, s string, loc *time.Location, now time.Time) (time.Time, error) {
	if t, err := jsonl.ParseTime(s, loc); err == nil {
		return t, nil
	}
	if r, err := timeparse.Parse(s, now.In(loc)); err == nil {
		return r.Start, nil
	}
	return time.Time{}, Usagef("%s %q: want a time such as 2026-04-06, 2026-04-06 15:04, 2026-04-06T15:04:05+08:00 or a phrase such as \"last week\"", name, s)
}

// nowFlag reads --now: empty means the current time. A time without an
// offset is read in cfg's zone (time.zone or --tz). When a zone is set,
// "now" is moved into it, so that time phrases are resolved there even if
// --now was given with another offset; without one, an offset given with
// --now is kept.
func nowFlag(s string, cfg core.Config) (time.Time, error) {
	loc := cfg.Time.Location()
	now := time.Now().In(loc)
	if s == "" {
		return now, nil
	}
	t, err := parseTimeFlag("--now", s, loc, now)
	if err != nil {
		return t, err
	}
	if cfg.Time.Zone != "" {
		t = t.In(loc)
	}
	return t, nil
}

// inZone shows hits' times in the configured zone when one is set
// (time.zone or --tz); otherwise each keeps the offset it was stored with.
func inZone(hits []core.Hit, cfg core.Config) {
	if cfg.Time.Zone == "" {
		return
	}
	loc := cfg.Time.Location()
	for i := range hits {
		c := &hits[i].Chunk
		c.Time, c.End = c.Time.In(loc), c.End.In(loc)
		c.Messages = slices.Clone(c.Messages)
		for j := range c.Messages {
			c.Messages[j].Time = c.Messages[j].Time.In(loc)
		}
	}
}
