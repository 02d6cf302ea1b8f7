package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/filter"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/timeparse"
)

// queryPlan is a query after its time phrase and filter are resolved.
type queryPlan struct {
	text          string
	since, before time.Time // the exact window; zero sides are open
	filter        *compiledFilter
	resolved      *core.TimeRange
	now           time.Time
	// scan runs a progressive week-by-week scan over [scanFrom, scanTo);
	// scanIfShort runs one when the plain search finds fewer than top_k
	// hits.
	scan, scanIfShort bool
	scanFrom, scanTo  time.Time
	// outerSince and outerBefore are the window without the time phrase's:
	// the caller's since/before and the filter's time bounds. Recall
	// widens to it when the phrase's window holds nothing relevant.
	outerSince, outerBefore time.Time
}

// planQuery reduces a long q.Text to its question (see sanitizeQuery and
// focusQuery) and resolves its time phrase and the filter expression.
// An exact phrase narrows the window; a fuzzy one asks for a progressive
// scan inside its span.
func (r *reader) planQuery(q core.Query) (*queryPlan, error) {
	text, timeText := focusQuery(sanitizeQuery(strings.TrimSpace(q.Text)))
	p := &queryPlan{text: text, since: q.Since, before: q.Before, now: q.Now}
	if p.now.IsZero() {
		p.now = time.Now()
	}
	if q.Filter != "" {
		expr, err := filter.Parse(q.Filter, p.now.Location())
		if err != nil {
			return nil, fmt.Errorf("%w: %w", core.ErrInvalid, err)
		}
		p.filter = &compiledFilter{expr: expr}
		start, end := filter.TimeBounds(expr)
		p.since, p.before = intersect(p.since, p.before, start, end)
	}
	timeGiven := !p.since.IsZero() || !p.before.IsZero()
	p.outerSince, p.outerBefore = p.since, p.before
	if !q.NoTime {
		if tr, rest, ok := timeparse.Extract(timeText, p.now); ok {
			p.resolved = &core.TimeRange{Start: tr.Start, End: tr.End, Granularity: tr.Granularity.String(), Fuzzy: tr.Fuzzy, Text: tr.Text}
			p.text = strings.TrimSpace(text[:len(text)-len(timeText)] + " " + rest)
			timeGiven = true
			// A vague phrase of days or weeks ("最近", "前段时间", "a while
			// ago") is scanned a week at a time, newest first. One of
			// months or years ("之前", "以前", "earlier", "a long time
			// ago") says little more than "in the past" and only bounds the
			// search: a scan would stop in the newest weeks that hold
			// anything.
			if tr.Fuzzy && tr.Granularity <= timeparse.Weekly {
				p.scan = true
				p.scanFrom, p.scanTo = intersect(p.since, p.before, tr.Start, tr.End)
			} else {
				p.since, p.before = intersect(p.since, p.before, tr.Start, tr.End)
			}
		}
	}
	if !timeGiven && r.cfg.Retriever.EnableProgressiveScan {
		p.scanIfShort = true
	}
	if !p.since.IsZero() && !p.before.IsZero() && !p.since.Before(p.before) {
		// An empty window: nothing can match, which is a valid answer.
		p.before = p.since
	}
	return p, nil
}

// intersect returns the intersection of two half-open windows whose zero
// bounds are open.
func intersect(s1, b1, s2, b2 time.Time) (time.Time, time.Time) {
	since, before := s1, b1
	if !s2.IsZero() && (since.IsZero() || s2.After(since)) {
		since = s2
	}
	if !b2.IsZero() && (before.IsZero() || b2.Before(before)) {
		before = b2
	}
	return since, before
}

// compiledFilter is a filter expression ready for the index and for
// checking chunks.
type compiledFilter struct {
	expr filter.Expr
}

// chunkRecord lets filter.Eval read a stored chunk.
type chunkRecord struct{ c *store.Chunk }

func (r chunkRecord) Time() time.Time { return r.c.StartTime() }

func (r chunkRecord) Values(field string) []string {
	c := r.c
	switch field {
	case "session":
		return []string{c.Session}
	case "namespace":
		return []string{c.NS}
	case "role":
		return c.Roles
	case "speaker":
		return c.Speakers
	case "topic":
		return []string{c.Topic}
	case "id":
		return []string{c.ID}
	case "type":
		return (&core.Chunk{Memories: c.Memories}).MemoryTypes()
	}
	return nil
}

// filterAllow returns the set of chunks in the search's namespace and
// window that match its filter, for the vector search.
func (r *reader) filterAllow(ctx context.Context, ix Lexical, p params) (func(string) bool, error) {
	ids, err := ix.Matching(ctx, index.Search{NS: p.ns, Since: p.since, Before: p.before, Filter: p.filter.expr})
	if err != nil {
		return nil, err
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return func(id string) bool { return set[id] }, nil
}

// checkFilter drops hits whose stored chunk does not satisfy the filter: a
// last line of defence behind the index query.
func (r *reader) checkFilter(f *compiledFilter, hits []cand) ([]cand, error) {
	if f == nil {
		return hits, nil
	}
	kept := hits[:0]
	err := r.st.View(func(tx *store.Tx) error {
		for _, h := range hits {
			c, err := tx.Chunk(h.id)
			if errors.Is(err, core.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if filter.Eval(f.expr, chunkRecord{c}) {
				kept = append(kept, h)
			}
		}
		return nil
	})
	return kept, err
}
