package vector

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sparseQuery returns a unit query with nnz nonzero dimensions of dim.
func sparseQuery(r *rand.Rand, dim, nnz int) []float32 {
	q := make([]float32, dim)
	for _, d := range r.Perm(dim)[:nnz] {
		q[d] = float32(r.NormFloat64())
	}
	Normalize(q)
	return q
}

// withRows runs fn with every search scanning by rows.
func withRows(t testing.TB, fn func()) {
	t.Helper()
	saved := sparseMax
	sparseMax = func(int) int { return -1 }
	defer func() { sparseMax = saved }()
	fn()
}

func TestTranspose(t *testing.T) {
	for _, tc := range []struct{ n, dim int }{{0, 4}, {1, 4}, {3, 5}, {31, 8}, {32, 8}, {33, 8}, {100, 17}} {
		codes := make([]int8, tc.n*tc.dim)
		for i := range codes {
			codes[i] = int8(i*7 - 100)
		}
		cols := transpose(codes, tc.n, tc.dim)
		for r := range tc.n {
			for d := range tc.dim {
				if cols[d*tc.n+r] != codes[r*tc.dim+d] {
					t.Fatalf("n=%d dim=%d: cols[%d][%d] = %d, want %d", tc.n, tc.dim, d, r, cols[d*tc.n+r], codes[r*tc.dim+d])
				}
			}
		}
	}
}

// TestSparseSearchMatchesRows checks that searches of sparse queries,
// which scan cached segments by columns, return what scanning by rows
// returns, scores to the bit, over all time and in windows.
func TestSparseSearchMatchesRows(t *testing.T) {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	m := randomStore(3000, 64, start)
	r := rand.New(rand.NewPCG(3, 4))
	windows := []struct{ since, before time.Time }{
		{},
		{start.Add(200 * time.Hour), start.Add(900 * time.Hour)},
		{start.Add(1000 * time.Hour), time.Time{}},
	}
	for _, nnz := range []int{1, 3, 8} {
		q := sparseQuery(r, 64, nnz)
		for _, w := range windows {
			cs := newCodeStore(m)
			x := NewWithOptions(64, m.load, cs.options(0))
			for range 3 { // the second search caches, the third scans the cache
				x.Search("", q, w.since, w.before, 10, nil)
			}
			before := x.Stats().Bytes
			got, err := x.Search("", q, w.since, w.before, 10, nil)
			if err != nil {
				t.Fatal(err)
			}
			if x.Stats().Bytes != before {
				t.Fatalf("nnz %d: the cache grew from %d to %d bytes on a search of cached columns", nnz, before, x.Stats().Bytes)
			}
			var want []Match
			withRows(t, func() { want, err = x.Search("", q, w.since, w.before, 10, nil) })
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Fatalf("nnz %d, window %v: by columns %v, by rows %v", nnz, w, got, want)
			}
		}
	}
}

