package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// memStore is an in-memory Loader that counts what it reads.
type memStore struct {
	rows  []row
	reads int
}

type row struct {
	ns  string
	id  string
	t   int64
	vec []float32
}

func (m *memStore) load(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
	i := 0
	var idb []byte
	if !from.IsZero() { // rows are in time order: seek, as the store does
		i = sort.Search(len(m.rows), func(i int) bool { return m.rows[i].t >= from.UnixNano() })
	}
	for _, r := range m.rows[i:] {
		if !to.IsZero() && r.t >= to.UnixNano() {
			break
		}
		if r.ns != ns || (!from.IsZero() && r.t < from.UnixNano()) || (!to.IsZero() && r.t >= to.UnixNano()) {
			continue
		}
		m.reads++
		// One buffer for every id, as a store's scan hands over its
		// keys: an index that kept an id without copying it would see it
		// change.
		idb = append(idb[:0], r.id...)
		if err := fn(idb, r.t, encode(r.vec)); err != nil {
			return err
		}
	}
	return nil
}

func encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decode(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}

func randomStore(n, dim int, start time.Time) *memStore {
	r := rand.New(rand.NewPCG(1, 2))
	m := &memStore{}
	for i := 0; i < n; i++ {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		Normalize(v)
		m.rows = append(m.rows, row{ns: "", id: fmt.Sprintf("c%06d", i), t: start.Add(time.Duration(i) * time.Hour).UnixNano(), vec: v})
	}
	sort.Slice(m.rows, func(i, j int) bool { return m.rows[i].t < m.rows[j].t })
	return m
}

func bruteForce(m *memStore, q []float32, lo, hi int64, k int) []string {
	type s struct {
		id    string
		score float32
		t     int64
	}
	var all []s
	for _, r := range m.rows {
		if r.t >= lo && r.t < hi {
			all = append(all, s{r.id, Dot(q, r.vec), r.t})
		}
	}
	slices.SortFunc(all, func(a, b s) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return int(b.t - a.t)
	})
	var ids []string
	for i := 0; i < k && i < len(all); i++ {
		ids = append(ids, all[i].id)
	}
	return ids
}

func TestSearchMatchesBruteForce(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := randomStore(2000, 32, start)
	x := New(32, m.load, decode)
	q := m.rows[17].vec
	for _, tt := range []struct {
		name          string
		since, before time.Time
	}{
		{"all", time.Time{}, time.Time{}},
		{"one week", start.Add(10 * 24 * time.Hour), start.Add(17 * 24 * time.Hour)},
		{"open end", start.Add(50 * 24 * time.Hour), time.Time{}},
		{"open start", time.Time{}, start.Add(3 * 24 * time.Hour)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := x.Search("", q, tt.since, tt.before, 10, nil)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
			if !tt.since.IsZero() {
				lo = tt.since.UnixNano()
			}
			if !tt.before.IsZero() {
				hi = tt.before.UnixNano()
			}
			var ids []string
			for _, g := range got {
				ids = append(ids, g.ID)
			}
			if want := bruteForce(m, q, lo, hi, 10); !slices.Equal(ids, want) {
				t.Errorf("Search = %v, want %v", ids, want)
			}
		})
	}
}

