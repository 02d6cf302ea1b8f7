package vector

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
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

// segmentStart returns the first instant of segment b.
func segmentStart(b int64) time.Time { return time.Unix(0, b*weekNanos+mondayOffset) }

// DefaultCacheBytes is the heap budget of an [Index] whose [Options]
// leave CacheBytes at 0: 512 MiB, half a million 256-dimension vectors
// as float32s, or 1.8 million as codes (see [Codes]).
const DefaultCacheBytes = 512 << 20

// Loader reads the vectors of namespace ns with chunk times in [from, to)
// from the store, calling fn for each in time order. Zero bounds are open.
// id and raw need only be valid during the call to fn: the index copies
// what it keeps, so that a scan makes no string of an id it passes by.
type Loader func(ns string, from, to time.Time, fn func(id []byte, unixNano int64, raw []byte) error) error

// Decoder turns a stored vector into float32s, appending to dst.
type Decoder func(dst []float32, raw []byte) []float32

// Options tune an [Index].
type Options struct {
	// CacheBytes bounds the Go heap the index keeps vectors in (the
	// float32s or codes, ids and times of its cached week segments; a
	// 256-dimension vector takes about 1.1 KB as float32s and 300 bytes
	// as a code). 0 means
	// [DefaultCacheBytes]; a negative value keeps nothing, so that every
	// search reads the store.
	CacheBytes int64
	// Decode turns a stored vector into float32s. Nil means the store
	// holds little-endian float32s (core/store's EncodeVector), which a
	// search then reads in place, without copying, on little-endian
	// machines.
	Decode Decoder
	// Codes, when set, lets searches scan the vectors' int8 codes and
	// rescore the best candidates with their float32s (see [Codes]).
	Codes *Codes
}

// Index is an exact cosine search over the vectors of a store, with a
// bounded cache of week segments in the Go heap. It is safe for
// concurrent use.
//
// A search scans the cached segments it needs from the heap and reads the
// rest from the store through the loader, scoring each vector where the
// loader hands it over (for bbolt, in its memory map) without keeping it.
// A segment is copied into the cache the second time a search needs it,
// and only while the cache stays within its budget: a one-shot process
// copies nothing, and a long-running one keeps what it searches again,
// up to the budget, with the rest read from the store at every search.
// The least recently searched segments leave the cache first, never for
// a segment of the same search, so a corpus larger than the budget does
// not churn the cache.
type Index struct {
	dim    int
	load   Loader
	decode Decoder
	// inPlace is set when stored vectors are read where they lie.
	inPlace bool
	budget  int64
	codes   *Codes
	// ready is set once codes.Ready has said yes: the store then keeps
	// a code for every vector from then on.
	ready atomic.Bool

	mu sync.Mutex
	// code is set while the cache holds codes rather than float32s.
	code bool
	nss  map[string]*nsCache
	used int64  // bytes held by cached segments
	tick uint64 // search counter, for least-recently-used eviction
	// copied counts the bytes searches have copied into segments for
	// the cache, kept or not (CacheStats.Copied).
	copied int64
}

type nsCache struct {
	segs map[int64]*segment
	// seen counts the searches that needed each segment, for admission.
	seen map[int64]uint32
	// version grows with every invalidation of a segment, so that a
	// segment read before an invalidation is not cached after it.
	version map[int64]uint64
	// size is what all of the namespace's vectors would take in the
	// cache, as its last search of all time found; 0 before one. A
	// namespace larger than the budget is not cached for searches of
	// open windows: the cache could hold only part of it, the rest is
	// read from the store at every search anyway, and the part it holds
	// would sit in the heap beside the store's pages the same searches
	// map (measured at 1M chunks: 1 GiB more peak RSS, no faster).
	size int64
}

type segment struct {
	times []int64
	ids   []string
	vecs  []float32 // len(ids)*dim, in a cache of float32s
	// codes and scales hold the vectors' codes in a cache of codes:
	// len(ids)*dim int8s and len(ids) scales.
	codes  []int8
	scales []float32
	// cols holds the codes laid out by dimension, for sparse queries,
	// once a sparse search has asked for them (sparse.go).
	colsOnce sync.Once
	cols     []int8
	bytes    int64
	used     uint64 // tick of the last search that scanned it
}

