package store

// Vectors live in two buckets: vecs (chunk id → chunk time and vector)
// and vectime (namespace, time, id → nothing), which orders them by time
// for scans of a namespace and a time window.

import (
	"bytes"
	"fmt"
	"time"
)

// PutVector stores a chunk's vector. tm is the chunk's time.
func (t *Tx) PutVector(ns string, tm time.Time, id string, vec []float32) error {
	tk := TimeKey(tm)
	val := append(tk[:], EncodeVector(vec)...)
	if err := t.put(bVecs, []byte(id), val); err != nil {
		return err
	}
	return t.put(bVecTime, VecKey(ns, tm, id), nil)
}

// DeleteVector removes a chunk's vector.
func (t *Tx) DeleteVector(ns string, tm time.Time, id string) error {
	if err := t.del(bVecs, []byte(id)); err != nil {
		return err
	}
	return t.del(bVecTime, VecKey(ns, tm, id))
}

// Vector returns a chunk's vector and its chunk time in Unix nanoseconds,
// or nil.
func (t *Tx) Vector(id string) ([]float32, int64) {
	v := t.get(bVecs, []byte(id))
	if len(v) < 8 {
		return nil, 0
	}
	return DecodeVector(nil, v[8:]), TimeFromKey(v[:8])
}

// RawVector returns a chunk's stored vector bytes, valid for the
// transaction, and its time; nil if there is none.
func (t *Tx) RawVector(id string) ([]byte, int64) {
	v := t.get(bVecs, []byte(id))
	if len(v) < 8 {
		return nil, 0
	}
	return v[8:], TimeFromKey(v[:8])
}

// ScanVectors calls fn for each vector of namespace ns whose chunk time is
// in [from, to), in time order. A zero from or to leaves that side open.
// The raw bytes are valid only during the call.
func (t *Tx) ScanVectors(ns string, from, to time.Time, fn func(id string, unixNano int64, raw []byte) error) error {
	prefix := NamespacePrefix(ns)
	start := prefix
	if !from.IsZero() {
		tk := TimeKey(from)
		start = append(bytes.Clone(prefix), tk[:]...)
	}
	var stop []byte
	if !to.IsZero() {
		tk := TimeKey(to)
		stop = append(bytes.Clone(prefix), tk[:]...)
	}
	vecs := t.b(bVecs)
	c := t.b(bVecTime).Cursor()
	for k, _ := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if stop != nil && bytes.Compare(k, stop) >= 0 {
			break
		}
		rest := k[len(prefix):]
		id := rest[8:]
		v := vecs.Get(id)
		if len(v) < 8 {
			return fmt.Errorf("vector of chunk %s is missing", id)
		}
		if err := fn(string(id), TimeFromKey(rest[:8]), v[8:]); err != nil {
			return err
		}
	}
	return nil
}

// DeleteAllVectors removes every vector, for a re-embedding reindex.
func (t *Tx) DeleteAllVectors() error {
	for _, name := range [][]byte{bVecs, bVecTime} {
		t.dropPending(name)
		if err := t.tx.DeleteBucket(name); err != nil {
			return err
		}
		if _, err := t.tx.CreateBucket(name); err != nil {
			return err
		}
	}
	return nil
}
