package store

// Vectors (one cursor walk per scan). A chunk's vector lives in
// the time-ordered bucket, so that a scan of a namespace and a time
// window reads each vector where the cursor stands:
//
//	vectime   namespace 0 time id → vector (little-endian float32s)
//	veckeys   chunk id → namespace 0 time (the vectime key without the
//	          id), to find a vector by id; created on first write
//	vecq      the same keys as vectime → the vector's int8 code (vecq.go)
//
// Layout 1, that of a version-1 store, kept the vector in a bucket of
// its own, and homes written in it may still hold it:
//
//	vecs      chunk id → time and vector
//	vectime   namespace 0 time id → nothing
//
// Readers take both: a vectime entry with an empty value sends them to
// vecs, and an id that veckeys does not know is looked up in vecs. Writers
// write only the new layout, and a write or delete of a chunk's vector
// removes its layout-1 record, so a home moves over as it is rewritten;
// [Tx.MigrateVectors] moves the rest in steps. The id map is a bucket of
// its own, not vecs with a shorter value, so that a record's layout is
// never guessed from its length.
//
// A staged ingest (stage.go) writes its vectors into vectime as it goes;
// scans pass by the chunks of unpublished stages.

import (
	"bytes"
	"context"
	"fmt"
	"time"
)

var bVecKeys = []byte("veckeys")

// vecPrefix returns the vectime key of a vector without its id.
func vecPrefix(ns string, tm time.Time) []byte {
	b := NamespacePrefix(ns)
	tk := TimeKey(tm)
	return append(b, tk[:]...)
}

// PutVector stores a chunk's vector. tm is the chunk's time.
func (t *Tx) PutVector(ns string, tm time.Time, id string, vec []float32) error {
	if err := t.putVector(ns, tm, id, EncodeVector(vec)); err != nil {
		return fmt.Errorf("storing the vector of chunk %s: %w", id, err)
	}
	return nil
}

// putVector writes raw as chunk id's vector in the new layout, removing
// what an earlier write of the same chunk left under another key.
func (t *Tx) putVector(ns string, tm time.Time, id string, raw []byte) error {
	p := vecPrefix(ns, tm)
	if err := t.dropVector(ns, id, p); err != nil {
		return err
	}
	if err := t.put(bVecKeys, []byte(id), p); err != nil {
		return err
	}
	return t.putVecEntry(append(p, id...), raw)
}

// dropVector removes chunk id's vector records, except the vectime entry
// under keep (a key without the id; nil keeps nothing): the new layout's
// id entry and vectime entry, and a layout-1 record with its vectime
// entry in namespace ns.
func (t *Tx) dropVector(ns, id string, keep []byte) error {
	if p := t.get(bVecKeys, []byte(id)); p != nil {
		if !bytes.Equal(p, keep) {
			if err := t.delVecEntry(append(bytes.Clone(p), id...)); err != nil {
				return err
			}
		}
		if keep == nil {
			if err := t.del(bVecKeys, []byte(id)); err != nil {
				return err
			}
		}
	}
	if v := t.get(bVecs, []byte(id)); v != nil {
		if len(v) >= 8 {
			p := append(NamespacePrefix(ns), v[:8]...)
			if !bytes.Equal(p, keep) {
				if err := t.delVecEntry(append(p, id...)); err != nil {
					return err
				}
			}
		}
		if err := t.del(bVecs, []byte(id)); err != nil {
			return err
		}
	}
	return nil
}

// DeleteVector removes a chunk's vector. tm is the chunk's time, as given
// to [Tx.PutVector].
func (t *Tx) DeleteVector(ns string, tm time.Time, id string) error {
	if err := t.dropVector(ns, id, nil); err != nil {
		return fmt.Errorf("deleting the vector of chunk %s: %w", id, err)
	}
	if err := t.delVecEntry(VecKey(ns, tm, id)); err != nil {
		return fmt.Errorf("deleting the vector of chunk %s: %w", id, err)
	}
	return nil
}

// Vector returns a chunk's vector and its chunk time in Unix nanoseconds,
// or nil.
func (t *Tx) Vector(id string) ([]float32, int64) {
	raw, tm := t.RawVector(id)
	if raw == nil {
		return nil, 0
	}
	return DecodeVector(nil, raw), tm
}

// RawVector returns a chunk's stored vector bytes, valid for the
// transaction, and its time; nil if there is none. It costs two lookups.
func (t *Tx) RawVector(id string) ([]byte, int64) {
	if p := t.get(bVecKeys, []byte(id)); len(p) >= 9 {
		if v := t.get(bVecTime, append(bytes.Clone(p), id...)); len(v) > 0 {
			return v, TimeFromKey(p[len(p)-8:])
		}
	}
	v := t.get(bVecs, []byte(id)) // layout 1
	if len(v) < 8 {
		return nil, 0
	}
	return v[8:], TimeFromKey(v[:8])
}

