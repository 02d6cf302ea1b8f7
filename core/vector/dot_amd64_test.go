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
