package vector

import (
	"encoding/binary"
	"math"
)

// appendLE appends the little-endian float32s of b to dst: the format of
// core/store's EncodeVector.
func appendLE(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}