// ScanVectors calls fn for each vector of namespace ns whose chunk time is
// in [from, to), in time order, passing by the chunks of unpublished
// stages. A zero from or to leaves that side open. The id and raw bytes
// are valid only during the call. It reads what was committed before the
// transaction.
func (t *Tx) ScanVectors(ns string, from, to time.Time, fn func(id []byte, unixNano int64, raw []byte) error) error {
	prefix, start, stop := vecRange(ns, from, to)
	staged := t.stagedFilter()
	var vecs Bucket
	c := t.b(bVecTime).Cursor()
	for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if stop != nil && bytes.Compare(k, stop) >= 0 {
			break
		}
		rest := k[len(prefix):]
		if len(rest) < 8 {
			return fmt.Errorf("bad vector key %q", k)
		}
		id := rest[8:]
		if staged != nil && staged(k, id) {
			continue
		}
		if len(v) == 0 { // layout 1
			if vecs == nil {
				vecs = t.b(bVecs)
			}
			old := vecs.Get(id)
			if len(old) < 8 {
				return fmt.Errorf("vector of chunk %s is missing", id)
			}
			v = old[8:]
		}
		if err := fn(id, TimeFromKey(rest[:8]), v); err != nil {
			return err
		}
	}
	return nil
}

// DeleteAllVectors removes every vector and its code, for a re-embedding
// reindex; the vectors written after it have their codes (vecq.go).
func (t *Tx) DeleteAllVectors() error {
	t.vecReset = true // other processes drop their caches (notify.go)
	for _, name := range [][]byte{bVecs, bVecTime, bVecKeys, bVecQ} {
		t.dropPending(name)
		if t.tx.Bucket(name) != nil {
			if err := t.tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("emptying bucket %s: %w", name, err)
			}
		}
		if _, err := t.tx.CreateBucket(name); err != nil {
			return fmt.Errorf("emptying bucket %s: %w", name, err)
		}
	}
	return t.SetMeta(metaVecCodes, []byte("1"))
}

// MigrateVectors moves up to limit vectors of layout 1 (see the top of
// vectors.go) into the current one, starting at
// the vectime key from (nil for the first call). It returns the key to
// start the next call at, in a new transaction, or nil when it is done.
// The transaction writes each moved vector once.
func (t *Tx) MigrateVectors(from []byte, limit int) ([]byte, error) {
	vecs := t.b(bVecs)
	if k, _ := vecs.Cursor().First(); k == nil {
		return nil, nil // nothing of layout 1 left
	}
	n := 0
	c := t.b(bVecTime).Cursor()
	for k, v := c.Seek(from); k != nil; k, v = c.Next() {
		if len(v) > 0 {
			continue
		}
		if n >= limit {
			return bytes.Clone(k), nil
		}
		i := bytes.IndexByte(k, 0)
		if i < 0 || len(k) < i+9 {
			return nil, fmt.Errorf("migrating vectors: bad vector key %q", k)
		}
		p, id := k[:i+9], k[i+9:]
		old := vecs.Get(id)
		if len(old) < 8 {
			return nil, fmt.Errorf("migrating vectors: vector of chunk %s is missing", id)
		}
		if err := t.put(bVecKeys, id, bytes.Clone(p)); err != nil {
			return nil, err
		}
		if err := t.putVecEntry(bytes.Clone(k), bytes.Clone(old[8:])); err != nil {
			return nil, err
		}
		if err := t.del(bVecs, id); err != nil {
			return nil, err
		}
		n++
	}
	// Layout-1 records with no vectime entry are those of unpublished
	// stages of an older version, which their discard removes.
	return nil, nil
}

// MigrateVectors moves every vector of layout 1 into the current one,
// batch vectors to a write transaction (see [Tx.MigrateVectors]), and
// stops early when ctx ends; what it moved
// stays moved. Readers take both layouts, so it is never required: it
// makes scans of an old home one cursor walk. It is safe to run while
// other goroutines use the store.
func (s *Store) MigrateVectors(ctx context.Context, batch int) error {
	var legacy bool
	s.View(func(tx *Tx) error {
		if b := tx.b(bVecs); b != nil {
			k, _ := b.Cursor().First()
			legacy = k != nil
		}
		return nil
	})
	if !legacy {
		return nil // the usual case: one read, no write
	}
	return s.inSteps(ctx, "migrating vectors", func(tx *Tx, from []byte) ([]byte, error) {
		return tx.MigrateVectors(from, batch)
	})
}

// inSteps runs step in one write transaction after another, each taking
// the key the last one returned, until one returns nil or ctx ends; what
// the steps wrote stays written. what names the work in errors.
func (s *Store) inSteps(ctx context.Context, what string, step func(tx *Tx, from []byte) ([]byte, error)) error {
	var from []byte
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := s.Update(func(tx *Tx) error {
			var err error
			from, err = step(tx, from)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if from == nil {
			return nil
		}
	}
}

// vecRange returns the keys that bound a scan of namespace ns's vectors
// (or codes) with chunk times in [from, to): the namespace's prefix, the
// key to seek, and the key to stop before (nil: the prefix's end). A
// zero from or to leaves that side open.
func vecRange(ns string, from, to time.Time) (prefix, start, stop []byte) {
	prefix = NamespacePrefix(ns)
	start = prefix
	if !from.IsZero() {
		tk := TimeKey(from)
		start = append(bytes.Clone(prefix), tk[:]...)
	}
	if !to.IsZero() {
		tk := TimeKey(to)
		stop = append(bytes.Clone(prefix), tk[:]...)
	}
	return prefix, start, stop
}
