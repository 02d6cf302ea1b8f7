package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotAVX2MatchesGeneric calls the assembly kernel itself, so that it
// is tested even where Dot would pick the Go loop. On a CPU without AVX2
// and FMA it cannot run, and says so.
func TestDotAVX2MatchesGeneric(t *testing.T) {
	if !useAVX2 {
		t.Skip("this CPU has no AVX2+FMA: the assembly kernel cannot run here (TestDotMatchesGeneric still checks the Go loop)")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 300; n++ {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		got, want := dotAVX2(a, b), dotGeneric(a, b)
		if math.Abs(float64(got-want)) > 1e-4*math.Max(1, math.Abs(float64(want))) {
			t.Fatalf("n=%d: dotAVX2 = %v, generic = %v", n, got, want)
		}
	}
}

// TestDotI8AVX2MatchesReference calls the int8 assembly kernel itself, at
// every length of kernelLengths. On a CPU without AVX2 it cannot run, and
// says so.
func TestDotI8AVX2MatchesReference(t *testing.T) {
	if !useAVX2I8 {
		t.Skip("this CPU has no AVX2: the int8 assembly kernel cannot run here (TestDotI8MatchesReference still checks the Go loop)")
	}
	r := rand.New(rand.NewPCG(23, 24))
	for _, kind := range []string{"random", "extreme", "zero"} {
		for _, n := range kernelLengths() {
			q, c := randomCodes(r, n, kind)
			if got, want := dotI8AVX2(q, c), dotI8Wide(q, c); int64(got) != want {
				t.Errorf("%s, n=%d: dotI8AVX2 = %d, want %d", kind, n, got, want)
			}
		}
	}
}

// TestDotsI8AVX2MatchesReference calls the batched assembly kernel
// itself, at every length of kernelLengths that it takes (multiples of
// 16) and with codes longer than the query (the stride a caller uses
// when it leaves the last elements to the Go loop). On a CPU without
// AVX2 it cannot run, and says so.
func TestDotsI8AVX2MatchesReference(t *testing.T) {
	if !useAVX2I8 {
		t.Skip("this CPU has no AVX2: the batched int8 assembly kernel cannot run here (TestDotsI8MatchesReference still checks the Go loop)")
	}
	r := rand.New(rand.NewPCG(29, 30))
	for _, kind := range []string{"random", "extreme", "zero"} {
		for _, stride := range kernelLengths() {
			for _, cols := range []int{stride &^ 15, 16} {
				if cols == 0 || cols > stride {
					continue
				}
				for _, n := range []int{8, 16, 24, 64} {
					q, c := randomCodeRun(r, stride, n, kind)
					got := make([]int32, n)
					dotsI8AVX2(q[:cols], c, stride, got)
					for i, g := range got {
						if want := dotI8Wide(q[:cols], c[i*stride:]); int64(g) != want {
							t.Fatalf("%s, stride %d, %d of %d elements, %d codes: code %d scores %d, want %d", kind, stride, cols, stride, n, i, g, want)
						}
					}
				}
			}
		}
	}
}
