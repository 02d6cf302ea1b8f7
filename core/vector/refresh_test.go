package vector

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRefresh checks that a write followed by Refresh leaves the cache
// holding the store's new content: the searches after it read nothing
// from the store and find what a brute-force search finds, for added,
// changed and removed vectors, in a cached week and in one that is not.
func TestRefresh(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	week := 7 * 24 * time.Hour
	tests := []struct {
		name string
		// write changes the store; it returns the times it touched.
		write func(m *memStore) []time.Time
		// window limits the warming searches and the check (zero: all
		// time); wantReads is what the search after Refresh reads.
		window    [2]time.Time
		wantReads int
	}{
		{name: "append to a cached week", write: func(m *memStore) []time.Time {
			at := start.Add(week + 5*time.Hour + 30*time.Minute)
			m.insert(row{id: "new1", t: at.UnixNano(), vec: m.rows[3].vec})
			m.insert(row{id: "new2", t: at.Add(time.Minute).UnixNano(), vec: m.rows[9].vec})
			return []time.Time{at, at.Add(time.Minute)}
		}},
		{name: "remove from a cached week", write: func(m *memStore) []time.Time {
			r := m.rows[200]
			m.rows = slices.Delete(m.rows, 200, 201)
			return []time.Time{time.Unix(0, r.t)}
		}},
		{name: "change a vector", write: func(m *memStore) []time.Time {
			m.rows[10].vec = m.rows[300].vec
			return []time.Time{time.Unix(0, m.rows[10].t)}
		}},
		{name: "a week outside the cached window", window: [2]time.Time{start, start.Add(week)},
			write: func(m *memStore) []time.Time {
				at := start.Add(2*week + time.Hour)
				m.insert(row{id: "far", t: at.UnixNano(), vec: m.rows[0].vec})
				return []time.Time{at}
			}},
	}
	for _, tt := range tests {
		for _, codes := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/codes=%v", tt.name, codes), func(t *testing.T) {
				testRefresh(t, tt.write, tt.window, tt.wantReads, codes)
			})
		}
	}
}

func testRefresh(t *testing.T, write func(m *memStore) []time.Time, window [2]time.Time, wantReads int, codes bool) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	m := randomStore(24*7*3, 8, start) // three weeks
	x := NewWithOptions(8, m.load, Options{Decode: decode})
	var cs *codeStore
	if codes {
		cs = newCodeStore(m)
		x = NewWithOptions(8, nil, cs.options(0))
	}
	reads := func() int {
		if codes {
			return cs.codeReads
		}
		return m.reads
	}
	search := func(q []float32) []string {
		t.Helper()
		got, err := x.Search("", q, window[0], window[1], 5, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range got {
			ids = append(ids, g.ID)
		}
		return ids
	}
	search(m.rows[0].vec)
	search(m.rows[0].vec) // the second search caches
	touched := write(m)
	if codes {
		*cs = *newCodeStore(m)
	}
	if err := x.Refresh("", touched); err != nil {
		t.Fatal(err)
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if !window[0].IsZero() {
		lo, hi = window[0].UnixNano(), window[1].UnixNano()
	}
	for _, qi := range []int{3, 9, 10, 300} {
		before := reads()
		q := m.rows[qi%len(m.rows)].vec
		got := search(q)
		if n := reads() - before; n != wantReads {
			t.Errorf("query %d: the search read %d vectors from the store, want %d", qi, n, wantReads)
		}
		if diff := cmp.Diff(bruteForce(m, q, lo, hi, 5), got); diff != "" {
			t.Errorf("query %d (-want +got):\n%s", qi, diff)
		}
	}
}

// TestRefreshWrittenWhileRead checks that a segment a search copied while a
// write landed is not cached over the refreshed one.
func TestRefreshWrittenWhileRead(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	m := randomStore(24*7, 4, start)
	var x *Index
	write := false
	load := func(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
		if write {
			write = false
			m.insert(row{id: "late", t: start.Add(30 * time.Minute).UnixNano(), vec: m.rows[5].vec})
			x.Invalidate(ns, start) // a second write lands while the week is read again
		}
		return m.load(ns, from, to, fn)
	}
	x = New(4, load, decode)
	q := m.rows[5].vec
	x.Search("", m.rows[0].vec, time.Time{}, time.Time{}, 1, nil)
	x.Search("", m.rows[0].vec, time.Time{}, time.Time{}, 1, nil)
	write = true
	if err := x.Refresh("", []time.Time{start}); err != nil {
		t.Fatal(err)
	}
	if st := x.Stats(); st.Vectors != 0 {
		t.Errorf("a week written while Refresh read it was cached (%d vectors)", st.Vectors)
	}
	got, err := x.Search("", q, time.Time{}, time.Time{}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range got {
		ids = append(ids, g.ID)
	}
	// The same vector twice: the newer first.
	if diff := cmp.Diff([]string{"c000005", "late"}, ids); diff != "" {
		t.Errorf("search after the writes (-want +got):\n%s", diff)
	}
}

func (m *memStore) insert(r row) {
	i, _ := slices.BinarySearchFunc(m.rows, r.t, func(a row, t int64) int { return int(a.t - t) })
	m.rows = slices.Insert(m.rows, i, r)
}