// window returns the range [i, j) of the segment's vectors with times in
// [lo, hi). A segment that lies wholly inside, as every segment of a
// search of all time does, is answered from its first and last times,
// without a binary search through times that may not be in the caches.
func (s *segment) window(lo, hi int64) (i, j int) {
	n := len(s.times)
	if n == 0 {
		return 0, 0
	}
	if s.times[0] < lo {
		i, _ = slices.BinarySearch(s.times, lo)
	}
	j = n
	if s.times[n-1] >= hi {
		j, _ = slices.BinarySearch(s.times, hi)
	}
	return i, j
}

// New returns an index of dim-dimensional vectors read through load and
// turned into float32s by decode, with the default cache budget. See
// [NewWithOptions].
func New(dim int, load Loader, decode Decoder) *Index {
	return NewWithOptions(dim, load, Options{Decode: decode})
}

// NewWithOptions returns an index of dim-dimensional vectors read through
// load.
func NewWithOptions(dim int, load Loader, o Options) *Index {
	budget := o.CacheBytes
	switch {
	case budget == 0:
		budget = DefaultCacheBytes
	case budget < 0:
		budget = 0
	}
	decode := o.Decode
	if decode == nil {
		decode = appendLE
	}
	return &Index{dim: dim, load: load, decode: decode, inPlace: o.Decode == nil && canView,
		budget: budget, codes: o.Codes, nss: map[string]*nsCache{}}
}

// Dim returns the vector dimension.
func (x *Index) Dim() int { return x.dim }

// CacheStats says what the cache holds.
type CacheStats struct {
	Segments, Vectors int
	Bytes, Budget     int64
	// Copied is how many bytes searches have copied from the store into
	// segments for the cache since the index was made, including copies
	// that did not fit and were dropped.
	Copied int64
}

// Stats returns what the cache holds now.
func (x *Index) Stats() CacheStats {
	x.mu.Lock()
	defer x.mu.Unlock()
	st := CacheStats{Bytes: x.used, Budget: x.budget, Copied: x.copied}
	for _, c := range x.nss {
		for _, s := range c.segs {
			st.Segments++
			st.Vectors += len(s.ids)
		}
	}
	return st
}

func (x *Index) ns(ns string) *nsCache {
	c := x.nss[ns]
	if c == nil {
		c = &nsCache{segs: map[int64]*segment{}, seen: map[int64]uint32{}, version: map[int64]uint64{}}
		x.nss[ns] = c
	}
	return c
}

// Invalidate drops the cached segment that holds time t in namespace ns, so
// that the next search reads it from the store.
func (x *Index) Invalidate(ns string, t time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.ns(ns)
	b := segmentOf(t.UnixNano())
	c.version[b]++
	if s := c.segs[b]; s != nil {
		x.used -= s.bytes
		delete(c.segs, b)
	}
}

// Reset drops everything cached.
func (x *Index) Reset() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.resetLocked()
}

func (x *Index) resetLocked() {
	for _, c := range x.nss {
		for b := range c.segs {
			c.version[b]++
		}
		clear(c.segs)
	}
	x.used = 0
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
	lo, hi := int64(minInt64), int64(maxInt64)
	if !since.IsZero() {
		lo = since.UnixNano()
	}
	if !before.IsZero() {
		hi = before.UnixNano()
	}
	if lo >= hi {
		return nil, nil
	}
	code, err := x.useCodes()
	if err != nil {
		return nil, err
	}
	if code {
		return x.searchCodes(ns, q, lo, hi, k, allow)
	}
	p := x.plan(ns, lo, hi, false)
	h := &topK{k: k}
	dim := x.dim
	for _, s := range p.cached {
		i, j := s.window(lo, hi)
		for ; i < j; i++ {
			if allow != nil && !allow(s.ids[i]) {
				continue
			}
			h.offer(Match{ID: s.ids[i], Time: s.times[i], Score: Dot(q, s.vecs[i*dim:(i+1)*dim])})
		}
	}
	if len(p.gaps) > 0 {
		if err := x.stream(ns, &query{f: q}, p, h, allow); err != nil {
			return nil, err
		}
	}
	return h.sorted(), nil
}

