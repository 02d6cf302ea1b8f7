//go:build amd64 || arm64

package vector

import "unsafe"

// canView is set where little-endian float32s can be read in place: a
// little-endian machine that loads unaligned floats.
const canView = true

// view returns the little-endian float32s of b (len(b) a multiple of 4)
// without copying them; the result aliases b, so it is valid only as long
// as b is (for bbolt, during its transaction).
func view(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}
