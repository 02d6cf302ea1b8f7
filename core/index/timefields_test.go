package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/huimemory/huimemory/core/filter"
)

// TestDateRangeIsExact checks that a time window, given as a search's
// since and before or as a filter's timestamp comparison, matches
// exactly the chunks whose times lie in it: at day, hour and nanosecond
// boundaries, in zones off UTC by hours and half hours, across a year
// and a leap day, open on either side, and for random windows.
func TestDateRangeIsExact(t *testing.T) {
	x := openTest(t)
	base := time.Date(2024, 2, 28, 22, 0, 0, 0, time.UTC)
	var times []time.Time
	for _, d := range []time.Duration{0, time.Nanosecond, time.Second, time.Minute, 59 * time.Minute,
		time.Hour - time.Nanosecond, time.Hour, 2 * time.Hour, 2*time.Hour - time.Nanosecond,
		26 * time.Hour, 26*time.Hour + 30*time.Minute, 49*time.Hour + time.Millisecond, 30 * 24 * time.Hour,
		-time.Nanosecond, -24 * time.Hour, 400 * 24 * time.Hour} {
		times = append(times, base.Add(d))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		times = append(times, base.Add(time.Duration(r.Int64N(int64(60*24*time.Hour)))-10*24*time.Hour))
	}
	docs := make([]Doc, len(times))
	for i, tm := range times {
		docs[i] = Doc{ID: fmt.Sprintf("c%03d", i), Time: tm.In(time.FixedZone("", 8*3600)), Text: "memo"}
	}
	if err := x.Apply(docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	want := func(since, before time.Time) []string {
		var ids []string
		for _, d := range docs {
			if (since.IsZero() || !d.Time.Before(since)) && (before.IsZero() || d.Time.Before(before)) {
				ids = append(ids, d.ID)
			}
		}
		return ids
	}
	india := time.FixedZone("IST", 5*3600+1800)
	type window struct{ since, before time.Time }
	windows := []window{
		{base, base.Add(time.Hour)},
		{base, base.Add(24 * time.Hour)},
		{base.Add(time.Nanosecond), base.Add(2*time.Hour - time.Nanosecond)},
		{base.Add(-time.Nanosecond), base},
		{base, base},
		{base.Add(time.Hour), base},
		{base.Add(30 * time.Minute), base.Add(50 * time.Hour)},
		{time.Date(2024, 2, 29, 0, 0, 0, 0, india), time.Date(2024, 3, 1, 0, 0, 0, 0, india)},
		{time.Date(2024, 2, 26, 0, 0, 0, 0, india), time.Date(2024, 3, 4, 0, 0, 0, 0, india)},
		{time.Date(2024, 3, 1, 13, 0, 0, 0, time.FixedZone("", 8*3600)), time.Date(2024, 3, 1, 18, 0, 0, 0, time.FixedZone("", 8*3600))},
		{base, time.Time{}},
		{time.Time{}, base},
		{time.Time{}, base.Add(time.Nanosecond)},
		{base.Add(26*time.Hour + 30*time.Minute), time.Time{}},
		{base.Add(-24 * 365 * time.Hour), base.Add(24 * 365 * time.Hour)},
	}
	for range 100 {
		a := base.Add(time.Duration(r.Int64N(int64(60*24*time.Hour))) - 10*24*time.Hour)
		windows = append(windows, window{a, a.Add(time.Duration(r.Int64N(int64(10 * 24 * time.Hour))))})
	}
	ctx := context.Background()
	for i, w := range windows {
		got, err := x.Matching(ctx, Search{Since: w.since, Before: w.before})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if diff := cmp.Diff(want(w.since, w.before), got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("window %d [%v, %v) (-want +got):\n%s", i, w.since, w.before, diff)
		}
		// The same window as a filter expression, and with a text query.
		if !w.since.IsZero() && !w.before.IsZero() {
			f := &filter.And{L: &filter.Compare{Field: "timestamp", Start: w.since}, R: &filter.Compare{Field: "timestamp", End: w.before}}
			got, err := x.Matching(ctx, Search{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if diff := cmp.Diff(want(w.since, w.before), got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("filter %d [%v, %v) (-want +got):\n%s", i, w.since, w.before, diff)
			}
		}
		ms, err := x.Search(ctx, Search{Text: "memo", Since: w.since, Before: w.before, Size: len(docs)})
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != len(want(w.since, w.before)) {
			t.Errorf("window %d: a text search found %d chunks, want %d", i, len(ms), len(want(w.since, w.before)))
		}
		for _, m := range ms {
			if m.Score <= 0 || m.Score != ms[0].Score {
				t.Errorf("window %d: chunk %s scores %v, the first %v: the window must not score", i, m.ID, m.Score, ms[0].Score)
				break
			}
		}
	}
}

// FuzzDateRange checks the window decomposition without an index: a time
// matches DateRange(since, before) exactly when its day, hour or exact
// term falls in one of the query's term ranges, and that must be exactly
// when it lies in [since, before).
func FuzzDateRange(f *testing.F) {
	base := time.Date(2024, 2, 28, 22, 0, 0, 0, time.UTC).UnixNano()
	f.Add(base, int64(time.Hour), int64(30*time.Minute), false, false)
	f.Add(base+1, int64(50*time.Hour), int64(-time.Nanosecond), false, false)
	f.Add(base, int64(0), int64(time.Hour), true, false)
	f.Add(base, int64(24*time.Hour), int64(25*time.Hour), false, true)
	f.Fuzz(func(t *testing.T, since, span, probe int64, openLo, openHi bool) {
		// Times within a few centuries of 2024, so that the layouts keep
		// four-digit years.
		const century = int64(100 * 365 * 24 * time.Hour)
		since = base + since%(2*century)
		lo, hi := time.Unix(0, since).UTC(), time.Unix(0, since).UTC().Add(time.Duration(span%century))
		at := time.Unix(0, since+probe%(2*century)).UTC()
		if openLo {
			lo = time.Time{}
		}
		if openHi {
			hi = time.Time{}
		}
		want := (lo.IsZero() || !at.Before(lo)) && (hi.IsZero() || at.Before(hi))
		if got := matchesTime(DateRange(lo, hi), at); got != want {
			t.Errorf("[%v, %v) and %v: DateRange matches %v, want %v", lo, hi, at, got, want)
		}
	})
}

// matchesTime evaluates a DateRange query on the terms a chunk at t gets.
func matchesTime(q query.Query, t time.Time) bool {
	switch q := q.(type) {
	case *query.MatchAllQuery:
		return true
	case *query.MatchNoneQuery:
		return false
	case *query.DisjunctionQuery:
		for _, d := range q.Disjuncts {
			if matchesTime(d, t) {
				return true
			}
		}
		return false
	case *query.TermRangeQuery:
		layout := map[string]string{fieldDay: dayLayout, fieldHour: hourLayout, fieldAt: atLayout}[q.FieldVal]
		// bleve's defaults: the minimum is inclusive, the maximum not.
		term := timeTerm(t, layout)
		above := q.Min == "" || term > q.Min || term == q.Min && (q.InclusiveMin == nil || *q.InclusiveMin)
		below := q.Max == "" || term < q.Max || term == q.Max && q.InclusiveMax != nil && *q.InclusiveMax
		return above && below
	}
	panic(fmt.Sprintf("unexpected query %T", q))
}
