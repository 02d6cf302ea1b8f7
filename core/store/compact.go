package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Compaction, which a forget needs. bbolt never returns freed pages to the
// file system and never zeroes them: a deleted message's text stays in
// the file, on a free page, until the page happens to be reused.
// [Store.Compact] copies the live data into a new file and swaps it in:
//
//  1. Wait until no transaction of this Store is running, and hold every
//     new one back (they wait; none fails).
//  2. Copy every bucket into <store>.compact (copyBuckets, bbolt's Compact
//     with the copy's memory bounded). The new file stays open, and
//     locked, from here on.
//  3. Check that every bucket holds as many keys as before, record the
//     copy's size in its meta bucket (see [Store.DataSize]), and
//     flush the new file. The copy fills every leaf (FillPercent 1)
//     and writes bucket after bucket, in key order, so each bucket's
//     pages lie in one run (see compactlayout.go).
//  4. Rename it over the store and flush the folder: the swap is atomic,
//     and a crash leaves either the old file or the complete new one.
//  5. Overwrite the old file's bytes with zeros and truncate it (through
//     a descriptor opened before the rename, so the path is never
//     touched), then close it. This scrubs the old blocks where the file
//     system overwrites in place; on copy-on-write file systems and SSDs
//     the old blocks are only released, as with any deleted file.
//
// A crash before step 4 leaves a stray <store>.compact, which the next
// Compact removes; it never holds data the store does not.
//
// Another process that opened the store's path before the rename and was
// waiting for the lock would get the old, unlinked file once this Store
// lets it go. [Open] therefore checks, once it holds the lock, that the
// file it locked is still the one at the path, and opens the path again
// if it is not (see openBolt).

// compactSuffix names the temporary file of a compaction.
const compactSuffix = ".compact"

// compactTxBytes is how many bytes of keys and values one transaction of
// the copy writes, about (it commits where a leaf ends: see leafFill): it
// bounds the copy's memory. bbolt builds each leaf the copy appends to as
// one node until the commit, with a growing slice of its entries, so the
// copy allocates several times its transaction's bytes. Each
// commit also frees the pages of the right edge it rewrites, which a
// later one reuses, away from the run: at 1 MiB the vectors of the
// layout test lay in one window of 64 KiB too many in 7 runs of 30; at 2
// MiB, in none of 90.
const compactTxBytes = 2 << 20

// metaCompacted is the meta key of the store's data size in bytes right
// after its last compaction (see [Store.DataSize]).
const metaCompacted = "compacted_size"

// compactHook, when set (by tests), is called at each step of a
// compaction: "copied" once the copy is complete and flushed, "renamed"
// once it is at the store's path.
var compactHook func(step string)

// CompactStats says what [Store.Compact] did.
type CompactStats struct {
	// Before and After are the store file's size in bytes.
	Before int64 `json:"before"`
	After  int64 `json:"after"`
	// Scrubbed is set when the old file's bytes were overwritten with
	// zeros before it was released.
	Scrubbed bool `json:"scrubbed"`
}

// Compact rewrites the store into a new file that holds only live data,
// swaps it in atomically and scrubs the old file (see the comment at the
// top of compact.go). Transactions of this Store wait while it runs;
// the caller must not hold one, or Compact waits for ever. It is safe to call while other goroutines use the
// Store.
func (s *Store) Compact(ctx context.Context) (CompactStats, error) {
	return s.CompactWith(ctx, CompactOptions{Scrub: true})
}

// CompactOptions tune [Store.CompactWith].
type CompactOptions struct {
	// Scrub overwrites the old file's bytes with zeros before it is
	// released (step 5), as a forget needs. A compaction for layout
	// alone (after an ingest) skips it: it would write as many
	// bytes again.
	Scrub bool
}

