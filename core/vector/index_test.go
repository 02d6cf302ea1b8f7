package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
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

func (m *memStore) load(ns string, from, to time.Time, fn func(string, int64, []byte) error) error {
	for _, r := range m.rows {
		if r.ns != ns || (!from.IsZero() && r.t < from.UnixNano()) || (!to.IsZero() && r.t >= to.UnixNano()) {
			continue
		}
		m.reads++
		if err := fn(r.id, r.t, encode(r.vec)); err != nil {
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
	if _, err := x.Search("", m.rows[0].vec, week, week.Add(7*24*time.Hour), 5, nil); err != nil {
		t.Fatal(err)
	}
	if m.reads != 24*7 {
		t.Errorf("a one-week search read %d vectors, want %d", m.reads, 24*7)
	}
	m.reads = 0
	x.Search("", m.rows[0].vec, week, week.Add(7*24*time.Hour), 5, nil)
	if m.reads != 0 {
		t.Errorf("a cached week was read again (%d vectors)", m.reads)
	}
	x.Invalidate("", week.Add(time.Hour))
	x.Search("", m.rows[0].vec, week, week.Add(7*24*time.Hour), 5, nil)
	if m.reads != 24*7 {
		t.Errorf("an invalidated week read %d vectors, want %d", m.reads, 24*7)
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

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("n=%d/dim=256", n), func(b *testing.B) {
			m := randomStore(n, 256, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			x := New(256, m.load, decode)
			q := m.rows[0].vec
			x.Search("", q, time.Time{}, time.Time{}, 20, nil)
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
