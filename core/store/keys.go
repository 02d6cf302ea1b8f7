package store

import (
	"encoding/binary"
	"time"
)

// TimeKey encodes t so that byte order is time order.
func TimeKey(t time.Time) [8]byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(t.UnixNano())^(1<<63))
	return b
}

// TimeFromKey decodes a [TimeKey] into Unix nanoseconds.
func TimeFromKey(b []byte) int64 {
	return int64(binary.BigEndian.Uint64(b) ^ (1 << 63))
}

// SessionPrefix is the key prefix shared by a session's messages and chunks.
func SessionPrefix(ns, session string) []byte {
	b := make([]byte, 0, len(ns)+len(session)+2)
	b = append(b, ns...)
	b = append(b, 0)
	b = append(b, session...)
	return append(b, 0)
}

// NamespacePrefix is the key prefix of a namespace's vectors.
func NamespacePrefix(ns string) []byte {
	return append([]byte(ns), 0)
}

// MsgKey returns the msgs key of a session's message.
func MsgKey(ns, session string, t time.Time, seq uint64) []byte {
	b := SessionPrefix(ns, session)
	tk := TimeKey(t)
	b = append(b, tk[:]...)
	return binary.BigEndian.AppendUint64(b, seq)
}

// VecKey returns the vecs key of a chunk's vector.
func VecKey(ns string, t time.Time, id string) []byte {
	b := NamespacePrefix(ns)
	tk := TimeKey(t)
	b = append(b, tk[:]...)
	return append(b, id...)
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func readU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
