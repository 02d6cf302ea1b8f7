package vector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// codeStore is a memStore that also serves codes and vectors by key, as
// core/engine does over core/store; it counts what it reads.
type codeStore struct {
	*memStore
	codes          map[string][]byte // by id
	byID           map[string]row
	raws           map[string][]byte // by id
	ready          bool
	mu             sync.Mutex // guards the counts, for concurrent searches
	codeReads      int
	fetches, calls int
}

func (c *codeStore) count(n *int) {
	c.mu.Lock()
	*n++
	c.mu.Unlock()
}

func newCodeStore(m *memStore) *codeStore {
	cs := &codeStore{memStore: m, codes: map[string][]byte{}, byID: map[string]row{}, raws: map[string][]byte{}, ready: true}
	for _, r := range m.rows {
		cs.codes[r.id] = appendCode(nil, r.vec)
		cs.byID[r.id] = r
		cs.raws[r.id] = encode(r.vec)
	}
	return cs
}

func (c *codeStore) options(budget int64) Options {
	return Options{CacheBytes: budget, Codes: &Codes{
		Ready: func() (bool, error) { return c.ready, nil },
		Load:  c.loadCodes,
		Fetch: c.fetch,
	}}
}

func (c *codeStore) loadCodes(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
	i := 0
	var idb []byte
	if !from.IsZero() {
		i = sort.Search(len(c.rows), func(i int) bool { return c.rows[i].t >= from.UnixNano() })
	}
	for _, r := range c.rows[i:] {
		if !to.IsZero() && r.t >= to.UnixNano() {
			break
		}
		if r.ns != ns {
			continue
		}
		c.count(&c.codeReads)
		idb = append(idb[:0], r.id...) // one buffer, as in memStore.load
		if err := fn(idb, r.t, c.codes[r.id]); err != nil {
			return err
		}
	}
	return nil
}

func (c *codeStore) fetch(ns string, keys []Key, fn func(int, []byte) error) error {
	c.count(&c.calls)
	for i, k := range keys {
		if i > 0 && (keys[i-1].Time > k.Time || keys[i-1].Time == k.Time && keys[i-1].ID >= k.ID) {
			return fmt.Errorf("keys out of store order at %d", i)
		}
		r, ok := c.byID[k.ID]
		if !ok || r.t != k.Time || r.ns != ns {
			continue
		}
		c.count(&c.fetches)
		if err := fn(i, c.raws[r.id]); err != nil {
			return err
		}
	}
	return nil
}

// clusteredStore is a corpus with near-duplicates, as real chats have:
// n vectors around a few centres, some of them repeated exactly.
func clusteredStore(n, dim int, start time.Time) *memStore {
	r := rand.New(rand.NewPCG(11, 12))
	centres := make([][]float32, 8)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(r.NormFloat64())
		}
	}
	m := &memStore{}
	for i := 0; i < n; i++ {
		v := slices.Clone(centres[r.IntN(len(centres))])
		if r.IntN(10) > 0 { // one in ten is a centre exactly
			for j := range v {
				v[j] += float32(0.3 * r.NormFloat64())
			}
		}
		Normalize(v)
		m.rows = append(m.rows, row{id: fmt.Sprintf("c%06d", i), t: start.Add(time.Duration(i) * time.Hour).UnixNano(), vec: v})
	}
	return m
}