func TestWeekSearchReadsOnlyThatWeek(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC) // a Monday
	m := randomStore(24*7*20, 8, start)                  // 20 weeks, one vector an hour
	x := New(8, m.load, decode)
	week := start.Add(7 * 7 * 24 * time.Hour)
	search := func() {
		t.Helper()
		m.reads = 0
		if _, err := x.Search("", m.rows[0].vec, week, week.Add(7*24*time.Hour), 5, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The first search reads the week and keeps nothing; the second
	// reads it again and caches it; the third reads nothing.
	for i, want := range []int{24 * 7, 24 * 7, 0} {
		search()
		if m.reads != want {
			t.Errorf("search %d of one week read %d vectors, want %d", i+1, m.reads, want)
		}
	}
	x.Invalidate("", week.Add(time.Hour))
	search()
	if m.reads != 24*7 {
		t.Errorf("an invalidated week read %d vectors, want %d", m.reads, 24*7)
	}
}

func TestCacheAdmission(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	m := randomStore(24*7*10, 8, start) // 10 weeks
	weeks := [2]time.Time{start.Add(2 * 7 * 24 * time.Hour), start.Add(4 * 7 * 24 * time.Hour)}
	small := int64(4 * 168 * (32 + 24 + 7 + 1)) // room for about four weeks
	for _, tt := range []struct {
		name        string
		budget      int64
		window      [2]time.Time // zero: all time
		wantReads   []int        // vectors read by each of four searches
		wantVectors int          // cached after them
		// maxCopied bounds the bytes the searches copy for the cache:
		// a search copies no more than fits the budget beside what it
		// already uses, plus the rest of the segment it is on.
		maxCopied int64
	}{
		{"default budget", 0, [2]time.Time{}, []int{1680, 1680, 0, 0}, 1680, 1680 * (32 + 24 + 7)},
		{"no cache", -1, [2]time.Time{}, []int{1680, 1680, 1680, 1680}, 0, 0},
		// A namespace larger than the budget is not cached for searches
		// of all time: it is read from the store each time, and nothing
		// is copied only to be dropped.
		{"small budget", small, [2]time.Time{}, []int{1680, 1680, 1680, 1680}, 0, 0},
		// Windows that fit are cached from their second search.
		{"small budget, two weeks", small, weeks, []int{336, 336, 0, 0}, 336, 336 * (32 + 24 + 7)},
		// A window larger than the budget caches what fits, and copies
		// nothing that would not fit.
		{"one week's budget, two weeks", 168 * (32 + 24 + 7 + 1), weeks, []int{336, 336, 168, 168}, 168, 168 * (32 + 24 + 7)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := NewWithOptions(8, m.load, Options{CacheBytes: tt.budget, Decode: decode})
			var reads []int
			for range 4 {
				m.reads = 0
				if _, err := x.Search("", m.rows[0].vec, tt.window[0], tt.window[1], 5, nil); err != nil {
					t.Fatal(err)
				}
				reads = append(reads, m.reads)
			}
			st := x.Stats()
			if diff := cmp.Diff(tt.wantReads, reads); diff != "" {
				t.Errorf("vectors read (-want +got):\n%s", diff)
			}
			if st.Vectors != tt.wantVectors || st.Bytes > max(st.Budget, 0) {
				t.Errorf("cache holds %d vectors in %d bytes (budget %d), want %d vectors", st.Vectors, st.Bytes, st.Budget, tt.wantVectors)
			}
			if st.Copied > tt.maxCopied {
				t.Errorf("the searches copied %d bytes for the cache, want at most %d", st.Copied, tt.maxCopied)
			}
		})
	}
}

// TestSearchSameWithAnyBudget checks that what is cached changes only
// the cost of a search, never its result, for windows that cut weeks.
func TestSearchSameWithAnyBudget(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := randomStore(3000, 16, start)
	windows := [][2]time.Time{
		{},
		{start.Add(30 * time.Hour), start.Add(500 * time.Hour)},
		{start.Add(1000 * time.Hour), {}},
		{{}, start.Add(2000 * time.Hour)},
		{start.Add(24 * 7 * time.Hour), start.Add(24 * 14 * time.Hour)},
	}
	for _, budget := range []int64{-1, 0, 20000, 100000} {
		for _, raw := range []bool{false, true} {
			o := Options{CacheBytes: budget}
			if !raw {
				o.Decode = decode
			}
			x := NewWithOptions(16, m.load, o)
			for round := range 3 {
				for wi, w := range windows {
					q := m.rows[(wi*97+round)%len(m.rows)].vec
					got, err := x.Search("", q, w[0], w[1], 7, nil)
					if err != nil {
						t.Fatal(err)
					}
					lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
					if !w[0].IsZero() {
						lo = w[0].UnixNano()
					}
					if !w[1].IsZero() {
						hi = w[1].UnixNano()
					}
					var ids []string
					for _, g := range got {
						ids = append(ids, g.ID)
					}
					if diff := cmp.Diff(bruteForce(m, q, lo, hi, 7), ids); diff != "" {
						t.Errorf("budget %d, in place %v, round %d, window %d (-want +got):\n%s", budget, raw, round, wi, diff)
					}
				}
			}
			if st := x.Stats(); budget > 0 && st.Bytes > budget {
				t.Errorf("budget %d: cache holds %d bytes", budget, st.Bytes)
			}
		}
	}
}

func TestInvalidateDuringSearchIsNotCached(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	m := randomStore(24*7, 4, start) // one week
	var x *Index
	invalidate := false
	load := func(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
		if invalidate {
			x.Invalidate(ns, start) // a write lands while the week is read
		}
		return m.load(ns, from, to, fn)
	}
	x = New(4, load, decode)
	x.Search("", m.rows[0].vec, time.Time{}, time.Time{}, 1, nil)
	invalidate = true
	x.Search("", m.rows[0].vec, time.Time{}, time.Time{}, 1, nil)
	if st := x.Stats(); st.Vectors != 0 {
		t.Errorf("a week invalidated while it was read was cached (%d vectors)", st.Vectors)
	}
}

