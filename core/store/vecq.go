package store

// Vector codes, for a smaller footprint. Beside every vector in vectime the
// store keeps its int8 code under the same key, so that a search can scan
// a quarter of the bytes (core/vector's codesearch.go) and read the
// float32s of its best candidates only:
//
//	vecq      namespace 0 time id → code: dim int8s c_i = round(v_i/s),
//	          then s = max|v_i|/127 as a little-endian float32
//
// Every write of a vector writes its code in the same transaction, and
// every delete removes it. A store written before codes has vectors
// without them: the meta key vecq_complete says that every vector has its
// code, and searches use codes only then. [Store.BackfillVectorCodes]
// writes the missing codes and sets it; a new store sets it at creation.
// Schema version 3 (store.go) keeps binaries that do not write codes out
// of a store that has them.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"
	"unsafe"
)

var bVecQ = []byte("vecq")

// metaVecCodes is set (to "1") when every vector has its code in vecq.
const metaVecCodes = "vecq_complete"

// EncodeVectorCode returns the int8 code of v (see the top of vecq.go).
func EncodeVectorCode(v []float32) []byte {
	return vectorCode(EncodeVector(v))
}

// vectorCode returns the code of a vector stored as little-endian
// float32s (EncodeVector).
func vectorCode(raw []byte) []byte {
	n := len(raw) / 4
	f := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])) }
	var m float32
	for i := range n {
		m = max(m, float32(math.Abs(float64(f(i)))))
	}
	s := m / 127
	code := make([]byte, n+4)
	if s > 0 {
		for i := range n {
			code[i] = byte(int8(max(-127, min(127, math.Round(float64(f(i)/s))))))
		}
	}
	binary.LittleEndian.PutUint32(code[n:], math.Float32bits(s))
	return code
}

// putVecEntry writes a vector's vectime entry and its code.
func (t *Tx) putVecEntry(key, raw []byte) error {
	if err := t.put(bVecTime, key, raw); err != nil {
		return err
	}
	return t.put(bVecQ, key, vectorCode(raw))
}

// delVecEntry removes a vector's vectime entry and its code.
func (t *Tx) delVecEntry(key []byte) error {
	if err := t.del(bVecTime, key); err != nil {
		return err
	}
	return t.del(bVecQ, key)
}

// VectorCodesReady reports whether every vector of the store has its
// code, so that a search may scan the codes ([Tx.ScanVectorCodes]).
func (t *Tx) VectorCodesReady() bool {
	return string(t.b(bMeta).Get([]byte(metaVecCodes))) == "1" && t.b(bVecQ) != nil
}

// ScanVectorCodes is [Tx.ScanVectors] over the vectors' codes: it calls
// fn for the code of each vector of namespace ns whose chunk time is in
// [from, to), in time order, passing by the chunks of unpublished stages.
// The id and code are valid only during the call. Use it only when
// [Tx.VectorCodesReady] says every vector has one.
func (t *Tx) ScanVectorCodes(ns string, from, to time.Time, fn func(id []byte, unixNano int64, code []byte) error) error {
	b := t.b(bVecQ)
	if b == nil {
		return nil
	}
	prefix, start, stop := vecRange(ns, from, to)
	staged := t.stagedFilter()
	c := b.Cursor()
	for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if stop != nil && bytes.Compare(k, stop) >= 0 {
			break
		}
		rest := k[len(prefix):]
		if len(rest) < 8 {
			return fmt.Errorf("bad vector code key %q", k)
		}
		id := rest[8:]
		if staged != nil && staged(k, id) {
			continue
		}
		if err := fn(id, TimeFromKey(rest[:8]), v); err != nil {
			return err
		}
	}
	return nil
}

// VectorAt returns the stored vector (little-endian float32s, valid for
// the transaction) of chunk id of namespace ns at chunk time unixNano, as
// [Tx.ScanVectors] would hand it over, or nil if there is none. It costs
// one lookup (two for a vector of layout 1, see vectors.go).
func (t *Tx) VectorAt(ns string, unixNano int64, id string) []byte {
	v := t.get(bVecTime, VecKey(ns, time.Unix(0, unixNano), id))
	if v == nil {
		return nil
	}
	if len(v) == 0 { // layout 1
		old := t.get(bVecs, []byte(id))
		if len(old) < 8 {
			return nil
		}
		return old[8:]
	}
	return v
}