// TestCodeSearchIsExact compares searches of codes with the exact scan of
// float32s: the same ids in the same order, with the same scores.
func TestCodeSearchIsExact(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	windows := [][2]time.Time{
		{},
		{start.Add(30 * time.Hour), start.Add(500 * time.Hour)},
		{start.Add(1000 * time.Hour), {}},
		{{}, start.Add(2000 * time.Hour)},
		{start.Add(24 * 7 * time.Hour), start.Add(24 * 14 * time.Hour)},
	}
	allows := map[string]func(string) bool{
		"all":     nil,
		"odd":     func(id string) bool { return id[len(id)-1]%2 == 1 },
		"few":     func(id string) bool { return id[len(id)-2:] == "00" },
		"nothing": func(string) bool { return false },
	}
	for _, tt := range []struct {
		name   string
		m      *memStore
		dim    int
		budget int64
	}{
		{"random 300", randomStore(300, 16, start), 16, 0},
		{"random 3000", randomStore(3000, 64, start), 64, 0},
		{"random 3000 uncached", randomStore(3000, 64, start), 64, -1},
		{"random 3000 small cache", randomStore(3000, 64, start), 64, 60000},
		{"random 20000 dim 256", randomStore(20000, 256, start), 256, 0},
		{"clustered 5000 dim 256", clusteredStore(5000, 256, start), 256, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := newCodeStore(tt.m)
			exact := NewWithOptions(tt.dim, tt.m.load, Options{CacheBytes: -1})
			x := NewWithOptions(tt.dim, tt.m.load, cs.options(tt.budget))
			r := rand.New(rand.NewPCG(13, 14))
			for round := range 3 { // the second and third rounds meet a warm cache
				for wi, w := range windows {
					for name, allow := range allows {
						for _, k := range []int{1, 10, 50, 300} {
							q := slices.Clone(tt.m.rows[r.IntN(len(tt.m.rows))].vec)
							if round == 2 { // a query that is no stored vector
								for i := range q {
									q[i] += float32(r.NormFloat64())
								}
								Normalize(q)
							}
							want, err := exact.Search("", q, w[0], w[1], k, allow)
							if err != nil {
								t.Fatal(err)
							}
							got, err := x.Search("", q, w[0], w[1], k, allow)
							if err != nil {
								t.Fatal(err)
							}
							if diff := cmp.Diff(want, got); diff != "" {
								t.Fatalf("round %d, window %d, allow %s, k=%d (-exact +codes):\n%s", round, wi, name, k, diff)
							}
						}
					}
				}
			}
			if cs.codeReads == 0 || cs.calls == 0 {
				t.Errorf("the searches read %d codes and fetched vectors %d times: codes were not used", cs.codeReads, cs.calls)
			}
			if st := x.Stats(); tt.budget > 0 && st.Bytes > tt.budget {
				t.Errorf("cache holds %d bytes, budget %d", st.Bytes, tt.budget)
			}
		})
	}
}

// TestCodeSearchReads checks what a search of codes reads: codes for the
// window, and the float32s of the pool's reachable candidates only; and
// that the cache then holds codes, about a quarter of the float32s' bytes.
func TestCodeSearchReads(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	m := randomStore(24*7*4, 256, start) // four weeks
	cs := newCodeStore(m)
	x := NewWithOptions(256, m.load, cs.options(0))
	q := m.rows[3].vec
	// The pool is 84 for k = 20; 46 of them can reach the 20 best by
	// their codes' slack (reachable), and only those are fetched.
	for i, want := range []struct{ codes, fetches, reads int }{
		{672, 46, 0}, // read from the store
		{672, 46, 0}, // read again, and copied into the cache
		{0, 46, 0},   // from the cache
	} {
		cs.codeReads, cs.fetches, m.reads = 0, 0, 0
		if _, err := x.Search("", q, time.Time{}, time.Time{}, 20, nil); err != nil {
			t.Fatal(err)
		}
		got := struct{ codes, fetches, reads int }{cs.codeReads, cs.fetches, m.reads}
		if got != want {
			t.Errorf("search %d read %+v, want %+v", i+1, got, want)
		}
	}
	st := x.Stats()
	floats := int64(672) * vectorBytes(256, len("c000000"), false)
	if st.Vectors != 672 || st.Bytes*3 > floats {
		t.Errorf("cache holds %d vectors in %d bytes; as float32s they take %d", st.Vectors, st.Bytes, floats)
	}
}

// TestCodeSearchWaitsForReady checks that a store without codes for all
// its vectors is searched by float32s, and by codes once it has them,
// with the float32s' cache dropped.
func TestCodeSearchWaitsForReady(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	m := randomStore(24*7, 16, start)
	cs := newCodeStore(m)
	cs.ready = false
	x := NewWithOptions(16, m.load, cs.options(0))
	q := m.rows[0].vec
	for range 2 {
		if _, err := x.Search("", q, time.Time{}, time.Time{}, 5, nil); err != nil {
			t.Fatal(err)
		}
	}
	if cs.codeReads != 0 || x.Stats().Vectors != 168 {
		t.Fatalf("before codes: %d codes read, %d vectors cached; want 0 and 168", cs.codeReads, x.Stats().Vectors)
	}
	cs.ready = true
	if _, err := x.Search("", q, time.Time{}, time.Time{}, 5, nil); err != nil {
		t.Fatal(err)
	}
	if st := x.Stats(); cs.codeReads != 168 || st.Vectors != 0 {
		t.Errorf("once ready: %d codes read, %d vectors cached; want 168 and 0 (the float32s dropped)", cs.codeReads, st.Vectors)
	}
}

