package vector

import (
	"fmt"
	"slices"
	"time"
)

// Reading the store: the gaps a search finds between cached segments are
// streamed from the store, scored as they come, and the admitted
// segments are copied into the cache within its budget.

// query is what a search scores vectors against: the float32 query f,
// and for a search of codes (plan.code) its quantised form.
type query struct {
	f []float32
	q qQuery
}

// stream reads the plan's gaps from the store, scoring each vector (or,
// for a search of codes, each code) as it comes and copying the admitted
// segments.
func (x *Index) stream(ns string, q *query, p *plan, h *topK, allow func(string) bool) error {
	dim := x.dim
	load := x.load
	if p.code {
		load = x.codes.Load
	}
	var scratch []float32
	var building map[int64]*segment
	var copied, streamed int64
	// est is what a segment takes, for not starting a copy that would not
	// fit: the cached segments' mean, then the largest copied so far;
	// start is copied when the segment being copied began.
	est, start := p.segBytes, int64(-1)
	seen := map[int64]bool{}
	for _, g := range p.gaps {
		var from, to time.Time
		if g.lo != minInt64 {
			from = time.Unix(0, g.lo)
		}
		if g.hi != maxInt64 {
			to = time.Unix(0, g.hi)
		}
		open := g.lo == minInt64 || g.hi == maxInt64
		// The vectors come in time order, so a segment's bookkeeping is
		// done once, at its first vector: cur is the segment being read,
		// s its copy (nil: not copied).
		cur, curOK := int64(0), false
		var s *segment
		err := load(ns, from, to, func(id []byte, t int64, raw []byte) error {
			var v []float32
			var c []int8
			var cs float32
			var err error
			if p.code {
				c, cs, err = codeOf(x, id, raw)
			} else {
				v, err = floats(x, id, raw, &scratch)
			}
			if err != nil {
				return err
			}
			vb := vectorBytes(dim, len(id), p.code)
			streamed += vb
			if p.admit != nil || open {
				if b := segmentOf(t); !curOK || b != cur {
					cur, curOK, s = b, true, nil
					if open && !seen[b] && segmentWithin(b, g) {
						seen[b] = true
					}
					if _, ok := p.admit[b]; ok {
						if building == nil {
							building = map[int64]*segment{}
						}
						if s = building[b]; s == nil {
							if start >= 0 {
								est = max(est, copied-start) // the one before is complete
							}
							if copied+est < p.room {
								start = copied
								s = &segment{}
								building[b] = s
							}
						}
					}
				}
			}
			var sid string // id as a string, made once and only if kept
			if s != nil {
				sid = string(id)
				s.times = append(s.times, t)
				s.ids = append(s.ids, sid)
				if p.code {
					s.codes = append(s.codes, c...)
					s.scales = append(s.scales, cs)
				} else {
					s.vecs = append(s.vecs, v...)
				}
				copied += vb
			}
			if allow != nil {
				if sid == "" {
					sid = string(id)
				}
				if !allow(sid) {
					return nil
				}
			}
			var score, slack float32
			if p.code {
				score, slack = q.q.approx(c, cs), q.q.slack(cs)
			} else {
				score = Dot(q.f, v)
			}
			if h.admits(score, t) {
				if sid == "" {
					sid = string(id)
				}
				h.offerApprox(Match{ID: sid, Time: t, Score: score}, slack)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("reading vectors of namespace %q: %w", ns, err)
		}
	}
	x.finish(ns, p, building, seen, copied, streamed)
	return nil
}

// finish records the segments an open search saw and caches the admitted
// segments it read, within the budget.
func (x *Index) finish(ns string, p *plan, building map[int64]*segment, seen map[int64]bool, copied, streamed int64) {
	if x.budget <= 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.copied += copied
	if x.code != p.code {
		return // the cache changed kind meanwhile (plan)
	}
	c := x.ns(ns)
	if p.all {
		c.size = streamed + p.cachedBytes
	}
	for b := range seen {
		c.seen[b]++
	}
	keys := make([]int64, 0, len(building))
	for b := range building {
		keys = append(keys, b)
	}
	slices.Sort(keys)
	for _, b := range keys {
		s := building[b]
		if c.version[b] != p.admit[b] || c.segs[b] != nil {
			continue // invalidated or cached meanwhile
		}
		s.bytes = segmentBytes(s, x.dim, p.code)
		s.used = p.tick
		if !x.makeRoom(s.bytes, p.tick) {
			continue
		}
		s.vecs, s.codes, s.scales = slices.Clip(s.vecs), slices.Clip(s.codes), slices.Clip(s.scales)
		c.segs[b] = s
		x.used += s.bytes
	}
}

// segmentBytes estimates the heap a cached segment holds, of codes if
// code is set.
func segmentBytes(s *segment, dim int, code bool) int64 {
	b := int64(64)
	for _, id := range s.ids {
		b += vectorBytes(dim, len(id), code)
	}
	return b
}

// vectorBytes is what one vector takes in a cached segment: its float32s
// (or, if code is set, its code: dim int8s and a float32 scale), its
// time, its id's string header and idLen bytes.
func vectorBytes(dim, idLen int, code bool) int64 {
	v := int64(4 * dim)
	if code {
		v = int64(CodeSize(dim))
	}
	return v + 8 + 16 + int64(idLen)
}

// makeRoom evicts least recently searched segments, never one the search
// at tick used, until n more bytes fit the budget; it reports whether
// they do. x.mu is held.
func (x *Index) makeRoom(n int64, tick uint64) bool {
	if n > x.budget {
		return false
	}
	for x.used+n > x.budget {
		var victim *segment
		var vc *nsCache
		var vb int64
		for _, c := range x.nss {
			for b, s := range c.segs {
				if s.used < tick && (victim == nil || s.used < victim.used) {
					victim, vc, vb = s, c, b
				}
			}
		}
		if victim == nil {
			return false
		}
		delete(vc.segs, vb)
		x.used -= victim.bytes
	}
	return true
}
