package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/huimemory/huimemory/core"
)

// Shared access (many agents, one memory).
//
// bbolt locks its file for a handle's whole life: exclusively for a
// read-write handle, shared for a read-only one. A [Store] opened with
// [Options.Shared] therefore holds a read-only handle, which any number of
// processes may hold at once, and takes the exclusive handle only for a
// write. Two more lock files beside the store coordinate the processes:
//
//   - <store>.writer serialises writers. A writer holds it exclusively for
//     a whole write (plan, chunk, embed, commit, index), waiting at most
//     [Options.LockWait] for another writer; the file names the holder,
//     for the message of the one that gave up.
//   - <store>.gate lets a writer in past a stream of readers. A process
//     holds it shared only while it opens its read-only handles, and a
//     writer holds it exclusively from its upgrade (see [Store.Upgrade])
//     to its downgrade: no new reader opens the store meanwhile, the
//     readers that hold it finish (or yield, see [Store.WriterWaiting]),
//     and bbolt's exclusive lock follows. A reader therefore sees the
//     store (and the index, which the engine opens under the same locks)
//     as it was before a write or after it, never half-way.
//
//   - <store>.knock tells a writer that keeps the home between writes
//     (see [Store.Knocked]) that someone waits for it. A process holds it
//     shared while it waits for the writer lock or the gate; the holder
//     of both probes it and lets them go when it is held.
//
// Locks are always taken in the order writer, gate, store file; a
// process never waits for the writer lock while it holds a read handle
// that the writer it waits for would need (the engine yields its
// handles while it waits).

// Options tune [OpenWith].
type Options struct {
	// LockWait bounds every wait for another process: for the store's
	// lock, the gate and the writer lock. 0 means one second.
	LockWait time.Duration
	// Shared opens the store read-only and takes the exclusive lock only
	// for writes ([Store.Upgrade], [Store.Downgrade]).
	Shared bool
	// Owner describes this process in the writer lock file, such as
	// "huimem ingest"; the message of a writer that waited in vain names
	// it.
	Owner string
}

// ErrReadOnly means the home cannot be written (read-only media, or no
// permission): reads work, writes and repairs do not.
var ErrReadOnly = errors.New("the home is read-only")

// lockFile is one of the coordination files.
type lockFile struct {
	f        *os.File
	writable bool
	// knock, when set, is held while this process waits for l.
	knock *knockFile
	// mu is held while this process takes, holds or drops the flock, so
	// that a probe ([Store.WriterWaiting]) never converts or drops a lock
	// this process holds: flock locks belong to the open file, not to a
	// goroutine.
	mu sync.Mutex
}

func openLockFile(path string) (*lockFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err == nil {
		return &lockFile{f: f, writable: true}, nil
	}
	if !readOnlyErr(err) {
		return nil, fmt.Errorf("opening lock file %s: %w", path, err)
	}
	// A read-only home: an existing file still takes a flock.
	if f, err2 := os.Open(path); err2 == nil {
		return &lockFile{f: f}, nil
	}
	return nil, nil // nothing to coordinate with: nobody can write here
}

func (l *lockFile) close() {
	if l != nil && l.f != nil {
		l.f.Close()
	}
}

// readOnlyErr reports whether err says the file system refused a write.
func readOnlyErr(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, ErrReadOnly)
}

// IsReadOnly reports whether err means that the home cannot be written.
func IsReadOnly(err error) bool { return readOnlyErr(err) }

// acquire takes l's flock, polling until deadline, and l.mu until
// release. A nil l succeeds.
func (l *lockFile) acquire(ctx context.Context, exclusive bool, deadline time.Time) (ok bool, err error) {
	if l == nil {
		return true, nil
	}
	l.mu.Lock()
	defer func() {
		if !ok {
			l.mu.Unlock()
		}
	}()
	wait := 200 * time.Microsecond
	knocked := false
	defer func() {
		if knocked {
			l.knock.leave()
		}
	}()
	for {
		ok, err := tryFlock(l.f, exclusive)
		if ok || err != nil {
			return ok, err
		}
		if !time.Now().Before(deadline) {
			return false, nil
		}
		if !knocked && l.knock != nil {
			l.knock.enter()
			knocked = true
		}
		// Jitter keeps processes that poll together from colliding again.
		d := min(wait+rand.N(wait), time.Until(deadline))
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(d):
		}
		wait = min(2*wait, 8*time.Millisecond)
	}
}

