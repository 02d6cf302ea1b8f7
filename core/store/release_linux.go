//go:build linux

package store

import (
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// ReleaseMemory drops the store file's pages from the process's resident
// set (issue 13). bbolt reads the file through a shared, read-only memory
// map, and the kernel maps in the pages around each one read (64 KiB by
// default), so a long ingest that reads records all over the store would
// count most of the store in its RSS. The pages stay in the kernel's page
// cache and come back on the next read: nothing is lost but the count. It
// runs inside a read transaction, which holds off bbolt's re-mapping of a
// growing file. Safe for concurrent use; errors are ignored (the pages
// then simply stay).
func (s *Store) ReleaseMemory() {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil {
		return
	}
	s.db.View(func(tx *bolt.Tx) error {
		release(tx)
		return nil
	})
}

// ReleaseMemory is [Store.ReleaseMemory] inside a transaction, for a
// caller that reads much in one transaction. The transaction itself keeps
// the mapping in place: a read transaction holds off re-mapping, and a
// write transaction re-maps only when it commits.
func (t *Tx) ReleaseMemory() { release(t.tx) }

func release(tx *bolt.Tx) {
	info := tx.DB().Info()
	if info == nil || info.Data == 0 {
		return
	}
	n := uintptr(tx.Size())
	n -= n % uintptr(syscall.Getpagesize())
	if n > 0 {
		syscall.Syscall(syscall.SYS_MADVISE, info.Data, n, syscall.MADV_DONTNEED)
	}
}
