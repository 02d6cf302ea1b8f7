package vector

// AppendCode is appendCode, for the external tests that check it against
// core/store's codes.
var AppendCode = appendCode

// Approximator returns the approximate score of a code for query q, as a
// search of codes computes it.
func Approximator(q []float32) func(code []byte) float32 {
	qq := quantizeQuery(q)
	return func(code []byte) float32 {
		dim := len(code) - 4
		return qq.approx(codeInt8s(code, dim), codeScale(code, dim))
	}
}
