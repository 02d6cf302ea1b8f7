package vector

import (
	"container/heap"
	"fmt"
	"slices"
	"sync"
	"time"
)

// weekNanos is the length of a segment.
const weekNanos = int64(7 * 24 * time.Hour)

// mondayOffset aligns segments on Mondays 00:00 UTC (1970-01-05 was one).
const mondayOffset = int64(4 * 24 * time.Hour)

func segmentOf(unixNano int64) int64 {
	d := unixNano - mondayOffset
	if d < 0 {
		return (d+1)/weekNanos - 1
	}
	return d / weekNanos
}

// Loader reads the vectors of namespace ns with chunk times in [from, to)
// from the store, calling fn for each in time order. Zero bounds are open.
type Loader func(ns string, from, to time.Time, fn func(id string, unixNano int64, raw []byte) error) error

// Decoder turns a stored vector into float32s, appending to dst.
type Decoder func(dst []float32, raw []byte) []float32

// Index is a cache of vectors with exact cosine search. It is safe for
// concurrent use.
type Index struct {
	dim    int
	load   Loader
	decode Decoder

	mu  sync.Mutex
	nss map[string]*nsCache
}

type nsCache struct {
	// complete means every segment that holds vectors has an entry in segs.
	complete bool
	segs     map[int64]*segment
}

type segment struct {
	stale bool
	times []int64
	ids   []string
	vecs  []float32 // len(ids)*dim
}

// New returns an empty index of dim-dimensional vectors read through load.
func New(dim int, load Loader, decode Decoder) *Index {
	return &Index{dim: dim, load: load, decode: decode, nss: map[string]*nsCache{}}
}

// Dim returns the vector dimension.
func (x *Index) Dim() int { return x.dim }

// Invalidate drops the cached segment that holds time t in namespace ns, so
// that the next search reloads it from the store.
func (x *Index) Invalidate(ns string, t time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.nss[ns]
	if c == nil {
		return
	}
	b := segmentOf(t.UnixNano())
	if s := c.segs[b]; s != nil {
		s.stale = true
	} else {
		c.segs[b] = &segment{stale: true}
	}
}

// Reset drops everything cached.
func (x *Index) Reset() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.nss = map[string]*nsCache{}
}

// Match is one search result.
type Match struct {
	ID    string
	Time  int64 // Unix nanoseconds
	Score float32
}

// Search returns the k chunks of namespace ns, with times in [since,
// before), whose vectors are closest to q, best first; ties go to the newer
// chunk. allow, when set, must return true for a chunk to be considered.
func (x *Index) Search(ns string, q []float32, since, before time.Time, k int, allow func(id string) bool) ([]Match, error) {
	if len(q) != x.dim {
		return nil, fmt.Errorf("query vector has dimension %d, want %d", len(q), x.dim)
	}
	if k <= 0 {
		return nil, nil
	}
	segs, err := x.segments(ns, since, before)
	if err != nil {
		return nil, err
	}
	lo, hi := int64(minInt64), int64(maxInt64)
	if !since.IsZero() {
		lo = since.UnixNano()
	}
	if !before.IsZero() {
		hi = before.UnixNano()
	}
	h := &topK{k: k}
	dim := x.dim
	for _, s := range segs {
		i, _ := slices.BinarySearch(s.times, lo)
		j, _ := slices.BinarySearch(s.times, hi)
		for ; i < j; i++ {
			if allow != nil && !allow(s.ids[i]) {
				continue
			}
			score := Dot(q, s.vecs[i*dim:(i+1)*dim])
			h.offer(Match{ID: s.ids[i], Time: s.times[i], Score: score})
		}
	}
	return h.sorted(), nil
}

const (
	minInt64 = -1 << 63
	maxInt64 = 1<<63 - 1
)

