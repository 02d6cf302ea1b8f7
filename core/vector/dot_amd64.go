package vector

import "golang.org/x/sys/cpu"

var (
	useAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	useAVX2I8 = cpu.X86.HasAVX2
)

//go:noescape
func dotAVX2(a, b []float32) float32

//go:noescape
func dotI8AVX2(q []int16, c []int8) int32

//go:noescape
func dotsI8AVX2(q []int16, c []int8, stride int, out []int32)

func dot(a, b []float32) float32 {
	if useAVX2 {
		return dotAVX2(a, b)
	}
	return dotGeneric(a, b)
}

// dotI8 returns the sum of q_i*c_i over len(q) elements; len(c) must be
// at least len(q). On amd64 with AVX2 it runs in assembly.
func dotI8(q []int16, c []int8) int32 {
	if len(c) < len(q) {
		panic("vector: dotI8 of vectors of different lengths")
	}
	if useAVX2I8 {
		return dotI8AVX2(q, c)
	}
	return dotI8Generic(q, c)
}

// dotsI8 sets out[r] to the sum of q_i*c[r*len(q)+i] over len(q)
// elements for every r below len(out): the dot products of q with
// len(out) codes laid end to end, as a segment holds them. len(c) must be
// at least len(out)*len(q). On amd64 with AVX2 it scores eight codes per
// pass in assembly, the first len(q) rounded down to 16 elements of each;
// the elements and codes left over are summed one code at a time.
func dotsI8(q []int16, c []int8, out []int32) {
	dim, n := len(q), len(out)
	if len(c) < n*dim {
		panic("vector: dotsI8 of too few codes")
	}
	if !useAVX2I8 {
		dotsI8Generic(q, c, out)
		return
	}
	cols, rows := dim&^15, n&^7
	if cols == 0 {
		rows = 0
	}
	if rows > 0 {
		dotsI8AVX2(q[:cols], c, dim, out[:rows])
		if cols < dim {
			for r := range rows {
				out[r] += dotI8Generic(q[cols:], c[r*dim+cols:])
			}
		}
	}
	for r := rows; r < n; r++ {
		out[r] = dotI8AVX2(q, c[r*dim:])
	}
}

//go:noescape
func accI8AVX2(acc []int32, c []int8, q int32)

// accI8 adds q*c[r] to acc[r] for every r below len(acc); len(c) must be
// at least len(acc). On amd64 with AVX2 it adds sixteen per pass in
// assembly.
func accI8(acc []int32, c []int8, q int32) {
	if len(c) < len(acc) {
		panic("vector: accI8 of too few codes")
	}
	if useAVX2I8 {
		accI8AVX2(acc, c, q)
		return
	}
	accI8Generic(acc, c, q)
}
