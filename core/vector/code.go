package vector

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Codes, for a smaller footprint. Beside each float32 vector the store keeps
// its int8 code (core/store's EncodeVectorCode):
//
//	dim int8s c_i = round(v_i / s), then s = max|v_i| / 127 as a
//	little-endian float32
//
// so that s*c approximates v to within s/2 in every coordinate, in a
// quarter of the bytes. A search with [Codes] scans the codes, keeps the
// best candidates by their approximate scores and rescores them with
// their float32 vectors (codesearch.go).

// CodeSize is the length of the code of a dim-dimensional vector.
func CodeSize(dim int) int { return dim + 4 }

// codeInt8s returns the int8s of a code without copying them; the result
// aliases code.
func codeInt8s(code []byte, dim int) []int8 {
	if dim == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(code))), dim)
}

// codeScale returns the scale s of a code of a dim-dimensional vector.
func codeScale(code []byte, dim int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(code[dim:]))
}

// appendCode appends the code of v to dst, as core/store's
// EncodeVectorCode writes it; the tests build their stores with it.
func appendCode(dst []byte, v []float32) []byte {
	var m float32
	for _, f := range v {
		m = max(m, float32(math.Abs(float64(f))))
	}
	s := m / 127
	for _, f := range v {
		var c int8
		if s > 0 {
			c = int8(max(-127, min(127, math.Round(float64(f/s)))))
		}
		dst = append(dst, byte(c))
	}
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(s))
}

// qQuery is a query quantised once per search: q16 is q/scale rounded to
// int16s, with |q16_i| at most qMax(len(q)), so that no int32 sum of
// q16_i*c_i over the dimensions can overflow.
type qQuery struct {
	q16   []int16
	scale float32
	// perScale is a code's slack per unit of its scale (see slack).
	perScale float32
	// nz lists the dimensions at which q16 is not zero (sparse.go).
	nz []int
}

// qMax is the largest |q16_i| of a dim-dimensional query: 32767, or less
// where dim*127*32767 would pass the int32 range (dim > 516).
func qMax(dim int) int32 {
	if dim == 0 {
		return 32767
	}
	return int32(min(32767, (math.MaxInt32)/(127*int64(dim))))
}

func quantizeQuery(q []float32) qQuery {
	var m float32
	for _, f := range q {
		m = max(m, float32(math.Abs(float64(f))))
	}
	out := qQuery{q16: make([]int16, len(q))}
	if m == 0 {
		return out
	}
	lim := qMax(len(q))
	out.scale = m / float32(lim)
	var l1 float64
	for i, f := range q {
		out.q16[i] = int16(max(-float64(lim), min(float64(lim), math.Round(float64(f/out.scale)))))
		l1 += math.Abs(float64(f))
	}
	out.perScale = float32(l1/2 + float64(out.scale)*127*float64(len(q))/2 + slackRel*127*l1)
	out.nz = nonzeros(out.q16)
	return out
}

// slack bounds how far the approximate score of a code of scale s lies
// from the exact score of its vector v. With the code c (v_i = s*c_i +
// e_i, |e_i| <= s/2, |c_i| <= 127) and the quantised query (q_i =
// scale*q16_i + d_i, |d_i| <= scale/2):
//
//	|q.v - scale*s*(q16.c)| <= sum |q_i||e_i| + sum |d_i|*s*|c_i|
//	                        <= s*(|q|_1/2 + scale*127*dim/2)
//
// to which slack adds the float32 rounding of both scores: slackRel of
// the largest |q.v| can be, |q|_1*127*s, and slackAbs.
func (q *qQuery) slack(s float32) float32 {
	return s*q.perScale + slackAbs
}

// The rounding allowances of slack: float32 sums of a few thousand
// products err by well under a millionth of their magnitude.
const (
	slackRel = 1e-4
	slackAbs = 1e-4
)

// approx returns the approximate score of a vector by its code.
func (q *qQuery) approx(c []int8, scale float32) float32 {
	return q.score(dotI8(q.q16, c), scale)
}

// score returns the approximate score of a code of this scale whose dot
// product with q16 is sum. Every scan computes its scores here, so that
// a batch of codes scored by [dotsI8] gets the scores approx gives one
// code at a time, to the bit.
func (q *qQuery) score(sum int32, scale float32) float32 {
	return q.scale * scale * float32(sum)
}

// dotI8Generic returns the sum of q_i*c_i over len(q) elements; len(c)
// must be at least len(q).
func dotI8Generic(q []int16, c []int8) int32 {
	n := len(q)
	c = c[:n]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += int32(q[i]) * int32(c[i])
		s1 += int32(q[i+1]) * int32(c[i+1])
		s2 += int32(q[i+2]) * int32(c[i+2])
		s3 += int32(q[i+3]) * int32(c[i+3])
	}
	for ; i < n; i++ {
		s0 += int32(q[i]) * int32(c[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// dotsI8Generic is the portable [dotsI8]: dotI8Generic of q with each of
// the len(out) codes of c in turn.
func dotsI8Generic(q []int16, c []int8, out []int32) {
	dim := len(q)
	for r := range out {
		out[r] = dotI8Generic(q, c[r*dim:])
	}
}
