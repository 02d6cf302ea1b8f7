//go:build !amd64

package vector

func dot(a, b []float32) float32 { return dotGeneric(a, b) }

// dotI8 returns the sum of q_i*c_i over len(q) elements; len(c) must be
// at least len(q).
func dotI8(q []int16, c []int8) int32 {
	if len(c) < len(q) {
		panic("vector: dotI8 of vectors of different lengths")
	}
	return dotI8Generic(q, c)
}

// dotsI8 sets out[r] to the sum of q_i*c[r*len(q)+i] over len(q)
// elements for every r below len(out): the dot products of q with
// len(out) codes laid end to end. len(c) must be at least
// len(out)*len(q).
func dotsI8(q []int16, c []int8, out []int32) {
	if len(c) < len(out)*len(q) {
		panic("vector: dotsI8 of too few codes")
	}
	dotsI8Generic(q, c, out)
}

// accI8 adds q*c[r] to acc[r] for every r below len(acc); len(c) must be
// at least len(acc).
func accI8(acc []int32, c []int8, q int32) { accI8Generic(acc, c, q) }