// TestSparseColumnsCounted checks that the columns a sparse search makes
// count in the cache's bytes, and that without room for them the search
// scans by rows and finds the same.
func TestSparseColumnsCounted(t *testing.T) {
	const n, dim = 2000, 64
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	m := randomStore(n, dim, start)
	q := sparseQuery(rand.New(rand.NewPCG(5, 6)), dim, 4)
	dense := sparseQuery(rand.New(rand.NewPCG(5, 6)), dim, dim)

	cs := newCodeStore(m)
	x := NewWithOptions(dim, m.load, cs.options(0))
	x.Search("", dense, time.Time{}, time.Time{}, 10, nil)
	x.Search("", dense, time.Time{}, time.Time{}, 10, nil)
	rows := x.Stats().Bytes
	want, _ := x.Search("", q, time.Time{}, time.Time{}, 10, nil)
	if got := x.Stats().Bytes; got != rows+n*dim {
		t.Fatalf("cache holds %d bytes after a sparse search, want %d (codes) + %d (columns)", got, rows, n*dim)
	}

	// A budget that holds the codes and not their columns.
	tight := NewWithOptions(dim, m.load, cs.options(rows+n*dim/2))
	tight.Search("", dense, time.Time{}, time.Time{}, 10, nil)
	tight.Search("", dense, time.Time{}, time.Time{}, 10, nil)
	got, err := tight.Search("", q, time.Time{}, time.Time{}, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st := tight.Stats(); st.Bytes > st.Budget {
		t.Fatalf("cache holds %d bytes, over its budget of %d", st.Bytes, st.Budget)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("with a tight budget %v, with room for columns %v", got, want)
	}
}

// TestAccI8 checks accI8 against its definition across lengths that
// leave remainders.
func TestAccI8(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 256, 257} {
		for _, q := range []int32{0, 1, -1, 32767, -32767, 12345} {
			c := make([]int8, n)
			acc := make([]int32, n)
			want := make([]int32, n)
			for i := range c {
				c[i] = int8(r.IntN(255) - 127)
				acc[i] = int32(r.IntN(1 << 20))
				want[i] = acc[i] + q*int32(c[i])
			}
			accI8(acc, c, q)
			if !slices.Equal(acc, want) {
				t.Fatalf("n=%d q=%d: got %v, want %v", n, q, acc, want)
			}
		}
	}
}

// BenchmarkSearchCodesSparse compares the scans by columns and by rows
// for queries with nnz nonzeros of 256, as the hash embedder makes them
// (four to eight for a short English query, about thirty in Chinese), of
// n chunks over a year, as the load test's homes hold them.
func BenchmarkSearchCodesSparse(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		m := randomStore(n, 256, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		year := int64(365 * 24 * time.Hour)
		for i := range m.rows {
			m.rows[i].t = m.rows[0].t + int64(i)*(year/int64(n))
		}
		cs := newCodeStore(m)
		for _, nnz := range []int{4, 16, 32, 64} {
			q := sparseQuery(rand.New(rand.NewPCG(9, 10)), 256, nnz)
			for _, by := range []string{"columns", "rows"} {
				b.Run(fmt.Sprintf("n=%d/nnz=%d/%s", n, nnz, by), func(b *testing.B) {
					saved := sparseMax
					defer func() { sparseMax = saved }()
					if by == "rows" {
						sparseMax = func(int) int { return -1 }
					} else {
						sparseMax = func(dim int) int { return dim }
					}
					x := NewWithOptions(256, m.load, cs.options(0))
					x.Search("", q, time.Time{}, time.Time{}, 20, nil)
					x.Search("", q, time.Time{}, time.Time{}, 20, nil)
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						sink, _ = x.Search("", q, time.Time{}, time.Time{}, 20, nil)
					}
				})
			}
		}
	}
}

// TestSparseConcurrent runs sparse searches from several goroutines while
// the segments they scan are read again (Refresh), as a server's appends
// do: each search finds what a scan by rows finds. Run it with -race.
func TestSparseConcurrent(t *testing.T) {
	const n, dim = 2000, 64
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	m := randomStore(n, dim, start)
	r := rand.New(rand.NewPCG(11, 12))
	qs := make([][]float32, 8)
	for i := range qs {
		qs[i] = sparseQuery(r, dim, 1+i)
	}
	x := NewWithOptions(dim, m.load, newCodeStore(m).options(0))
	want := make([][]Match, len(qs))
	withRows(t, func() {
		for i, q := range qs {
			want[i], _ = x.Search("", q, time.Time{}, time.Time{}, 10, nil)
		}
	})
	x.Search("", qs[0], time.Time{}, time.Time{}, 10, nil) // caches the segments
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			x.Refresh("", []time.Time{start.Add(time.Duration(i*100) * time.Hour)})
		}
	}()
	errs := make(chan error, len(qs))
	for i, q := range qs {
		go func() {
			for range 20 {
				got, err := x.Search("", q, time.Time{}, time.Time{}, 10, nil)
				if err == nil && !slices.Equal(got, want[i]) {
					err = fmt.Errorf("query %d: %v, want %v", i, got, want[i])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range qs {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	<-done
}
