package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/render"
)

// FormatRecall renders a recall as the text an LLM reads: a line that says
// how many turns were found and where the search looked, the turns in
// HuiMemory's result format (anchors included), and a hint on walking the
// conversation. When nothing was found it says so plainly, with the range
// or weeks searched.
func FormatRecall(res *core.Results) string {
	var b strings.Builder
	hits := 0
	for i := range res.Hits {
		if res.Hits[i].ContextRole != core.RoleNeighbor {
			hits++
		}
	}
	scope := Scope(res)
	if hits == 0 {
		fmt.Fprintf(&b, "No memories found for %q (searched %s). Nothing stored matches this query: do not guess; say that you do not remember, or search again with other keywords or a wider time range.\n", res.Query, scope)
		return b.String()
	}
	fmt.Fprintf(&b, "Found %d %s for %q (searched %s).\n\n", hits, plural(hits, "memory", "memories"), res.Query, scope)
	render.Hits(&b, res.Hits)
	b.WriteString("\nTo read the turn before or after one of these, call recall_by_id with its prev or next id. Cite the ids you use.\n")
	return b.String()
}

// Scope describes where a recall searched: "all of memory", a resolved
// time range, or the weeks a progressive scan visited, and whether recall
// widened past the range because it held nothing relevant.
func Scope(res *core.Results) string {
	var parts []string
	if t := res.ResolvedTime; t != nil {
		s := FormatRange(t.Start, t.End)
		if t.Text != "" {
			s = fmt.Sprintf("%q: %s", t.Text, s)
		}
		parts = append(parts, s)
	}
	if n := len(res.ScannedWeeks); n > 0 {
		if n == 1 {
			parts = append(parts, "week "+res.ScannedWeeks[0])
		} else {
			parts = append(parts, fmt.Sprintf("%d weeks, newest first: %s .. %s", n, res.ScannedWeeks[0], res.ScannedWeeks[n-1]))
		}
	}
	if len(parts) == 0 {
		return "all of memory"
	}
	if res.Widened {
		parts = append(parts, "nothing relevant there, so widened to other times")
	}
	return strings.Join(parts, "; ")
}

// FormatRange renders the half-open range [start, end) for a reader:
// whole days as dates ("2026-11-16 .. 2026-11-22"), otherwise with clock
// times ("2026-11-18 12:00 .. 18:00"), followed by the UTC offset. A range
// open at the start reads "up to 2026-04-08" (or "before 2026-04-09
// 15:00").
func FormatRange(start, end time.Time) string {
	midnight := func(t time.Time) bool { return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 }
	zone := " (UTC" + start.Format("-07:00") + ")"
	switch {
	case start.IsZero() && !end.IsZero(): // "before April 9", "截至上周五"
		zone = " (UTC" + end.Format("-07:00") + ")"
		if midnight(end) {
			return "up to " + end.AddDate(0, 0, -1).Format(time.DateOnly) + zone
		}
		return "before " + end.Format("2006-01-02 15:04") + zone
	case start.IsZero() || end.IsZero():
		return "an open range"
	case midnight(start) && midnight(end):
		last := end.AddDate(0, 0, -1)
		if last.Format(time.DateOnly) == start.Format(time.DateOnly) {
			return start.Format(time.DateOnly) + zone
		}
		return start.Format(time.DateOnly) + " .. " + last.Format(time.DateOnly) + zone
	case start.Format(time.DateOnly) == end.Format(time.DateOnly):
		return start.Format("2006-01-02 15:04") + " .. " + end.Format("15:04") + zone
	}
	return start.Format("2006-01-02 15:04") + " .. " + end.Format("2006-01-02 15:04") + zone
}

// FormatTurns renders turns fetched by id (recall_by_id).
func FormatTurns(hits []core.Hit) string {
	var b strings.Builder
	render.Chunks(&b, hits)
	b.WriteString("\nCall recall_by_id with a prev or next id to keep walking this conversation.\n")
	return b.String()
}

// FormatStored renders what remember stored.
func FormatStored(s *Stored) string {
	if s.Ingest.Added == 0 {
		return fmt.Sprintf("Already remembered: this message was stored before (session %s).\n", s.Message.Session)
	}
	return fmt.Sprintf("Remembered in session %s at %s.\n", s.Message.Session, s.Message.Time.Format(time.RFC3339))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
