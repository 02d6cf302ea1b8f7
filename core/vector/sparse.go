package vector

import "slices"

// Sparse queries. A query of the hash embedder is nonzero in only as many
// dimensions as it has features: four to eight of 256 for a short English
// query, thirty or so for a Chinese sentence. A code's score is then the
// sum over those dimensions alone. A search whose quantised query has at
// most sparseMax(dim) nonzeros scans each cached segment by columns: the
// segment keeps, beside its codes, a copy laid out dimension by dimension
// (made the first time a sparse search scans it, within the cache's
// budget), and each block's sums add up the query's columns only,
// reading nnz/dim of the bytes a scan by rows reads. The sums are
// integers and the other dimensions add zeros, so they are the scan by
// rows' to the bit, and so are the candidates and results.

// sparseMax is the most nonzeros a query of dim dimensions may have for a
// search to scan by columns: up to there it is faster than the scan by
// rows, by the benchmarks of sparse_test.go.
var sparseMax = func(dim int) int { return dim / 4 }

// columns returns the codes of cached segment s (segment b of namespace
// ns) laid out by dimension, making them the first time it is asked:
// cols[d*n+r] is dimension d of code r, with n codes in all. It returns
// nil, and the search scans by rows, when s has left the cache or the
// copy does not fit the budget. tick is the search's (see makeRoom).
func (x *Index) columns(ns string, b int64, s *segment, tick uint64) []int8 {
	s.colsOnce.Do(func() {
		need := int64(len(s.codes))
		x.mu.Lock()
		ok := x.code && x.ns(ns).segs[b] == s && x.makeRoom(need, tick)
		if ok {
			x.used += need
			s.bytes += need
		}
		x.mu.Unlock()
		if ok {
			s.cols = transpose(s.codes, len(s.ids), x.dim)
		}
	})
	return s.cols
}

// transposeTile is how many codes transpose reads at a time: their rows
// stay in the L1 cache while it writes one run of each column.
const transposeTile = 32

// transpose lays n codes of dim int8s, end to end in codes, out by
// dimension.
func transpose(codes []int8, n, dim int) []int8 {
	cols := make([]int8, n*dim)
	for r0 := 0; r0 < n; r0 += transposeTile {
		r1 := min(n, r0+transposeTile)
		for d := range dim {
			col := cols[d*n+r0 : d*n+r1]
			for r := range col {
				col[r] = codes[(r0+r)*dim+d]
			}
		}
	}
	return cols
}

// sumColumns sets sums[r-i] to the dot product of q with code r, for the
// codes i to j-1 of a segment of n codes laid out by columns.
func sumColumns(q *qQuery, cols []int8, n, i, j int, sums []int32) {
	sums = sums[:j-i]
	clear(sums)
	for _, d := range q.nz {
		accI8(sums, cols[d*n+i:d*n+j], int32(q.q16[d]))
	}
}

// nonzeros returns the dimensions at which q16 is not zero.
func nonzeros(q16 []int16) []int {
	var nz []int
	for d, v := range q16 {
		if v != 0 {
			nz = append(nz, d)
		}
	}
	return slices.Clip(nz)
}

// accI8Generic adds q*c[r] to acc[r] for every r below len(acc); len(c)
// must be at least len(acc).
func accI8Generic(acc []int32, c []int8, q int32) {
	c = c[:len(acc)]
	for r, v := range c {
		acc[r] += q * int32(v)
	}
}