// segments returns the fresh segments that overlap [since, before),
// loading what is missing or stale.
func (x *Index) segments(ns string, since, before time.Time) ([]*segment, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.nss[ns]
	if c == nil {
		c = &nsCache{segs: map[int64]*segment{}}
		x.nss[ns] = c
	}
	bounded := !since.IsZero() && !before.IsZero()
	var first, last int64
	if bounded {
		first, last = segmentOf(since.UnixNano()), segmentOf(before.UnixNano()-1)
	}
	if !bounded || last-first > 104 {
		// Open or long windows read the whole namespace once.
		if !c.complete {
			if err := x.loadAll(ns, c); err != nil {
				return nil, err
			}
		}
		var out []*segment
		keys := make([]int64, 0, len(c.segs))
		for b := range c.segs {
			keys = append(keys, b)
		}
		slices.Sort(keys)
		for _, b := range keys {
			if bounded && (b < first || b > last) {
				continue
			}
			s, err := x.fresh(ns, c, b)
			if err != nil {
				return nil, err
			}
			if s != nil {
				out = append(out, s)
			}
		}
		return out, nil
	}
	var out []*segment
	for b := first; b <= last; b++ {
		if _, ok := c.segs[b]; !ok && c.complete {
			continue // known to be empty
		}
		s, err := x.fresh(ns, c, b)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// fresh returns segment b of namespace ns, loading it if it is missing or
// stale; nil if it holds nothing.
func (x *Index) fresh(ns string, c *nsCache, b int64) (*segment, error) {
	s := c.segs[b]
	if s != nil && !s.stale {
		if len(s.ids) == 0 {
			return nil, nil
		}
		return s, nil
	}
	from := time.Unix(0, b*weekNanos+mondayOffset)
	to := time.Unix(0, (b+1)*weekNanos+mondayOffset)
	s = &segment{}
	err := x.load(ns, from, to, func(id string, t int64, raw []byte) error {
		return x.appendVec(s, id, t, raw)
	})
	if err != nil {
		return nil, fmt.Errorf("loading vectors of namespace %q: %w", ns, err)
	}
	c.segs[b] = s
	if len(s.ids) == 0 {
		return nil, nil
	}
	return s, nil
}

func (x *Index) loadAll(ns string, c *nsCache) error {
	segs := map[int64]*segment{}
	err := x.load(ns, time.Time{}, time.Time{}, func(id string, t int64, raw []byte) error {
		b := segmentOf(t)
		s := segs[b]
		if s == nil {
			s = &segment{}
			segs[b] = s
		}
		return x.appendVec(s, id, t, raw)
	})
	if err != nil {
		return fmt.Errorf("loading vectors of namespace %q: %w", ns, err)
	}
	c.segs = segs
	c.complete = true
	return nil
}

func (x *Index) appendVec(s *segment, id string, t int64, raw []byte) error {
	n := len(s.vecs)
	s.vecs = x.decode(s.vecs, raw)
	if len(s.vecs)-n != x.dim {
		return fmt.Errorf("vector of chunk %s has dimension %d, want %d", id, len(s.vecs)-n, x.dim)
	}
	s.times = append(s.times, t)
	s.ids = append(s.ids, id)
	return nil
}

// topK keeps the k best matches in a min-heap.
type topK struct {
	k int
	h []Match
}

func worse(a, b Match) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Time < b.Time
}

func (t *topK) Len() int           { return len(t.h) }
func (t *topK) Less(i, j int) bool { return worse(t.h[i], t.h[j]) }
func (t *topK) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *topK) Push(v any)         { t.h = append(t.h, v.(Match)) }
func (t *topK) Pop() any           { v := t.h[len(t.h)-1]; t.h = t.h[:len(t.h)-1]; return v }

func (t *topK) offer(m Match) {
	if len(t.h) < t.k {
		heap.Push(t, m)
		return
	}
	if worse(t.h[0], m) {
		t.h[0] = m
		heap.Fix(t, 0)
	}
}

func (t *topK) sorted() []Match {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b Match) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return out
}