func TestBadStoredVector(t *testing.T) {
	load := func(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
		return fn([]byte("c1"), 0, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	}
	for _, o := range []Options{{}, {Decode: decode}} {
		_, err := NewWithOptions(4, load, o).Search("ns", []float32{1, 0, 0, 0}, time.Time{}, time.Time{}, 1, nil)
		if err == nil || !strings.Contains(err.Error(), "dimension 2, want 4") {
			t.Errorf("a 2-float vector in a 4-dimension index: %v", err)
		}
	}
}

func TestSearchAllowAndDimension(t *testing.T) {
	m := randomStore(100, 4, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	x := New(4, m.load, decode)
	got, err := x.Search("", m.rows[0].vec, time.Time{}, time.Time{}, 100, func(id string) bool { return id == "c000042" })
	if err != nil || len(got) != 1 || got[0].ID != "c000042" {
		t.Errorf("allow: %v %v", got, err)
	}
	if _, err := x.Search("", []float32{1, 2}, time.Time{}, time.Time{}, 1, nil); err == nil {
		t.Errorf("wrong query dimension accepted")
	}
}

func TestSegmentOf(t *testing.T) {
	mon := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	if segmentOf(mon.UnixNano()) != segmentOf(mon.Add(7*24*time.Hour-1).UnixNano()) {
		t.Errorf("a week spans two segments")
	}
	if segmentOf(mon.UnixNano()) == segmentOf(mon.Add(-1).UnixNano()) {
		t.Errorf("Sunday and Monday share a segment")
	}
	old := time.Date(1950, 1, 2, 0, 0, 0, 0, time.UTC) // a Monday before 1970
	if segmentOf(old.UnixNano()) == segmentOf(old.Add(-1).UnixNano()) {
		t.Errorf("segments before 1970 are not Monday-aligned")
	}
}

var sink []Match

// BenchmarkSearch searches a warm cache; BenchmarkSearchUncached reads
// every vector from the loader, in place, as a one-shot process does.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("n=%d/dim=256", n), func(b *testing.B) {
			m := randomStore(n, 256, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			x := New(256, m.load, decode)
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

func BenchmarkSearchUncached(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("n=%d/dim=256", n), func(b *testing.B) {
			m := randomStore(n, 256, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			raws := make([][]byte, len(m.rows))
			for i, r := range m.rows {
				raws[i] = encode(r.vec)
			}
			load := func(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
				for i, r := range m.rows {
					if err := fn([]byte(r.id), r.t, raws[i]); err != nil {
						return err
					}
				}
				return nil
			}
			x := NewWithOptions(256, load, Options{CacheBytes: -1})
			q := m.rows[0].vec
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink, _ = x.Search("", q, time.Time{}, time.Time{}, 20, nil)
			}
		})
	}
}

func BenchmarkDot256(b *testing.B) {
	v := make([]float32, 256)
	for i := range v {
		v[i] = float32(i)
	}
	var s float32
	for i := 0; i < b.N; i++ {
		s += Dot(v, v)
	}
	_ = s
}

// TestSegmentWindow checks segment.window against binary searches of
// both bounds, for windows inside, around and beside a segment's times,
// repeated times included.
func TestSegmentWindow(t *testing.T) {
	s := &segment{times: []int64{10, 20, 20, 30, 40, 40}}
	for _, w := range [][2]int64{
		{minInt64, maxInt64}, {10, 41}, {11, 40}, {20, 21}, {20, 40}, {0, 10},
		{41, 50}, {0, 5}, {40, 41}, {25, 26}, {10, 10}, {minInt64, 20}, {30, maxInt64},
	} {
		i, _ := slices.BinarySearch(s.times, w[0])
		j, _ := slices.BinarySearch(s.times, w[1])
		if gi, gj := s.window(w[0], w[1]); gi != i || gj != j {
			t.Errorf("window(%d, %d) = [%d, %d), want [%d, %d)", w[0], w[1], gi, gj, i, j)
		}
	}
	if i, j := (&segment{}).window(0, 1); i != 0 || j != 0 {
		t.Errorf("window of an empty segment = [%d, %d)", i, j)
	}
}
