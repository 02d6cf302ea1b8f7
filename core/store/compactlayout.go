package store

import (
	"fmt"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// How the store's pages lie in its file. A recall scans the
// vectime bucket through bbolt's memory map, and the kernel maps the
// 64 KiB around every page it faults in (fault-around), so what a scan
// costs in resident memory depends on how many 64 KiB windows of the file
// the bucket's pages fall in, not only on how many pages it has. A staged
// ingest interleaves the buckets' pages; [Store.Compact] writes each
// bucket's pages in one run, full. [Store.DataSize] lets a caller decide
// when compacting pays; [Store.VectorLayout] measures the result.

// faultWindow is the span the kernel maps around a faulted page of a
// file (fault_around_bytes, 64 KiB by default on Linux).
const faultWindow = 64 << 10

// DataSize returns how many bytes of the store file hold pages (bbolt's
// high-water mark, which grows with the data; the file itself grows in
// steps of up to 16 MiB) and what that was right after the store's last
// [Store.Compact] (0 if it was never compacted). On a KV ([OpenKV]) both
// are 0. It runs a read transaction.
func (s *Store) DataSize() (now, compacted int64, err error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.kv != nil {
		return 0, 0, nil
	}
	if s.db == nil {
		return 0, 0, s.unusable()
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		now = tx.Size()
		if m := tx.Bucket(bMeta); m != nil {
			compacted = int64(readU64(m.Get([]byte(metaCompacted))))
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("reading the size of store %s: %w", s.path, err)
	}
	return now, compacted, nil
}

// recordCompacted writes db's data size into its meta bucket, for
// [Store.DataSize].
func recordCompacted(db *bolt.DB) error {
	return db.Update(func(tx *bolt.Tx) error {
		m := tx.Bucket(bMeta)
		if m == nil {
			return fmt.Errorf("the copy has no %s bucket", bMeta)
		}
		return m.Put([]byte(metaCompacted), u64(uint64(tx.Size())))
	})
}

// Layout says how a bucket's leaves lie in the store file.
type Layout struct {
	// Keys is how many entries the bucket holds.
	Keys int `json:"keys"`
	// LeafBytes is the size of its leaf pages, LeafFill the share of it
	// that holds entries (bbolt's LeafInuse / LeafAlloc).
	LeafBytes int64   `json:"leaf_bytes"`
	LeafFill  float64 `json:"leaf_fill"`
	// Windows is how many 64 KiB windows of the file its entries lie in:
	// what a scan of the whole bucket maps with fault-around. MinWindows
	// is the least that LeafBytes could lie in.
	Windows    int `json:"windows"`
	MinWindows int `json:"min_windows"`
}

// Scatter is Windows / MinWindows: 1 for a bucket whose leaves lie in one
// run, more the more they are spread among other buckets' pages.
func (l Layout) Scatter() float64 {
	if l.MinWindows == 0 {
		return 0
	}
	return float64(l.Windows) / float64(l.MinWindows)
}

// VectorLayout measures how the vectime bucket (the vectors, in time
// order) lies in the store file. It reads every entry's position in the
// memory map, not its bytes, in one read transaction: about as costly as
// a recall that scans every vector. On a KV it returns a zero Layout.
func (s *Store) VectorLayout() (Layout, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var l Layout
	if s.kv != nil {
		return l, nil
	}
	if s.db == nil {
		return l, s.unusable()
	}
	base := s.db.Info().Data
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bVecTime)
		if b == nil {
			return nil
		}
		st := b.Stats()
		l.Keys, l.LeafBytes = st.KeyN, int64(st.LeafAlloc)
		if st.LeafAlloc > 0 {
			l.LeafFill = float64(st.LeafInuse) / float64(st.LeafAlloc)
		}
		l.MinWindows = int((l.LeafBytes + faultWindow - 1) / faultWindow)
		size := uintptr(tx.Size())
		seen := make([]uint64, size/faultWindow/64+1)
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			// The key lies on the same leaf as its value, and is never
			// empty; an empty value (layout 1) has no address.
			off := uintptr(unsafe.Pointer(unsafe.SliceData(k))) - base
			if off >= size {
				continue // not in the map (cannot happen in a read transaction)
			}
			w := off / faultWindow
			if seen[w/64]&(1<<(w%64)) == 0 {
				seen[w/64] |= 1 << (w % 64)
				l.Windows++
			}
		}
		return nil
	})
	if err != nil {
		return l, fmt.Errorf("measuring the vectors' layout in %s: %w", s.path, err)
	}
	return l, nil
}
