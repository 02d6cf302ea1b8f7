package filter

import (
	"strings"
	"time"
)

// Record is what an expression is evaluated against: one stored chunk.
type Record interface {
	// Time returns the record's timestamp.
	Time() time.Time
	// Values returns the record's values of a string field, such as
	// "speaker" or "type". A field may hold several values, or none.
	Values(field string) []string
}

// Eval reports whether record r satisfies e. A nil e is satisfied by every
// record. On a field with several values, = is true if any value equals the
// one given and != is true if none does. Eval is safe for concurrent use.
func Eval(e Expr, r Record) bool {
	switch e := e.(type) {
	case nil:
		return true
	case *And:
		return Eval(e.L, r) && Eval(e.R, r)
	case *Or:
		return Eval(e.L, r) || Eval(e.R, r)
	case *Not:
		return !Eval(e.X, r)
	case *Compare:
		return e.eval(r)
	}
	return false
}

func (c *Compare) eval(r Record) bool {
	k := fields[c.Field]
	if k == kindTime {
		t := r.Time()
		in := (c.Start.IsZero() || !t.Before(c.Start)) && (c.End.IsZero() || t.Before(c.End))
		if c.Op == Ne {
			return !in
		}
		return in
	}
	found := false
	for _, v := range r.Values(c.Field) {
		if k == kindFolded {
			v = strings.ToLower(v)
		}
		if v == c.Value {
			found = true
			break
		}
	}
	switch c.Op {
	case Eq:
		return found
	case Ne:
		return !found
	}
	return false
}

// TimeBounds returns the tightest half-open interval [start, end) that
// holds the timestamp of every record that can satisfy e, so that the
// engine can narrow its scan. A zero start is unbounded below and a zero
// end unbounded above. AND intersects the intervals of its sides, OR takes
// the smallest interval holding both, and NOT bounds what it can: NOT
// timestamp < D is [D, ∞), while NOT timestamp = D is unbounded. When no
// timestamp can match, as in "timestamp < '2026-01-01' AND timestamp >
// '2026-02-01'", start equals end and both are set.
func TimeBounds(e Expr) (start, end time.Time) {
	b := boundsOf(e, false)
	if b.empty {
		return b.lo, b.lo
	}
	return b.lo, b.hi
}

// interval is a set of instants [lo, hi), with zero ends unbounded.
type interval struct {
	lo, hi time.Time
	empty  bool
}

var everything = interval{}

// boundsOf returns the bounds of e, or of NOT e when negated.
func boundsOf(e Expr, negated bool) interval {
	switch e := e.(type) {
	case *And:
		l, r := boundsOf(e.L, negated), boundsOf(e.R, negated)
		if negated { // NOT (a AND b) = NOT a OR NOT b
			return hull(l, r)
		}
		return intersect(l, r)
	case *Or:
		l, r := boundsOf(e.L, negated), boundsOf(e.R, negated)
		if negated { // NOT (a OR b) = NOT a AND NOT b
			return intersect(l, r)
		}
		return hull(l, r)
	case *Not:
		return boundsOf(e.X, !negated)
	case *Compare:
		if fields[e.Field] != kindTime {
			return everything
		}
		in := interval{lo: e.Start, hi: e.End}
		if e.Op == Ne {
			negated = !negated
		}
		if !negated {
			return in
		}
		// The complement of [lo, hi) is one interval only when one side
		// is unbounded.
		switch {
		case in.lo.IsZero() && in.hi.IsZero():
			return interval{empty: true}
		case in.lo.IsZero():
			return interval{lo: in.hi}
		case in.hi.IsZero():
			return interval{hi: in.lo}
		}
	}
	return everything
}

func intersect(a, b interval) interval {
	if a.empty {
		return a
	}
	if b.empty {
		return b
	}
	out := a
	if out.lo.IsZero() || (!b.lo.IsZero() && b.lo.After(out.lo)) {
		out.lo = b.lo
	}
	if out.hi.IsZero() || (!b.hi.IsZero() && b.hi.Before(out.hi)) {
		out.hi = b.hi
	}
	if !out.lo.IsZero() && !out.hi.IsZero() && !out.hi.After(out.lo) {
		return interval{lo: out.lo, empty: true}
	}
	return out
}

func hull(a, b interval) interval {
	if a.empty {
		return b
	}
	if b.empty {
		return a
	}
	out := a
	if b.lo.IsZero() || (!out.lo.IsZero() && b.lo.Before(out.lo)) {
		out.lo = b.lo
	}
	if b.hi.IsZero() || (!out.hi.IsZero() && b.hi.After(out.hi)) {
		out.hi = b.hi
	}
	return out
}
