package index

import (
	"time"

	"github.com/blevesearch/bleve/v2/search/query"
)

// A chunk's time is indexed as three keyword terms, in UTC: its day
// ("20260413"), its hour ("2026041315") and the time itself to the
// nanosecond ("20260413150405.123456789"). Each layout has a fixed width,
// so that the terms sort as the times do and a time window is a few
// ranges of terms: the whole days inside it, the whole hours around
// them, and the exact times of the hours it cuts (DateRange).
//
// Until index version 6 the time was a bleve datetime field, which
// indexes sixteen numeric terms per document, eight or more of them
// unique to it: building and merging their postings took a sixth of a
// bulk ingest's CPU, and a window searched the same kind of term ranges.
const (
	fieldDay  = "tday"
	fieldHour = "thour"
	fieldAt   = "tat"

	dayLayout  = "20060102"
	hourLayout = "2006010215"
	atLayout   = "20060102150405.000000000"
)

// timeTerm formats t in UTC with one of the layouts above.
func timeTerm(t time.Time, layout string) string { return t.UTC().Format(layout) }

// DateRange returns a query for chunk times in [since, before); a zero
// bound leaves that side open, and two zero bounds match every chunk. The
// query never scores (its boost is zero): it is a filter.
func DateRange(since, before time.Time) query.Query {
	if since.IsZero() && before.IsZero() {
		return query.NewMatchAllQuery()
	}
	var parts []query.Query
	coverDays(since.UTC(), before.UTC(), &parts)
	switch len(parts) {
	case 0:
		return query.NewMatchNoneQuery()
	case 1:
		return parts[0]
	}
	d := query.NewDisjunctionQuery(parts)
	d.SetBoost(0)
	return d
}

// coverDays appends term ranges that match [lo, hi) exactly (a zero
// bound is open): whole days by their day term, and what is left at
// either end by coverHours.
func coverDays(lo, hi time.Time, parts *[]query.Query) {
	if !lo.IsZero() && !hi.IsZero() && !lo.Before(hi) {
		return
	}
	d1, d2 := ceilTo(lo, 24*time.Hour), hi.Truncate(24*time.Hour)
	if !lo.IsZero() && !hi.IsZero() && !d1.Before(d2) {
		coverHours(lo, hi, parts) // no whole day inside
		return
	}
	*parts = append(*parts, termRange(fieldDay, d1, d2, dayLayout))
	if !lo.IsZero() && lo.Before(d1) {
		coverHours(lo, d1, parts)
	}
	if !hi.IsZero() && d2.Before(hi) {
		coverHours(d2, hi, parts)
	}
}

// coverHours appends term ranges that match [lo, hi), both set and lo
// before hi, exactly: whole hours by their hour term, the rest by the
// exact time.
func coverHours(lo, hi time.Time, parts *[]query.Query) {
	h1, h2 := ceilTo(lo, time.Hour), hi.Truncate(time.Hour)
	if !h1.Before(h2) {
		*parts = append(*parts, termRange(fieldAt, lo, hi, atLayout))
		return
	}
	*parts = append(*parts, termRange(fieldHour, h1, h2, hourLayout))
	if lo.Before(h1) {
		*parts = append(*parts, termRange(fieldAt, lo, h1, atLayout))
	}
	if h2.Before(hi) {
		*parts = append(*parts, termRange(fieldAt, h2, hi, atLayout))
	}
}

// ceilTo rounds t up to a multiple of d since the zero time (UTC days
// and hours); a zero t stays zero.
func ceilTo(t time.Time, d time.Duration) time.Time {
	if t.IsZero() {
		return t
	}
	if f := t.Truncate(d); !f.Equal(t) {
		return f.Add(d)
	}
	return t
}

// termRange matches the terms of field from lo's to hi's (exclusive) in
// layout; a zero bound is open.
func termRange(field string, lo, hi time.Time, layout string) query.Query {
	var min, max string
	if !lo.IsZero() {
		min = timeTerm(lo, layout)
	}
	if !hi.IsZero() {
		max = timeTerm(hi, layout)
	}
	t, f := true, false
	q := query.NewTermRangeInclusiveQuery(min, max, &t, &f)
	q.SetField(field)
	q.SetBoost(0)
	return q
}