// CompactWith is [Store.Compact] with options.
func (s *Store) CompactWith(ctx context.Context, o CompactOptions) (CompactStats, error) {
	if s.kv != nil {
		return CompactStats{}, nil // the KV reclaims space itself (VACUUM)
	}
	if err := s.lockAll(ctx); err != nil {
		return CompactStats{}, fmt.Errorf("compacting store %s: %w", s.path, err)
	}
	defer s.mu.Unlock()
	st := CompactStats{Before: fileSize(s.path)}
	tmp := s.path + compactSuffix
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return st, fmt.Errorf("compacting store: removing %s: %w", tmp, err)
	}
	// The copy's map is as large as the store from the start: growing it
	// remaps the file, and each remap first copies every page the open
	// transaction changed out of the old map (a third of a compaction's
	// CPU at 80 MB). The copy is no larger than the store (bbolt would
	// grow the map if it were).
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{
		Timeout: time.Second, NoFreelistSync: s.db.NoFreelistSync, FreelistType: s.db.FreelistType,
		InitialMmapSize: int(st.Before),
	})
	if err != nil {
		return st, fmt.Errorf("compacting store: creating %s: %w", tmp, err)
	}
	fail := func(err error) (CompactStats, error) {
		dst.Close()
		os.Remove(tmp)
		return st, fmt.Errorf("compacting store %s: %w", s.path, err)
	}
	// The copy's transactions are not flushed one by one (a
	// crash leaves a stray copy either way); dst.Sync flushes it all
	// before the rename, and dst is the store, flushing every commit,
	// from then on.
	dst.NoSync = true
	counts, err := copyBuckets(dst, s.db, compactTxBytes)
	if err != nil {
		return fail(err)
	}
	if err := checkCopy(dst, counts); err != nil {
		return fail(err)
	}
	if err := recordCompacted(dst); err != nil {
		return fail(err)
	}
	dst.NoSync = false
	if err := dst.Sync(); err != nil {
		return fail(err)
	}
	if compactHook != nil {
		compactHook("copied")
	}
	old, err := os.OpenFile(s.path, os.O_RDWR, 0)
	if err != nil {
		return fail(err)
	}
	defer old.Close()
	if err := os.Rename(tmp, s.path); err != nil {
		return fail(err)
	}
	// From here on the new file is the store.
	if compactHook != nil {
		compactHook("renamed")
	}
	syncErr := syncDir(filepath.Dir(s.path))
	if o.Scrub {
		st.Scrubbed = scrub(old) == nil
	}
	s.db.Close()
	s.db = dst
	st.After = fileSize(s.path)
	if syncErr != nil {
		return st, fmt.Errorf("compacting store: flushing %s: %w", filepath.Dir(s.path), syncErr)
	}
	return st, nil
}

// lockAll takes s.mu for writing. It first polls for a while, so that a
// moment without transactions is taken without holding new ones back;
// then it queues for the lock, which holds new transactions back until
// the running ones end (a steady stream of readers would otherwise starve
// it). It gives up if ctx ends while polling.
func (s *Store) lockAll(ctx context.Context) error {
	wait := 50 * time.Microsecond
	deadline := time.Now().Add(200 * time.Millisecond)
	for !s.mu.TryLock() {
		if time.Now().After(deadline) {
			s.mu.Lock()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Millisecond)
	}
	return nil
}

// scrub overwrites f with zeros, flushes it and truncates it.
func scrub(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	zeros := make([]byte, 1<<20)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	for left := fi.Size(); left > 0; {
		n := int64(len(zeros))
		if left < n {
			n = left
		}
		if _, err := f.Write(zeros[:n]); err != nil {
			return err
		}
		left -= n
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	return f.Sync()
}

// openBolt opens the bbolt file at path and checks, once it holds the
// lock, that the file it locked is still the one at path: a
// [Store.Compact] in another process may have renamed a new file over it
// while this one waited. It then opens the path again.
func openBolt(path string, opts *bolt.Options) (*bolt.DB, error) {
	o := *opts
	for attempt := 0; ; attempt++ {
		var f *os.File
		o.OpenFile = func(name string, flag int, mode os.FileMode) (*os.File, error) {
			var err error
			f, err = os.OpenFile(name, flag, mode)
			return f, err
		}
		db, err := bolt.Open(path, 0o600, &o)
		if err != nil {
			return nil, err
		}
		if f == nil {
			return db, nil
		}
		locked, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || os.SameFile(locked, now) {
			return db, nil
		}
		db.Close()
		if attempt == 3 {
			return nil, fmt.Errorf("%s was replaced by another file %d times while waiting for its lock", path, attempt+1)
		}
	}
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// syncDir flushes a folder's entries.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// DeleteMeta removes a metadata value (such as the marker of a pending
// forget, the closed mark of a forgotten session).
func (t *Tx) DeleteMeta(key string) error { return t.b(bMeta).Delete([]byte(key)) }
