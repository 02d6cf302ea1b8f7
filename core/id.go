package core

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// Chunk ids are written in this lower-case base-32 alphabet, which leaves
// out i, l, o and u so that ids can be read aloud and typed back.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// MinIDLen is the length of a chunk id when it does not collide with another.
// Six characters give 2^30 ids; an id that would collide is lengthened one
// character at a time, up to MaxIDLen.
const (
	MinIDLen = 6
	MaxIDLen = 25
)

// ChunkKey is the full identity of a chunk: a hash of its namespace, its
// session, its first message and its offset within that message. Its short
// id is a prefix of the key's base-32 form.
type ChunkKey [16]byte

// NewChunkKey returns the key of the chunk that starts offset lines into the
// message first, in the given namespace and session.
func NewChunkKey(namespace, session string, first MessageKey, offset int) ChunkKey {
	h := sha256.New()
	h.Write([]byte(namespace))
	h.Write([]byte{0})
	h.Write([]byte(session))
	h.Write([]byte{0})
	h.Write(first[:])
	var off [8]byte
	binary.BigEndian.PutUint64(off[:], uint64(offset))
	h.Write(off[:])
	var k ChunkKey
	copy(k[:], h.Sum(nil))
	return k
}

// ID returns the first n characters of the key's base-32 form, for
// MinIDLen <= n <= MaxIDLen.
func (k ChunkKey) ID(n int) string {
	n = min(max(n, MinIDLen), MaxIDLen)
	out := make([]byte, n)
	// Read the key as a big-endian bit string, five bits per character.
	for i := range n {
		bit := i * 5
		byteIdx, shift := bit/8, bit%8
		v := uint16(k[byteIdx]) << 8
		if byteIdx+1 < len(k) {
			v |= uint16(k[byteIdx+1])
		}
		out[i] = idAlphabet[(v>>(11-shift))&0x1f]
	}
	return string(out)
}

// ValidID reports whether s has the form of a chunk id.
func ValidID(s string) bool {
	if len(s) < MinIDLen || len(s) > MaxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIDChar(s[i]) {
			return false
		}
	}
	return true
}

func isIDChar(c byte) bool {
	for i := 0; i < len(idAlphabet); i++ {
		if idAlphabet[i] == c {
			return true
		}
	}
	return false
}

// MarshalText writes the key in hex.
func (k ChunkKey) MarshalText() ([]byte, error) {
	return []byte(hex.EncodeToString(k[:])), nil
}

// UnmarshalText reads a key written by MarshalText.
func (k *ChunkKey) UnmarshalText(b []byte) error {
	if hex.DecodedLen(len(b)) != len(k) {
		return fmt.Errorf("chunk key %q: want %d hex digits", b, 2*len(k))
	}
	_, err := hex.Decode(k[:], b)
	return err
}
