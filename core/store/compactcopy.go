package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// copyBuckets copies every bucket of src into dst, as bbolt's Compact
// does (buckets in key order, each leaf filled to the brim, nested
// buckets and sequences kept), committing dst every txBytes of keys and
// values. After each commit it lets the kernel take back the pages of
// src's memory map that the copy has read (issue 15: see
// releaseMapped), so that a compaction's resident memory is bounded by a
// transaction's worth, not by the store's size: src's pages stay in the
// page cache, and are read again from there if touched again. It returns
// how many keys it copied into each top-level bucket, counted as bbolt's
// BucketStats.KeyN counts them (nested buckets' keys included), for
// checkCopy.
func copyBuckets(dst, src *bolt.DB, txBytes int64) (map[string]int, error) {
	counts := map[string]int{}
	tx, err := dst.Begin(true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if tx != nil {
			tx.Rollback() // after a commit: ErrTxClosed, ignored
		}
	}()
	var size, mapped int64
	commit := func() error {
		if err := tx.Commit(); err != nil {
			return err
		}
		releaseMapped(src.Info().Data, mapped)
		size = 0
		tx, err = dst.Begin(true)
		return err
	}
	// path is the bucket path of the bucket being copied, from the top.
	var copyBucket func(from *bolt.Bucket, path [][]byte) error
	copyBucket = func(from *bolt.Bucket, path [][]byte) error {
		return from.ForEach(func(k, v []byte) error {
			counts[string(path[0])]++
			if size += int64(len(k) + len(v)); size > txBytes {
				if err := commit(); err != nil {
					return err
				}
			}
			to := tx.Bucket(path[0])
			for _, name := range path[1:] {
				to = to.Bucket(name)
			}
			to.FillPercent = 1
			if v != nil {
				return to.Put(k, v)
			}
			sub := from.Bucket(k)
			nb, err := to.CreateBucket(k)
			if err != nil {
				return err
			}
			if err := nb.SetSequence(sub.Sequence()); err != nil {
				return err
			}
			return copyBucket(sub, append(path[:len(path):len(path)], k))
		})
	}
	err = src.View(func(stx *bolt.Tx) error {
		mapped = stx.Size()
		return stx.ForEach(func(name []byte, b *bolt.Bucket) error {
			counts[string(name)] = 0 // an empty bucket counts too
			nb, err := tx.CreateBucket(name)
			if err != nil {
				return fmt.Errorf("bucket %s: %w", name, err)
			}
			if err := nb.SetSequence(b.Sequence()); err != nil {
				return err
			}
			if err := copyBucket(b, [][]byte{name}); err != nil {
				return fmt.Errorf("bucket %s: %w", name, err)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	releaseMapped(src.Info().Data, mapped)
	return counts, nil
}

// checkCopy checks that every top-level bucket of db holds as many keys
// as counts says were copied, and no other bucket exists. Counting walks
// every page, so the walk lets the kernel take them back as it goes, as
// the copy does (countKeys), and at the end.
func checkCopy(db *bolt.DB, counts map[string]int) error {
	var size int64
	defer func() { releaseMapped(db.Info().Data, size) }()
	return db.View(func(tx *bolt.Tx) error {
		size = tx.Size()
		walk := &keyCount{base: db.Info().Data, size: size}
		n := 0
		err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			n++
			want, ok := counts[string(name)]
			if !ok {
				return fmt.Errorf("the copy has a bucket %s that the store has not", name)
			}
			if got := walk.count(b); got != want {
				return fmt.Errorf("bucket %s: the copy holds %d keys, the store %d", name, got, want)
			}
			return nil
		})
		if err == nil && n != len(counts) {
			err = fmt.Errorf("the copy has %d buckets, the store %d", n, len(counts))
		}
		return err
	})
}

// keyCount counts a copy's keys and lets the pages it has read go every
// compactTxBytes of keys and values, as copyBuckets does with the
// store's. Before, bbolt's BucketStats walked a whole bucket at once, and
// the copy of a 396,000-message home stayed resident (issue 13).
type keyCount struct {
	base uintptr
	size int64
	read int64
}

// count returns a bucket's keys as BucketStats.KeyN and copyBuckets
// count them: the keys of nested buckets too.
func (w *keyCount) count(b *bolt.Bucket) int {
	n := 0
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		n++
		if w.read += int64(len(k) + len(v)); w.read > compactTxBytes {
			releaseMapped(w.base, w.size)
			w.read = 0
		}
		if v == nil {
			if sub := b.Bucket(k); sub != nil {
				n += w.count(sub)
			}
		}
	}
	return n
}
