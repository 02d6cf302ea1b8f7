package vector

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// codeCounts are the numbers of codes the batched kernel is checked
// with: none, fewer than a pass of eight, whole passes, and passes with
// codes left over.
var codeCounts = []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 64, 67}

// randomCodeRun returns a query of length dim and n codes of that length
// laid end to end (with up to two spare int8s after them), drawn by kind
// as randomCodes draws them.
func randomCodeRun(r *rand.Rand, dim, n int, kind string) ([]int16, []int8) {
	q, _ := randomCodes(r, dim, kind)
	var c []int8
	for range n {
		_, ci := randomCodes(r, dim, kind)
		c = append(c, ci[:dim]...)
	}
	return q, append(c, make([]int8, r.IntN(3))...)
}

// dotsI8Wide is the reference of the batched kernel: dotI8Wide of q with
// each of the n codes of c.
func dotsI8Wide(q []int16, c []int8, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = dotI8Wide(q, c[i*len(q):])
	}
	return out
}

// widen returns sums as int64s, for comparing them with a reference.
func widen(sums []int32) []int64 {
	out := make([]int64, len(sums))
	for i, s := range sums {
		out[i] = int64(s)
	}
	return out
}

// TestDotsI8MatchesReference checks dotsI8, whichever kernel this CPU
// runs, and the Go loop against int64 sums, at every length of
// kernelLengths and every count of codeCounts; dot_amd64_test.go checks
// the assembly kernel directly.
func TestDotsI8MatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, kind := range []string{"random", "extreme", "zero"} {
		for _, dim := range kernelLengths() {
			for _, n := range codeCounts {
				q, c := randomCodeRun(r, dim, n, kind)
				want := dotsI8Wide(q, c, n)
				for name, f := range map[string]func([]int16, []int8, []int32){"dotsI8": dotsI8, "dotsI8Generic": dotsI8Generic} {
					got := make([]int32, n)
					f(q, c, got)
					if diff := cmp.Diff(want, widen(got)); diff != "" {
						t.Fatalf("%s, dim=%d, %d codes: %s (-want +got):\n%s", kind, dim, n, name, diff)
					}
				}
			}
		}
	}
}

func FuzzDotsI8(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6}, []byte{7, 8, 9, 10, 11, 12, 13, 14, 15}, uint8(3))
	f.Add(make([]byte, 64), make([]byte, 32*9), uint8(32))
	f.Fuzz(func(t *testing.T, qb, cb []byte, d uint8) {
		dim := min(int(d), len(qb)/2)
		n := len(cb)
		if dim > 0 {
			n = len(cb) / dim
		}
		n = min(n, 100)
		lim := qMax(dim)
		q := make([]int16, dim)
		for i := range q {
			v := int32(int16(binary.LittleEndian.Uint16(qb[2*i:])))
			q[i] = int16(max(-lim, min(lim, v)))
		}
		c := make([]int8, n*dim)
		for i := range c {
			c[i] = int8(max(-127, int(int8(cb[i]))))
		}
		want := dotsI8Wide(q, c, n)
		got := make([]int32, n)
		dotsI8(q, c, got)
		if diff := cmp.Diff(want, widen(got)); diff != "" {
			t.Fatalf("dim=%d, %d codes: dotsI8 (-want +got):\n%s", dim, n, diff)
		}
		dotsI8Generic(q, c, got)
		if diff := cmp.Diff(want, widen(got)); diff != "" {
			t.Fatalf("dim=%d, %d codes: dotsI8Generic (-want +got):\n%s", dim, n, diff)
		}
	})
}

func TestDotsI8PanicsOnShortCodes(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("no panic")
		}
	}()
	dotsI8(make([]int16, 4), make([]int8, 4*8-1), make([]int32, 8))
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

// BenchmarkDotsI8 scores 256 codes of 256 dimensions per op with the
// batched kernel; divided by 256 it compares with BenchmarkDotI8.
func BenchmarkDotsI8(b *testing.B) {
	const dim, n = 256, 256
	r := rand.New(rand.NewPCG(27, 28))
	q, c := randomCodeRun(r, dim, n, "random")
	out := make([]int32, n)
	for b.Loop() {
		dotsI8(q, c, out)
	}
}
