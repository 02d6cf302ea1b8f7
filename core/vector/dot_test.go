package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotMatchesGeneric checks Dot, whichever kernel this CPU runs, against
// the Go loop; dot_amd64_test.go checks the assembly kernel directly.
func TestDotMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 300; n++ {
		a, b := make([]float32, n), make([]float32, n+r.IntN(3))
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		for i := range b {
			b[i] = float32(r.NormFloat64())
		}
		got, want := Dot(a, b), dotGeneric(a, b)
		if math.Abs(float64(got-want)) > 1e-4*math.Max(1, math.Abs(float64(want))) {
			t.Fatalf("n=%d: Dot = %v, generic = %v", n, got, want)
		}
	}
}

func TestDotPanicsOnShortB(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("no panic")
		}
	}()
	Dot(make([]float32, 4), make([]float32, 3))
}

func TestNormalizeAndValid(t *testing.T) {
	v := Normalize([]float32{3, 4})
	if math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
		t.Errorf("Normalize = %v", v)
	}
	if z := Normalize([]float32{0, 0}); z[0] != 0 || z[1] != 0 {
		t.Errorf("zero vector changed: %v", z)
	}
	if Valid([]float32{1, float32(math.NaN())}) || Valid([]float32{float32(math.Inf(1))}) || !Valid([]float32{1, -1}) {
		t.Errorf("Valid is wrong")
	}
}

func BenchmarkDotGeneric256(b *testing.B) {
	v := make([]float32, 256)
	for i := range v {
		v[i] = float32(i)
	}
	var s float32
	for i := 0; i < b.N; i++ {
		s += dotGeneric(v, v)
	}
	_ = s
}