const (
	minInt64 = -1 << 63
	maxInt64 = 1<<63 - 1
)

// gap is a time range [lo, hi) with no cached segment in it, read from the
// store.
type gap struct{ lo, hi int64 }

// plan is what one search reads: cached segments and gaps.
type plan struct {
	cached []*segment
	// keys holds the cached segments' numbers.
	keys []int64
	gaps []gap
	// admit lists the segments to copy into the cache as they are read,
	// with their versions when the search started.
	admit map[int64]uint64
	// room is how many bytes the search may copy: the budget less what
	// the cached segments it uses hold (they cannot be evicted for it).
	// Copying stops there, so that a corpus larger than the budget does
	// not copy, and drop, every admitted segment at every search.
	room int64
	// all is set for a search of all time; cachedBytes is what the
	// cached segments it uses hold, segBytes their mean.
	all                   bool
	cachedBytes, segBytes int64
	tick                  uint64
	// code is set for a search of codes.
	code bool
}

// plan splits [lo, hi) into the cached segments that hold vectors in it
// and the gaps between them, and picks the segments the gaps' reads may
// copy into the cache. code says whether the search scans codes; a cache
// of the other kind is dropped first.
func (x *Index) plan(ns string, lo, hi int64, code bool) *plan {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.code != code {
		x.resetLocked()
		for _, c := range x.nss {
			c.size = 0
			clear(c.seen)
		}
		x.code = code
	}
	x.tick++
	p := &plan{tick: x.tick, all: lo == minInt64 && hi == maxInt64, code: code}
	c := x.ns(ns)
	first, last := int64(minInt64), int64(maxInt64)
	if lo != minInt64 {
		first = segmentOf(lo)
	}
	if hi != maxInt64 {
		last = segmentOf(hi - 1)
	}
	keys := make([]int64, 0, len(c.segs))
	for b := range c.segs {
		if b >= first && b <= last {
			keys = append(keys, b)
		}
	}
	slices.Sort(keys)
	at := lo
	p.room = x.budget
	for _, b := range keys {
		s := c.segs[b]
		s.used = p.tick
		p.room -= s.bytes
		p.cachedBytes += s.bytes
		p.cached = append(p.cached, s)
		p.keys = append(p.keys, b)
		if start := b*weekNanos + mondayOffset; start > at {
			p.gaps = append(p.gaps, gap{at, start})
		}
		at = max(at, (b+1)*weekNanos+mondayOffset)
	}
	if at < hi {
		p.gaps = append(p.gaps, gap{at, hi})
	}
	if len(p.cached) > 0 {
		p.segBytes = p.cachedBytes / int64(len(p.cached))
	}
	// Segments wholly inside a gap are counted as seen; those seen
	// before may be cached. A segment only partly inside the window is
	// not: its read is partial.
	if x.budget > 0 {
		for _, g := range p.gaps {
			if g.lo == minInt64 || g.hi == maxInt64 {
				// An open window: its segments are counted as they are
				// read (see finish). A namespace larger than the budget
				// is not cached for it (see nsCache.size).
				if c.size > x.budget {
					continue
				}
				p.admit = map[int64]uint64{}
				for b, n := range c.seen {
					if n > 0 && segmentWithin(b, g) {
						p.admit[b] = c.version[b]
					}
				}
				continue
			}
			for b := segmentOf(g.lo); b <= segmentOf(g.hi-1); b++ {
				if !segmentWithin(b, g) {
					continue
				}
				if c.seen[b] > 0 {
					if p.admit == nil {
						p.admit = map[int64]uint64{}
					}
					p.admit[b] = c.version[b]
				}
				c.seen[b]++
			}
		}
	}
	return p
}

