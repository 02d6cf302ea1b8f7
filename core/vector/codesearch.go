package vector

import (
	"cmp"
	"fmt"
	"slices"
)

// Searching codes. A search of a store that keeps
// a code beside every vector (code.go) scans the codes, a quarter of the
// float32s' bytes, keeping the poolSize(k) best candidates by their
// approximate scores; then it reads those candidates' float32 vectors by
// key and rescores them exactly, returning the k best with their exact
// scores. The result is the exact search's as long as the exact top k
// are among the pool: an approximate score is within about
// s*(|q|_1/2) of the exact one (s, the code's scale, is max|v_i|/127),
// a few thousandths for a 256-dimension unit vector, while the pool
// reaches 64 or more ranks below the k-th (see docs/quantised-scan.md
// for how often that misses).

// Codes gives an [Index] the stored vectors' codes and their float32s by
// key; core/engine builds it over core/store. The functions must be safe
// for concurrent use.
type Codes struct {
	// Ready reports whether the store holds a code for every vector.
	// Until it does, searches scan float32s; once it says so, it is
	// not asked again (a store that has codes for all its vectors
	// writes one with every vector from then on).
	Ready func() (bool, error)
	// Load reads the codes of namespace ns with chunk times in [from,
	// to), as a [Loader] reads vectors: in time order, the bytes valid
	// only during the call to fn.
	Load Loader
	// Fetch reads the stored vectors (as a [Loader] hands them over) of
	// the chunks of namespace ns at keys, which come in store order
	// (time, then id), calling fn with each key's index. A key whose
	// vector is gone (removed meanwhile) is passed by.
	Fetch Fetcher
}

// Key names a stored vector: its chunk's id and time in Unix
// nanoseconds.
type Key struct {
	ID   string
	Time int64
}

// Fetcher reads stored vectors by key; see [Codes].
type Fetcher func(ns string, keys []Key, fn func(i int, raw []byte) error) error

// poolSize is how many candidates a search of codes rescores for k
// results: enough that an approximate score's error, a few thousandths,
// does not push one of the exact top k out of the pool.
var poolSize = func(k int) int { return max(4*k, k+64) }

// useCodes reports whether a search scans codes.
func (x *Index) useCodes() (bool, error) {
	if x.codes == nil {
		return false, nil
	}
	if x.ready.Load() {
		return true, nil
	}
	ok, err := x.codes.Ready()
	if err != nil {
		return false, fmt.Errorf("checking the vectors' codes: %w", err)
	}
	if ok {
		x.ready.Store(true)
	}
	return ok, nil
}

// searchCodes is [Index.Search] over codes, with exact rescoring.
func (x *Index) searchCodes(ns string, q []float32, lo, hi int64, k int, allow func(id string) bool) ([]Match, error) {
	qu := &query{f: q, q: quantizeQuery(q)}
	p := x.plan(ns, lo, hi, true)
	pool := &topK{k: poolSize(k)}
	var sums [scanBlock]int32
	sparse := len(qu.q.nz) <= sparseMax(x.dim)
	// Newest first: of two codes that tie, the pool keeps the newer, so a
	// code that ties the pool's floor (as the many zeros of a sparse
	// query do) is passed by, where oldest first each one would replace
	// the oldest in the pool.
	for n := len(p.cached) - 1; n >= 0; n-- {
		s := p.cached[n]
		var cols []int8
		if sparse {
			cols = x.columns(ns, p.keys[n], s, p.tick)
		}
		i, j := s.window(lo, hi)
		for ; j > i; j -= scanBlock {
			scanCodes(&qu.q, s, cols, max(i, j-scanBlock), j, x.dim, sums[:], pool, allow)
		}
	}
	if len(p.gaps) > 0 {
		if err := x.stream(ns, qu, p, pool, allow); err != nil {
			return nil, err
		}
	}
	return x.rescore(ns, q, pool.h, k)
}

// scanBlock is how many codes of a cached segment scanCodes scores in
// one call of [dotsI8]: 64 KiB of codes at 256 dimensions.
const scanBlock = 256

// scanCodes offers the codes i to j-1 of cached segment s (j-i at most
// len(sums)) to pool by their approximate scores. It scores them in one
// batch into sums, from the segment's columns if cols holds them (a
// sparse query's search; see sparse.go), else by rows; then, newest
// first, it passes by every code that the pool, once full, would not
// admit, with one comparison against the pool's floor and before the
// caller's filter. What the pool holds afterwards is what offering the
// codes one at a time, newest first, leaves in it.
func scanCodes(q *qQuery, s *segment, cols []int8, i, j, dim int, sums []int32, pool *topK, allow func(string) bool) {
	sums = sums[:j-i]
	if cols != nil {
		sumColumns(q, cols, len(s.ids), i, j, sums)
	} else {
		dotsI8(q.q16, s.codes[i*dim:j*dim], sums)
	}
	scales, times, ids := s.scales[i:j], s.times[i:j], s.ids[i:j]
	floor := pool.floor()
	for r := len(sums) - 1; r >= 0; r-- {
		score := q.score(sums[r], scales[r])
		if score < floor || !pool.admits(score, times[r]) || allow != nil && !allow(ids[r]) {
			continue
		}
		pool.offerApprox(Match{ID: ids[r], Time: times[r], Score: score}, q.slack(scales[r]))
		floor = pool.floor()
	}
}

// rescore reads the float32 vectors of the candidates that can be among
// the k best (reachable) and returns the k best by their exact scores.
func (x *Index) rescore(ns string, q []float32, cands []scored, k int) ([]Match, error) {
	cands = reachable(cands, k)
	if len(cands) == 0 {
		return nil, nil
	}
	slices.SortFunc(cands, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.ID, b.ID))
	})
	keys := make([]Key, len(cands))
	for i, c := range cands {
		keys[i] = Key{ID: c.ID, Time: c.Time}
	}
	h := &topK{k: k}
	var scratch []float32
	err := x.codes.Fetch(ns, keys, func(i int, raw []byte) error {
		v, err := floats(x, keys[i].ID, raw, &scratch)
		if err != nil {
			return err
		}
		h.offer(Match{ID: keys[i].ID, Time: keys[i].Time, Score: Dot(q, v)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the vectors of %d candidates in namespace %q: %w", len(keys), ns, err)
	}
	return h.sorted(), nil
}

// reachable drops the candidates that cannot be among the k best by
// exact score, so that rescore reads fewer vectors and returns the same
// matches. Every candidate's exact score lies within its slack of its
// approximate score (qQuery.slack), so at least k candidates score at
// least t, the k-th largest of score-slack, and one whose score+slack is
// below t scores less than each of them. On a 10,000-chunk home (hash
// embedder, k 40, a pool of 160) about a third of the pool is kept.
func reachable(cands []scored, k int) []scored {
	if len(cands) <= k {
		return cands
	}
	lows := make([]float32, len(cands))
	for i, c := range cands {
		lows[i] = c.Score - c.slack
	}
	slices.Sort(lows)
	t := lows[len(lows)-k]
	kept := cands[:0]
	for _, c := range cands {
		if c.Score+c.slack >= t {
			kept = append(kept, c)
		}
	}
	return kept
}