func (l *lockFile) release() {
	if l != nil {
		unflock(l.f)
		l.mu.Unlock()
	}
}

// holder returns what the writer lock file says of its holder.
func (l *lockFile) holder() string {
	if l == nil {
		return ""
	}
	data, err := os.ReadFile(l.f.Name())
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// openShared opens the store read-only, creating it first (under the
// writer lock) if it does not exist or lacks its buckets.
func openShared(path string, o Options) (*Store, error) {
	s := &Store{path: path, opts: o, shared: true}
	var err error
	if s.gate, err = openLockFile(path + ".gate"); err != nil {
		return nil, err
	}
	if s.writer, err = openLockFile(path + ".writer"); err != nil {
		s.gate.close()
		return nil, err
	}
	if s.knock, err = openKnockFile(path + ".knock"); err != nil {
		s.closeLocks()
		return nil, err
	}
	if s.knock != nil {
		if s.gate != nil {
			s.gate.knock = s.knock
		}
		if s.writer != nil {
			s.writer.knock = s.knock
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 || !s.initialised() {
		if err := s.initialise(); err != nil {
			s.closeLocks()
			return nil, err
		}
	}
	if err := s.openRead(context.Background()); err != nil {
		s.closeLocks()
		return nil, err
	}
	if err := s.checkSchema(); err != nil {
		s.db.Close()
		s.closeLocks()
		return nil, err
	}
	return s, nil
}

// initialised reports whether the store file has its buckets, reading it
// read-only, past the gate as every reader.
func (s *Store) initialised() bool {
	ok, err := s.gate.acquire(context.Background(), false, time.Now().Add(s.wait()))
	if err != nil || !ok {
		return false
	}
	defer s.gate.release()
	db, err := bolt.Open(s.path, 0o600, &bolt.Options{ReadOnly: true, Timeout: s.wait()})
	if err != nil {
		return false
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error { return bucketsReady(boltTx{tx: tx}) }) == nil
}

// initialise creates the store's buckets under the writer lock.
func (s *Store) initialise() error {
	if _, err := s.LockWriter(context.Background()); err != nil {
		return err
	}
	defer s.UnlockWriter()
	if ok, err := s.gate.acquire(context.Background(), true, time.Now().Add(s.wait())); err != nil || !ok {
		return s.lockedErr("the store", err)
	}
	defer s.gate.release()
	db, err := openBolt(s.path, s.boltOptions(false, s.wait()))
	if err != nil {
		return s.openErr(err)
	}
	defer db.Close()
	return ensureBuckets(db)
}

func (s *Store) wait() time.Duration {
	if s.opts.LockWait <= 0 {
		return time.Second
	}
	return s.opts.LockWait
}

// boltOptions are the options of the store's bbolt file. The freelist is
// written with every commit (bbolt's default): with NoFreelistSync, every
// open for writing rebuilt it by walking every page of the file, which
// mapped the whole store into the process (a two-message ingest into a
// 100k-chunk home: 343 MiB of RSS, and seconds with a cold page cache),
// at no measurable gain in ingest speed. A file written without it has
// its freelist rebuilt once, at its next open for writing.
func (s *Store) boltOptions(readOnly bool, timeout time.Duration) *bolt.Options {
	return &bolt.Options{Timeout: max(timeout, time.Millisecond), ReadOnly: readOnly, FreelistType: bolt.FreelistMapType}
}

func (s *Store) openErr(err error) error {
	if errors.Is(err, bolterrTimeout) {
		return fmt.Errorf("opening store %s: %w", s.path, core.ErrLocked)
	}
	return fmt.Errorf("opening store %s: %w", s.path, err)
}

// lockedErr is the error of a wait for the store that ran out.
func (s *Store) lockedErr(what string, err error) error {
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	return fmt.Errorf("%w: a writer held %s for longer than %s (storage.lock_wait)", core.ErrLocked, s.path, s.wait())
}

// openRead opens the read-only handle, passing the gate. The caller
// holds s.mu or is the opener.
func (s *Store) openRead(ctx context.Context) error {
	deadline := time.Now().Add(s.wait())
	ok, err := s.gate.acquire(ctx, false, deadline)
	if err != nil || !ok {
		return s.lockedErr("a writer to finish with "+s.path, err)
	}
	defer s.gate.release()
	db, err := openBolt(s.path, s.boltOptions(true, time.Until(deadline)))
	if err != nil {
		return s.openErr(err)
	}
	s.db = db
	s.exclusive.Store(false)
	return nil
}

// LockWriter takes the writer lock of a shared store, waiting at most
// [Options.LockWait] for another writer, and returns how long it waited.
// It fails with an error wrapping [core.ErrLocked] that names the holder,
// or [ErrReadOnly] on a home that cannot be written. A store opened
// without [Options.Shared] holds its file exclusively already.
func (s *Store) LockWriter(ctx context.Context) (time.Duration, error) {
	if l, ok := s.kv.(WriterLocker); ok {
		return l.LockWriter(ctx, s.wait())
	}
	if !s.shared {
		return 0, nil
	}
	if s.writer == nil || !s.writer.writable {
		return 0, fmt.Errorf("writing to %s: %w", s.path, ErrReadOnly)
	}
	start := time.Now()
	ok, err := s.writer.acquire(ctx, true, start.Add(s.wait()))
	waited := time.Since(start)
	if err != nil {
		return waited, fmt.Errorf("waiting for the writer lock: %w", err)
	}
	if !ok {
		who := s.writer.holder()
		if who == "" {
			who = "another process"
		}
		return waited, fmt.Errorf("%w: %s is writing to this home; waited %s for it (storage.lock_wait); try again later or raise storage.lock_wait",
			core.ErrLocked, who, s.wait().Round(time.Millisecond))
	}
	owner := s.opts.Owner
	if owner == "" {
		owner = "huimem"
	}
	s.writer.f.Truncate(0)
	s.writer.f.WriteAt([]byte(owner+" (pid "+strconv.Itoa(os.Getpid())+", since "+time.Now().Format(time.TimeOnly)+")\n"), 0)
	return waited, nil
}

// UnlockWriter releases the writer lock.
func (s *Store) UnlockWriter() {
	if l, ok := s.kv.(WriterLocker); ok {
		l.UnlockWriter()
		return
	}
	if s.shared && s.writer != nil {
		s.writer.release()
	}
}

// Shared reports whether the store was opened with [Options.Shared].
func (s *Store) Shared() bool { return s.shared }

// External reports whether the store lives in a [KV] other than the home's
// file (see [OpenKV]).
func (s *Store) External() bool { return s.kv != nil }

// Notify queues a message to other processes sharing the store, sent when
// the transaction commits; a store whose KV cannot notify ignores it.
func (t *Tx) Notify(channel, payload string) error {
	if n, ok := t.kv.(Notifier); ok {
		return n.Notify(t.tx, channel, payload)
	}
	return nil
}

// Exclusive reports whether the store holds its file read-write.
func (s *Store) Exclusive() bool { return !s.shared || s.exclusive.Load() }

// Upgrade turns a shared store's read-only handle into the exclusive,
// read-write one: it closes the gate to new readers, and waits (at most
// [Options.LockWait]) for the others to let the file go. The caller holds
// the writer lock and runs no transaction of this Store. before, when
// set, runs once the gate is closed and before the file is re-opened (the
// engine closes its read-only index handle there); on failure the store
// is read-only again.
func (s *Store) Upgrade(ctx context.Context, before func()) error {
	if !s.shared || s.exclusive.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	deadline := time.Now().Add(s.wait())
	ok, err := s.gate.acquire(ctx, true, deadline)
	if err != nil || !ok {
		return s.lockedErr("readers to let go of "+s.path, err)
	}
	if before != nil {
		before()
	}
	s.db.Close()
	db, err := openBolt(s.path, s.boltOptions(false, time.Until(deadline)))
	if err != nil {
		s.gate.release()
		if rerr := s.openRead(context.Background()); rerr != nil {
			s.broken = rerr
		}
		if errors.Is(err, bolterrTimeout) {
			return fmt.Errorf("%w: readers held %s for longer than %s (storage.lock_wait)", core.ErrLocked, s.path, s.wait())
		}
		return fmt.Errorf("opening store %s for writing: %w", s.path, err)
	}
	s.db = db
	s.exclusive.Store(true)
	return nil
}

// Downgrade ends an [Store.Upgrade]: it closes the read-write handle,
// opens the read-only one and lets readers in again. after, when set,
// runs once the read-only handle is open and before the gate opens (the
// engine opens its read-only index handle there).
func (s *Store) Downgrade(after func()) error {
	if !s.shared || !s.exclusive.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.db.Close()
	db, err := openBolt(s.path, s.boltOptions(true, s.wait()))
	if err != nil {
		s.gate.release()
		s.broken = s.openErr(err)
		return s.broken
	}
	s.db = db
	s.exclusive.Store(false)
	if after != nil {
		after()
	}
	s.gate.release()
	return nil
}

// WriterWaiting reports whether another process's writer waits at the
// gate for this store's readers to let go; a long-lived reader then
// yields (see [Store.Yield]).
func (s *Store) WriterWaiting() bool {
	if !s.shared || s.exclusive.Load() || s.gate == nil {
		return false
	}
	if !s.gate.mu.TryLock() {
		return false // this process is at the gate itself
	}
	defer s.gate.mu.Unlock()
	ok, err := tryFlock(s.gate.f, false)
	if err != nil {
		return false
	}
	if ok {
		unflock(s.gate.f)
	}
	return !ok
}

// Yield lets a waiting writer in: it closes the read-only handle, waits
// (at most [Options.LockWait]) until the writer is done, and opens it
// again. Transactions of this Store wait meanwhile. release runs before
// the handle closes and reopen after it opened again (the engine closes
// and re-opens its index there); it reports whether the store changed.
func (s *Store) Yield(ctx context.Context, release func(), reopen func()) error {
	if !s.shared || s.exclusive.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if release != nil {
		release()
	}
	s.db.Close()
	deadline := time.Now().Add(s.wait())
	for {
		ok, err := s.gate.acquire(ctx, false, deadline)
		if err != nil || !ok {
			s.broken = s.lockedErr("a writer to finish with "+s.path, err)
			return s.broken
		}
		db, err := openBolt(s.path, s.boltOptions(true, time.Until(deadline)))
		if err != nil {
			s.gate.release()
			s.broken = s.openErr(err)
			return s.broken
		}
		s.db = db
		s.broken = nil
		if reopen != nil {
			reopen()
		}
		s.gate.release()
		return nil
	}
}

func (s *Store) closeLocks() {
	s.gate.close()
	s.writer.close()
	if s.knock != nil {
		s.knock.f.close()
	}
}

// knockFile is <store>.knock: the goroutines of this process that wait
// for a lock hold it shared, together, while any of them waits.
type knockFile struct {
	f       *lockFile
	mu      sync.Mutex
	waiters int
}

func openKnockFile(path string) (*knockFile, error) {
	f, err := openLockFile(path)
	if err != nil || f == nil {
		return nil, err
	}
	return &knockFile{f: f}, nil
}

// enter starts a wait. The shared flock can fail only while a holder's
// probe has it for an instant; the probe sees this process then.
func (k *knockFile) enter() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.waiters++; k.waiters == 1 {
		for i := 0; i < 100; i++ {
			if ok, err := tryFlock(k.f.f, false); ok || err != nil {
				return
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
}

func (k *knockFile) leave() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.waiters--; k.waiters == 0 {
		unflock(k.f.f)
	}
}

// Knocked reports whether another process waits for the writer lock or
// the gate, which this one holds: a writer that keeps the home between
// writes (the engine's Options.LongLived) then lets them go.
func (s *Store) Knocked() bool {
	k := s.knock
	if !s.shared || k == nil {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.waiters > 0 {
		return false // this process waits itself
	}
	ok, err := tryFlock(k.f.f, true)
	if err != nil {
		return false
	}
	if ok {
		unflock(k.f.f)
	}
	return !ok
}