// segmentWithin reports whether segment b lies wholly inside g.
func segmentWithin(b int64, g gap) bool {
	return b*weekNanos+mondayOffset >= g.lo && (b+1)*weekNanos+mondayOffset <= g.hi
}

// topK keeps the k best matches in a min-heap.
type topK struct {
	k int
	h []scored
}

// scored is a match in a [topK]: for an approximate score (a code's),
// slack bounds its distance from the exact score.
type scored struct {
	Match
	slack float32
}

func worse(a, b Match) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Time < b.Time
}

func (t *topK) offer(m Match) { t.offerApprox(m, 0) }

// admits reports whether a match of this score and time would be kept,
// so that a scan builds the matches it keeps only.
func (t *topK) admits(score float32, unixNano int64) bool {
	return len(t.h) < t.k || worse(t.h[0].Match, Match{Score: score, Time: unixNano})
}

// offerApprox offers a match whose score is within slack of its exact
// score.
func (t *topK) offerApprox(m Match, slack float32) {
	if len(t.h) < t.k {
		t.h = append(t.h, scored{m, slack})
		t.up(len(t.h) - 1)
		return
	}
	if worse(t.h[0].Match, m) {
		t.h[0] = scored{m, slack}
		t.down(0)
	}
}

// floor returns the score a match must reach to be admitted, the
// lowest score in the heap once it is full, or -Inf before. A match that
// scores less is not admitted, so a scan passes it by with one
// comparison (admits decides a match that scores the floor exactly).
func (t *topK) floor() float32 {
	if len(t.h) < t.k {
		return float32(math.Inf(-1))
	}
	return t.h[0].Score
}

// up restores the heap order after a match was appended at j, and down
// after the match at i was replaced by a better one. They make the moves
// container/heap's up and down make, without its calls through
// heap.Interface and moving the match once, to where its swaps would
// leave it, so that even matches that tie on score and time are kept as
// container/heap keeps them.
func (t *topK) up(j int) {
	h := t.h
	m := h[j]
	for j > 0 {
		i := (j - 1) / 2 // parent
		if !worse(m.Match, h[i].Match) {
			break
		}
		h[j] = h[i]
		j = i
	}
	h[j] = m
}

func (t *topK) down(i int) {
	h := t.h
	n := len(h)
	m := h[i]
	for {
		// The left child; j < 0 after an int overflow.
		j := 2*i + 1
		if j >= n || j < 0 {
			break
		}
		if j2 := j + 1; j2 < n && worse(h[j2].Match, h[j].Match) {
			j = j2 // right child
		}
		if !worse(h[j].Match, m.Match) {
			break
		}
		h[i] = h[j]
		i = j
	}
	h[i] = m
}

func (t *topK) sorted() []Match {
	if len(t.h) == 0 {
		return nil
	}
	out := make([]Match, len(t.h))
	for i, s := range t.h {
		out[i] = s.Match
	}
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

// floats returns the float32s of chunk id's stored vector raw: raw itself
// where vectors are read in place, else raw decoded into *scratch, which
// is reused from call to call. It fails when the dimension is not the
// index's.
func floats[ID string | []byte](x *Index, id ID, raw []byte, scratch *[]float32) ([]float32, error) {
	var v []float32
	if x.inPlace && len(raw)%4 == 0 {
		v = view(raw)
	} else {
		*scratch = x.decode((*scratch)[:0], raw)
		v = *scratch
	}
	if len(v) != x.dim {
		return nil, fmt.Errorf("vector of chunk %s has dimension %d, want %d", id, len(v), x.dim)
	}
	return v, nil
}

// codeOf returns the int8s and the scale of chunk id's stored code raw. It
// fails when raw is not a code of the index's dimension.
func codeOf[ID string | []byte](x *Index, id ID, raw []byte) ([]int8, float32, error) {
	if len(raw) != CodeSize(x.dim) {
		return nil, 0, fmt.Errorf("code of chunk %s has %d bytes, want %d", id, len(raw), CodeSize(x.dim))
	}
	return codeInt8s(raw, x.dim), codeScale(raw, x.dim), nil
}
