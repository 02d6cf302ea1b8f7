package vector

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// kernelLengths are the lengths the int8 kernel is checked at: every
// length up to 70 (each tail of the 32- and 16-element loops) and the
// usual dimensions.
func kernelLengths() []int {
	var ns []int
	for n := 0; n <= 70; n++ {
		ns = append(ns, n)
	}
	return append(ns, 256, 384, 512, 1536)
}

// randomCodes returns a query and a code of length n with values drawn
// by kind: "random" over the whole range, "extreme" at the bounds (the
// largest sums), "zero" all zero.
func randomCodes(r *rand.Rand, n int, kind string) ([]int16, []int8) {
	q, c := make([]int16, n), make([]int8, n+r.IntN(3))
	lim := qMax(n)
	for i := range q {
		switch kind {
		case "random":
			q[i] = int16(r.Int32N(2*lim+1) - lim)
		case "extreme":
			q[i] = int16(lim)
			if r.IntN(2) == 0 {
				q[i] = int16(-lim)
			}
		}
	}
	for i := range c {
		switch kind {
		case "random":
			c[i] = int8(r.IntN(255) - 127)
		case "extreme":
			c[i] = int8(127 * (1 - 2*r.IntN(2)))
		}
	}
	return q, c
}

// dotI8Wide is the reference: the sum in int64.
func dotI8Wide(q []int16, c []int8) int64 {
	var s int64
	for i := range q {
		s += int64(q[i]) * int64(c[i])
	}
	return s
}

// TestDotI8MatchesReference checks dotI8, whichever kernel this CPU runs,
// and the Go loop against an int64 sum; dot_amd64_test.go checks the
// assembly kernel directly.
func TestDotI8MatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, kind := range []string{"random", "extreme", "zero", "same sign"} {
		for _, n := range kernelLengths() {
			q, c := randomCodes(r, n, kind)
			if kind == "same sign" { // the largest sum a query can reach
				for i := range q {
					q[i] = int16(qMax(n))
				}
				for i := range c {
					c[i] = -127
				}
			}
			want := dotI8Wide(q, c)
			if got := dotI8Generic(q, c); int64(got) != want {
				t.Errorf("%s, n=%d: dotI8Generic = %d, want %d", kind, n, got, want)
			}
			if got := dotI8(q, c); int64(got) != want {
				t.Errorf("%s, n=%d: dotI8 = %d, want %d", kind, n, got, want)
			}
		}
	}
}

func FuzzDotI8(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6}, []byte{7, 8, 9})
	f.Add(make([]byte, 600), make([]byte, 300))
	f.Fuzz(func(t *testing.T, qb, cb []byte) {
		n := min(len(qb)/2, len(cb))
		lim := qMax(n)
		q := make([]int16, n)
		for i := range q {
			v := int32(int16(binary.LittleEndian.Uint16(qb[2*i:])))
			q[i] = int16(max(-lim, min(lim, v)))
		}
		c := make([]int8, n)
		for i := range c {
			c[i] = int8(max(-127, int(int8(cb[i]))))
		}
		want := dotI8Wide(q, c)
		if got := dotI8(q, c); int64(got) != want {
			t.Fatalf("n=%d: dotI8 = %d, want %d", n, got, want)
		}
		if got := dotI8Generic(q, c); int64(got) != want {
			t.Fatalf("n=%d: dotI8Generic = %d, want %d", n, got, want)
		}
	})
}

func TestDotI8PanicsOnShortCode(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("no panic")
		}
	}()
	dotI8(make([]int16, 4), make([]int8, 3))
}

// TestCodeApproximates checks the codec and the query quantisation: the
// approximate score of a code is within its slack of the exact one.
func TestCodeApproximates(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, tt := range []struct {
		name string
		dim  int
		gen  func() float32
	}{
		{"gaussian 256", 256, func() float32 { return float32(r.NormFloat64()) }},
		{"gaussian 37", 37, func() float32 { return float32(r.NormFloat64()) }},
		{"sparse 256", 256, func() float32 {
			if r.IntN(10) == 0 {
				return float32(r.NormFloat64())
			}
			return 0
		}},
		{"zero 16", 16, func() float32 { return 0 }},
		{"gaussian 1536", 1536, func() float32 { return float32(r.NormFloat64()) }},
		{"uniform 3", 3, func() float32 { return float32(r.Float64()) }},
		{"one large 512", 512, func() float32 {
			if r.IntN(512) == 0 {
				return 1000
			}
			return float32(r.Float64()) * 1e-3
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range 50 {
				v, q := make([]float32, tt.dim), make([]float32, tt.dim)
				for i := range v {
					v[i], q[i] = tt.gen(), float32(r.NormFloat64())
				}
				Normalize(v)
				Normalize(q)
				code := appendCode(nil, v)
				if len(code) != CodeSize(tt.dim) {
					t.Fatalf("code of %d bytes, want %d", len(code), CodeSize(tt.dim))
				}
				s := codeScale(code, tt.dim)
				for i, c := range codeInt8s(code, tt.dim) {
					if d := math.Abs(float64(v[i] - s*float32(c))); d > float64(s)/2*1.0001 {
						t.Fatalf("v[%d] = %v, code %d * %v is %v away", i, v[i], c, s, d)
					}
				}
				qq := quantizeQuery(q)
				bound := float64(qq.slack(s)) // what a search prunes by (reachable)
				got, want := qq.approx(codeInt8s(code, tt.dim), s), Dot(q, v)
				if d := math.Abs(float64(got - want)); d > bound {
					t.Errorf("approx %v, exact %v: off by %v, bound %v", got, want, d, bound)
				}
			}
		})
	}
}

func BenchmarkDotI8(b *testing.B) {
	q, c := make([]int16, 256), make([]int8, 256)
	for i := range q {
		q[i], c[i] = int16(i*100), int8(i%127)
	}
	var s int32
	for b.Loop() {
		s += dotI8(q, c)
	}
	_ = s
}