func TestBadStoredCode(t *testing.T) {
	codes := &Codes{
		Ready: func() (bool, error) { return true, nil },
		Load: func(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
			return fn([]byte("c1"), 0, []byte{1, 2, 3})
		},
		Fetch: func(string, []Key, func(int, []byte) error) error { return nil },
	}
	_, err := NewWithOptions(4, nil, Options{Codes: codes}).Search("ns", []float32{1, 0, 0, 0}, time.Time{}, time.Time{}, 1, nil)
	if err == nil || err.Error() != `reading vectors of namespace "ns": code of chunk c1 has 3 bytes, want 8` {
		t.Errorf("a 3-byte code in a 4-dimension index: %v", err)
	}
}

// BenchmarkPoolMisses measures how often the exact top k is not within
// the pool of candidates the codes pick (misses/op: searches whose result
// differs from the exact scan's), for pool sizes from k+8 up, on random
// and clustered corpora. Set HUIMEM_BENCH_POOL=1 to run it.
func BenchmarkPoolMisses(b *testing.B) {
	if os.Getenv("HUIMEM_BENCH_POOL") == "" {
		b.Skip("set HUIMEM_BENCH_POOL=1 to measure the pool's misses")
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, corpus := range []struct {
		name string
		m    *memStore
	}{
		{"random", randomStore(20000, 256, start)},
		{"clustered", clusteredStore(20000, 256, start)},
	} {
		for _, k := range []int{10, 50} {
			for _, extra := range []int{k / 2, k, 2 * k, 64, 3 * k} {
				b.Run(fmt.Sprintf("%s/k=%d/pool=k+%d", corpus.name, k, extra), func(b *testing.B) {
					defer func(f func(int) int) { poolSize = f }(poolSize)
					poolSize = func(k int) int { return k + extra }
					cs := newCodeStore(corpus.m)
					exact := NewWithOptions(256, corpus.m.load, Options{CacheBytes: -1})
					x := NewWithOptions(256, corpus.m.load, cs.options(0))
					r := rand.New(rand.NewPCG(15, 16))
					misses, n := 0, 0
					for b.Loop() {
						q := slices.Clone(corpus.m.rows[r.IntN(len(corpus.m.rows))].vec)
						for i := range q {
							q[i] += float32(0.5 * r.NormFloat64())
						}
						Normalize(q)
						want, _ := exact.Search("", q, time.Time{}, time.Time{}, k, nil)
						got, _ := x.Search("", q, time.Time{}, time.Time{}, k, nil)
						if !cmp.Equal(want, got) {
							misses++
						}
						n++
					}
					b.ReportMetric(float64(misses)/float64(n), "misses/op")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
}

// BenchmarkSearchCodes and BenchmarkSearchCodesUncached are
// BenchmarkSearch and BenchmarkSearchUncached over codes, with the
// rescoring of the pool.
func BenchmarkSearchCodes(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("n=%d/dim=256", n), func(b *testing.B) {
			m := randomStore(n, 256, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			cs := newCodeStore(m)
			x := NewWithOptions(256, m.load, cs.options(0))
			q := m.rows[0].vec
			x.Search("", q, time.Time{}, time.Time{}, 20, nil)
			x.Search("", q, time.Time{}, time.Time{}, 20, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink, _ = x.Search("", q, time.Time{}, time.Time{}, 20, nil)
			}
		})
	}
}

func BenchmarkSearchCodesUncached(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("n=%d/dim=256", n), func(b *testing.B) {
			m := randomStore(n, 256, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			codes := make([][]byte, len(m.rows))
			raws := map[string][]byte{}
			for i, r := range m.rows {
				codes[i] = appendCode(nil, r.vec)
				raws[r.id] = encode(r.vec)
			}
			load := func(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
				for i, r := range m.rows {
					if err := fn([]byte(r.id), r.t, codes[i]); err != nil {
						return err
					}
				}
				return nil
			}
			fetch := func(ns string, keys []Key, fn func(int, []byte) error) error {
				for i, k := range keys {
					if err := fn(i, raws[k.ID]); err != nil {
						return err
					}
				}
				return nil
			}
			x := NewWithOptions(256, nil, Options{CacheBytes: -1, Codes: &Codes{
				Ready: func() (bool, error) { return true, nil }, Load: load, Fetch: fetch}})
			q := m.rows[0].vec
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink, _ = x.Search("", q, time.Time{}, time.Time{}, 20, nil)
			}
		})
	}
}
