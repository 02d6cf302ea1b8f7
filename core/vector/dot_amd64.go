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
