package engine

import (
	"context"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/timeparse"
)

// The progressive scan: a vague time phrase searched one ISO week at a
// time, newest first.

// progressive scans week by week, newest first: round 0 is the week that
// holds the end of the scan span (the reference time, or the end of a fuzzy
// phrase's span), and each round steps one ISO week back, up to
// retriever.max_scan_weeks rounds. Each round keeps at most
// retriever.per_week hits; the scan stops once it has k. Hits come back in
// round order; Recall shows them by relevance.
func (r *reader) progressive(ctx context.Context, ix Lexical, q core.Query, plan *queryPlan, k int, res *core.Results) ([]cand, error) {
	rc := r.cfg.Retriever
	loc := plan.now.Location()
	from, to := plan.scanFrom, plan.scanTo
	if !plan.scan {
		from, to = plan.since, plan.before
	}
	if to.IsZero() || to.After(plan.now) {
		to = plan.now
	}
	if !from.IsZero() && !from.Before(to) {
		return nil, nil
	}
	week := timeparse.WeekOf(to.Add(-time.Nanosecond).In(loc))
	var out []cand
	seen := map[string]bool{}
	for round := 0; round < rc.MaxScanWeeks && len(out) < k; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ws, we := week.Range(loc)
		since, before := intersect(ws, we, from, to)
		if !from.IsZero() && !we.After(from) {
			break
		}
		res.ScannedWeeks = append(res.ScannedWeeks, week.String())
		hits, err := r.searchWindow(ctx, ix, plan, q.Namespace, since, before, rc.PerWeek)
		if err != nil {
			return nil, err
		}
		var kept []cand
		for _, h := range hits {
			if len(kept) == rc.PerWeek || len(out)+len(kept) == k {
				break
			}
			if !seen[h.id] {
				seen[h.id] = true
				kept = append(kept, h)
			}
		}
		out = append(out, kept...)
		if q.OnRound != nil {
			round := core.Round{Week: week.String(), Start: ws, End: we}
			if len(kept) > 0 {
				round.Hits, err = r.expand(q.Namespace, kept, 0)
				if err != nil {
					return nil, err
				}
			}
			q.OnRound(round)
		}
		week = week.Prev()
	}
	return out, nil
}
