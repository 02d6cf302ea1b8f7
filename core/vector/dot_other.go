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
