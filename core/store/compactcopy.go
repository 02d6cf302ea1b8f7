package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// copyBuckets copies every bucket of src into dst, as bbolt's Compact
// does (buckets in key order, each leaf filled to the brim, nested
// buckets and sequences kept), committing dst every txBytes of keys and
// values. After each commit it lets the kernel take back the pages of
// src's memory map that the copy has read (see releaseMapped), so that
// a compaction's resident memory is bounded by a transaction's worth,
// not by the store's size: src's pages stay in the page cache, and are
// read again from there if touched again. It returns
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
	var size, read, mapped int64
	var values slab
	commit := func() error {
		written := tx.Size()
		if err := tx.Commit(); err != nil {
			return err
		}
		if copyHook != nil {
			copyHook()
		}
		releaseMapped(src.Info().Data, mapped)
		// And the copy's own pages that the commit touched
		// (its right edge): 46 MiB after a 2.5 GB copy.
		releaseMapped(dst.Info().Data, written)
		size, read = 0, 0
		values = slab{}
		tx, err = dst.Begin(true)
		return err
	}
	// path is the bucket path of the bucket being copied, from the top.
	var copyBucket func(from *bolt.Bucket, path [][]byte) error
	copyBucket = func(from *bolt.Bucket, path [][]byte) error {
		leaf := leafFill{page: dst.Info().PageSize}
		return from.ForEach(func(k, v []byte) error {
			counts[string(path[0])]++
			newPage := leaf.add(len(k), len(v), v == nil)
			if size += int64(len(k) + len(v)); size > txBytes && newPage {
				if err := commit(); err != nil {
					return err
				}
			} else if read += int64(len(k) + len(v)); read > compactReadBytes {
				// The copy holds its own copies of the values (see
				// slab), so the store's pages can go before the commit.
				releaseMapped(src.Info().Data, mapped)
				read = 0
			}
			to := tx.Bucket(path[0])
			for _, name := range path[1:] {
				to = to.Bucket(name)
			}
			to.FillPercent = 1
			if v != nil {
				return to.Put(k, values.clone(v)) // bbolt copies keys itself
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

// copyHook, when set (by tests), is called after each commit of the
// copy but the last.
var copyHook func()

// leafFill follows how bbolt packs the leaves of a bucket that the copy
// appends to, so that the copy commits only where a leaf ends. At a
// commit bbolt splits the leaf node the transaction appended to into
// pages, each filled until one more entry would pass the page size
// (node.splitIndex), but at the node's end it may leave a page part
// filled before the last one: with three entries to a page, five left
// over become pages of two and three. The next transaction rewrites only
// the last page, so a commit in the middle of a page left a part-filled
// leaf behind for good (1,001 leaves where 1,000
// hold every entry). A commit where a page is full leaves whole pages.
type leafFill struct {
	page int // the page size
	size int // bytes on the current page, its header included
	keys int // entries on the current page
	// lost is set once the bucket holds a nested bucket, whose entry's
	// size is not known before the commit: from then on every entry may
	// start a page.
	lost bool
}

// add counts an entry of a k-byte key and a v-byte value (a nested
// bucket when bucket is set) and reports whether it starts a new page.
func (f *leafFill) add(k, v int, bucket bool) bool {
	const pageHeader, element, minKeys = 16, 16, 2 // bbolt's page layout
	if bucket {
		f.lost = true
	}
	el := element + k + v
	if f.keys == 0 || (f.keys >= minKeys && f.size+el > f.page) {
		f.size, f.keys = pageHeader+el, 1
		return true
	}
	f.size += el
	f.keys++
	return f.lost
}

// compactReadBytes is how many bytes of the store's keys and values the
// copy reads between two releases of the store's map. A fault
// maps more of the page cache than the page it touches (fault-around,
// large folios), so in a bucket whose pages lie scattered (sesschunks
// after a 300 MB ingest) a transaction's 4 MiB of records held 180 MiB of
// the map; and releasing it before the commit did not help while bbolt's
// nodes held the values in place (the commit reads them again), so the
// copy takes copies of its own.
const compactReadBytes = 512 << 10

// slab hands out copies of byte slices from large blocks, for the values
// of one transaction of the copy: bbolt keeps a value in place until the
// commit, and a copy lets the store's page that held it go before then.
type slab struct{ b []byte }

// slabBlock is the size of a slab's blocks.
const slabBlock = 1 << 20

// clone returns a copy of p that stays valid as long as the slab's
// caller keeps it (each block lives while any copy in it does).
func (s *slab) clone(p []byte) []byte {
	if len(p) > cap(s.b)-len(s.b) {
		s.b = make([]byte, 0, max(len(p), slabBlock))
	}
	n := len(s.b)
	s.b = append(s.b, p...)
	return s.b[n:len(s.b):len(s.b)]
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
// store's. bbolt's BucketStats walks a whole bucket at once, which kept
// the copy of a 396,000-message home resident.
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