// BackfillVectorCodes writes the missing codes of up to limit vectors,
// starting at the vectime key from (nil for the first call). It returns
// the key to start the next call at, in a new transaction, or nil when
// every vector has its code, which it then records.
func (t *Tx) BackfillVectorCodes(from []byte, limit int) ([]byte, error) {
	if t.VectorCodesReady() {
		return nil, nil
	}
	q := t.b(bVecQ)
	var vecs Bucket
	n := 0
	c := t.b(bVecTime).Cursor()
	for k, v := c.Seek(from); k != nil; k, v = c.Next() {
		if q != nil && q.Get(k) != nil {
			continue
		}
		if n >= limit {
			return bytes.Clone(k), nil
		}
		if len(v) == 0 { // layout 1
			i := bytes.IndexByte(k, 0)
			if i < 0 || len(k) < i+9 {
				return nil, fmt.Errorf("backfilling vector codes: bad vector key %q", k)
			}
			if vecs == nil {
				vecs = t.b(bVecs)
			}
			old := vecs.Get(k[i+9:])
			if len(old) < 8 {
				return nil, fmt.Errorf("backfilling vector codes: vector of chunk %s is missing", k[i+9:])
			}
			v = old[8:]
		}
		if err := t.put(bVecQ, bytes.Clone(k), vectorCode(v)); err != nil {
			return nil, err
		}
		n++
	}
	return nil, t.SetMeta(metaVecCodes, []byte("1"))
}

// BackfillVectorCodes writes the code of every vector that lacks one,
// batch vectors to a write transaction (see [Tx.BackfillVectorCodes]),
// and records that every vector has its code. It stops early when ctx
// ends; what it wrote stays written. In a store whose vectors all have
// codes, the usual case, it costs one read transaction and writes
// nothing. It is safe to run while other goroutines use the store.
func (s *Store) BackfillVectorCodes(ctx context.Context, batch int) error {
	var ready bool
	if err := s.View(func(tx *Tx) error { ready = tx.VectorCodesReady(); return nil }); err != nil {
		return fmt.Errorf("backfilling vector codes: %w", err)
	}
	if ready {
		return nil
	}
	return s.inSteps(ctx, "backfilling vector codes", func(tx *Tx, from []byte) ([]byte, error) {
		return tx.BackfillVectorCodes(from, batch)
	})
}

// faultAround is the span the kernel maps around a page that a read of
// the memory map faults in (see compactlayout.go's faultWindow).
const faultAround = faultWindow

// ReleaseVectors lets this process's resident set drop the pages of the
// store's memory map around vectors that [Tx.VectorAt] returned, once the
// caller is done with them (madvise MADV_DONTNEED on Linux, over the
// 64 KiB the kernel maps around a page it faults in; one call for each
// run of adjacent windows, for vectors in store order). A search that
// reads a few hundred vectors scattered over the store by key would
// otherwise keep 64 KiB mapped for each, about what scanning them all
// would. The map is read-only and shared: the pages stay in the page
// cache, and a later read of them maps them again, so nothing held
// becomes invalid. It does nothing in a KV ([OpenKV]), in a write
// transaction, and elsewhere than Linux.
func (t *Tx) ReleaseVectors(vs [][]byte) {
	bt, ok := t.tx.(boltTx)
	if !ok || bt.tx.Writable() || len(vs) == 0 {
		return
	}
	base := bt.tx.DB().Info().Data
	size := uintptr(bt.tx.Size())
	var lo, hi uintptr // the run of windows to release, offsets in the map
	for _, v := range vs {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
		if len(v) == 0 || p < base || p+uintptr(len(v)) > base+size {
			continue // not in the map
		}
		l := (p - base) &^ (faultAround - 1)
		h := min(size, (p-base+uintptr(len(v))+faultAround-1)&^(faultAround-1))
		if hi > lo && l <= hi && h >= lo {
			lo, hi = min(lo, l), max(hi, h)
			continue
		}
		if hi > lo {
			releaseMapped(base+lo, int64(hi-lo))
		}
		lo, hi = l, h
	}
	if hi > lo {
		releaseMapped(base+lo, int64(hi-lo))
	}
}
