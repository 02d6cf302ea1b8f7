package store

import (
	"fmt"
	"slices"
)

// buffered lists the buckets whose writes a transaction holds back and
// applies in key order when it commits. bbolt keeps a leaf's entries in a
// sorted slice and splits leaves only at commit, so thousands of inserts in
// random order into one transaction move memory quadratically; in key order
// each insert appends. Point reads (get) see the held-back writes; cursors
// over these buckets see only what was committed before the transaction,
// which is what every caller wants (see SessionMessages, ScanVectors).
var buffered = map[string]bool{
	string(bMsgs): true, string(bMsgIDs): true, string(bChunks): true, string(bChunkKeys): true,
	string(bVecs): true, string(bVecTime): true, string(bVecKeys): true, string(bVecQ): true,
	string(bOutbox): true,
}

// fillPercent is how full bbolt fills a leaf of these buckets before it
// splits it, where the default (half) does not suit. Vectors arrive in
// time order, mostly after the last, and a scan reads every page of its
// window: a 256-dimension entry is about 1.1 KB, so at half a
// page each 4 KiB leaf holds two; filled, three. The codes (vecq) come
// in the same order, about 300 bytes each.
var fillPercent = map[string]float64{string(bVecTime): 0.95, string(bVecQ): 0.95}

// writeBuf holds a transaction's pending writes per bucket: a nil value
// is a delete.
type writeBuf map[string]map[string][]byte

// deleted marks a pending delete in a writeBuf.
var deleted = []byte(nil)

func (t *Tx) put(bucket, key, val []byte) error {
	if !buffered[string(bucket)] {
		return t.b(bucket).Put(key, val)
	}
	if val == nil {
		val = []byte{}
	}
	t.pending(bucket)[string(key)] = val
	return nil
}

func (t *Tx) del(bucket, key []byte) error {
	if !buffered[string(bucket)] {
		return t.b(bucket).Delete(key)
	}
	t.pending(bucket)[string(key)] = deleted
	return nil
}

func (t *Tx) get(bucket, key []byte) []byte {
	if m := t.buf[string(bucket)]; m != nil {
		if v, ok := m[string(key)]; ok {
			return v
		}
	}
	if t.run != nil && runTags[string(bucket)] != 0 {
		if v, ok := t.runGet(runTags[string(bucket)], key); ok {
			return v
		}
	}
	if b := t.b(bucket); b != nil { // a bucket created on first write
		return b.Get(key)
	}
	return nil
}

func (t *Tx) pending(bucket []byte) map[string][]byte {
	if t.buf == nil {
		t.buf = writeBuf{}
	}
	m := t.buf[string(bucket)]
	if m == nil {
		m = map[string][]byte{}
		t.buf[string(bucket)] = m
	}
	return m
}

// dropPending forgets the pending writes of a bucket that is being
// emptied.
func (t *Tx) dropPending(bucket []byte) { delete(t.buf, string(bucket)) }

// flush applies the pending writes, bucket by bucket, in key order; a
// stage's batch writes those of the hashed buckets into its run
// (stagerun.go).
func (t *Tx) flush() error {
	if t.run != nil {
		if err := t.flushRun(); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(t.buf))
	for name := range t.buf {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		m := t.buf[name]
		keys := sortedKeys(m)
		b := t.tx.Bucket([]byte(name))
		if b == nil { // veckeys or vecq, created on first write
			var err error
			if b, err = t.tx.CreateBucket([]byte(name)); err != nil {
				return fmt.Errorf("creating bucket %s: %w", name, err)
			}
		}
		if fill, ok := fillPercent[name]; ok {
			if bb, ok := b.(boltBucket); ok {
				bb.FillPercent = fill
			}
		}
		for _, k := range keys {
			var err error
			if v := m[k]; v == nil {
				err = b.Delete([]byte(k))
			} else {
				err = b.Put([]byte(k), v)
			}
			if err != nil {
				return err
			}
		}
	}
	t.buf = nil
	return nil
}

// sortedKeys returns the keys of pending writes m in order.
func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
