package tools

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
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

// forgetListed bounds the messages [FormatForget] lists.
const forgetListed = 20

// FormatForget renders what forget_memory did or, in a dry run, would do.
func FormatForget(r *engine.ForgetResult) string {
	var b strings.Builder
	n, s := len(r.Messages), len(r.Sessions)
	switch {
	case n == 0:
		b.WriteString("Nothing matches: no message was forgotten.\n")
		return b.String()
	case r.DryRun:
		fmt.Fprintf(&b, "Dry run: forgetting would remove %d %s from %d %s. Nothing was changed.\n", n, plural(n, "message", "messages"), s, plural(s, "session", "sessions"))
	default:
		fmt.Fprintf(&b, "Forgot %d %s from %d %s for good (%d %s removed, %d re-cut).\n", n, plural(n, "message", "messages"), s, plural(s, "session", "sessions"),
			r.ChunksRemoved, plural(r.ChunksRemoved, "turn", "turns"), r.ChunksChanged)
	}
	for i, m := range r.Messages {
		if i == forgetListed {
			fmt.Fprintf(&b, "… and %d more\n", n-i)
			break
		}
		who := cmp.Or(m.Speaker, m.Role)
		fmt.Fprintf(&b, "- %s %s %s: %s\n", m.Session, m.Time.Format("2006-01-02 15:04"), who, m.Preview)
	}
	if r.DryRun {
		b.WriteString("To forget them, call forget_memory again with the same selector and without dry_run, once the user confirms.\n")
	}
	return b.String()
}

// FormatSessions renders list_sessions' result.
func FormatSessions(l *SessionList) string {
	var b strings.Builder
	if l.Total == 0 {
		fmt.Fprintf(&b, "No sessions in namespace %s match.\n", l.Namespace)
		return b.String()
	}
	fmt.Fprintf(&b, "%d %s in namespace %s, newest first", l.Total, plural(l.Total, "session", "sessions"), l.Namespace)
	if len(l.Sessions) < l.Total {
		fmt.Fprintf(&b, " (the newest %d)", len(l.Sessions))
	}
	b.WriteString(":\n")
	for _, s := range l.Sessions {
		closed := ""
		if s.Closed {
			closed = ", closed"
		}
		fmt.Fprintf(&b, "- %s: %s .. %s, %d %s in %d %s%s\n", s.Session, s.First.Format("2006-01-02 15:04"), s.Last.Format("2006-01-02 15:04"),
			s.Messages, plural(s.Messages, "message", "messages"), s.Chunks, plural(s.Chunks, "turn", "turns"), closed)
	}
	b.WriteString("Call export_session with a session id to read it.\n")
	return b.String()
}

// FormatStats renders memory_stats' result.
func FormatStats(s *NamespaceStats) string {
	if s.Sessions == 0 {
		return fmt.Sprintf("Namespace %s holds nothing yet (embedder %s).\n", s.Namespace, s.Embedder)
	}
	return fmt.Sprintf("Namespace %s holds %d %s in %d %s and %d %s, from %s to %s (embedder %s).\n",
		s.Namespace, s.Messages, plural(s.Messages, "message", "messages"), s.Sessions, plural(s.Sessions, "session", "sessions"),
		s.Chunks, plural(s.Chunks, "turn", "turns"), s.First.Format("2006-01-02 15:04 -07:00"), s.Last.Format("2006-01-02 15:04 -07:00"), s.Embedder)
}

// FormatTime renders resolve_time's result.
func FormatTime(r *TimeRange) string {
	start, _ := time.Parse(time.RFC3339, r.Start)
	end, _ := time.Parse(time.RFC3339, r.End)
	s := fmt.Sprintf("%q means %s (%s to %s, granularity %s).\n", r.Text, FormatRange(start, end), cmp.Or(r.Start, "open"), r.End, r.Granularity)
	if r.Fuzzy {
		s += "It is vague: recall_memory searches it one week at a time, newest first.\n"
	}
	return s
}

// FormatExport renders export_session's result.
func FormatExport(x *SessionExport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s (namespace %s), %d %s", x.Session, x.Namespace, x.Messages, plural(x.Messages, "message", "messages"))
	if x.Format == ExportJSONL {
		b.WriteString(" as JSON Lines:\n\n")
		b.WriteString(x.JSONL)
		return b.String()
	}
	fmt.Fprintf(&b, " in %d %s:\n\n", len(x.hits), plural(len(x.hits), "turn", "turns"))
	render.Chunks(&b, x.hits)
	return b.String()
}
