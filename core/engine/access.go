package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
)

// Access says how an engine shares its home with other processes (many
// agents, one memory).
type Access int

const (
	// AccessExclusive holds the store and the index read-write, and so
	// locked against every other process, from Open to Close. It suits a
	// program that is the home's only user, such as a test or a library
	// caller; it is the zero value.
	AccessExclusive Access = iota
	// AccessShared holds read-only handles, which any number of
	// processes hold at once, and locks the home for a write only while
	// the write needs it:
	//
	//   - Each write (the section under the engine's write lock: an
	//     ingest, a forget, a seal, a reindex) first takes the home's
	//     writer lock, waiting at most [Options.LockWait] for another
	//     writer and failing with [core.ErrLocked] and the holder's name
	//     after that. Planning, chunking, extraction and embedding run
	//     with the read-only handles, beside readers.
	//   - Its first store transaction that writes (the commit) closes the
	//     gate to new readers, waits for the others to let go, and turns
	//     the handles read-write; the commit, the index update, the
	//     transcripts and the seals run so. When the write ends, the
	//     handles turn read-only again and readers come back.
	//   - While an engine holds read-only handles, a goroutine checks
	//     every few milliseconds whether another process's writer waits
	//     at the gate; if so, the engine lets its handles go between two
	//     operations (its recalls and reads wait meanwhile) and takes
	//     them again when that writer is done.
	//
	// A reader therefore sees the store and the index as they were
	// before a write or after it, never half-way. A home that cannot be
	// written (read-only media, no permission) is opened for reading;
	// an index that is behind the store is then rebuilt in a temporary
	// folder, and transcripts that cannot be written are skipped.
	AccessShared
)

// access is the state of an engine opened with [AccessShared].
type access struct {
	shared bool
	// external is set on a backend (backend.go): writes take the
	// backend's writer lock; nothing is reopened.
	external bool
	// unwatch stops the backend's change notifications; heard is the
	// store generation they have brought the caches up to.
	unwatch  func()
	heard    atomic.Uint64
	lockWait time.Duration
	onWait   func(string, time.Duration)
	// writeEmbedder is set when the store lacks the embedder record; the
	// first write writes it.
	writeEmbedder bool
	// writer and lockErr are guarded by writeMu.mu: whether this engine
	// holds the writer lock, and why it could not take it.
	writer  bool
	lockErr error
	// kept is set, under writeMu.mu, while a long-lived engine keeps the
	// writer lock and the read-write handles between writes.
	kept bool
	// tempIndex is the folder of an index built because the home's own
	// could not be used or written; removed at Close.
	tempIndex string
	// readOnly is set when the home cannot be written.
	readOnly bool
	stop     chan struct{}
	done     chan struct{}
}

// writeLock is the engine's write lock: a mutex, and with [AccessShared]
// the home's writer lock. Lock cannot fail; when the writer lock cannot be
// had, the write's first store transaction fails with the reason.
type writeLock struct {
	mu sync.Mutex
	e  *Engine
}

// Lock takes the write lock.
func (w *writeLock) Lock() {
	w.mu.Lock()
	e := w.e
	if e == nil || !(e.acc.shared || e.acc.external) || e.closed || e.st == nil {
		return
	}
	if e.acc.kept {
		return // still the writer since the last write
	}
	waited, err := e.st.LockWriter(context.Background())
	e.acc.writer, e.acc.lockErr = err == nil, err
	if err != nil {
		return
	}
	if e.acc.onWait != nil {
		e.acc.onWait("writer", waited)
	}
	if waited >= time.Second {
		e.logf("huimem: waited %s for another writer to finish", waited.Round(time.Millisecond))
	}
}

// Unlock ends the write: the home's handles turn read-only again and the
// writer lock is released.
func (w *writeLock) Unlock() {
	if e := w.e; e != nil && e.acc.external {
		if e.acc.writer && e.st != nil {
			e.st.UnlockWriter()
		}
		e.acc.writer, e.acc.lockErr = false, nil
	} else if e != nil && e.acc.shared {
		if e.longLived && e.acc.writer && e.st != nil && e.st.Exclusive() && !e.closed {
			// Keep the home until another process knocks (letGo).
			e.acc.kept = true
			w.mu.Unlock()
			return
		}
		e.release()
	}
	w.mu.Unlock()
}

// release ends a write, or what a long-lived engine kept of it: the
// handles turn read-only and the writer lock goes. The caller holds
// writeMu.mu.
func (e *Engine) release() {
	if e.st != nil {
		e.downgrade()
		if e.acc.writer {
			e.st.UnlockWriter()
		}
	}
	e.acc.writer, e.acc.lockErr, e.acc.kept = false, nil, false
}

// letGo gives up the home a long-lived engine kept after its last write,
// because another process waits for it.
func (e *Engine) letGo() {
	e.writeMu.mu.Lock()
	defer e.writeMu.mu.Unlock()
	if e.acc.kept && !e.closed {
		e.release()
	}
}

// openShared opens the home with [AccessShared].
func (e *Engine) openShared(ctx context.Context, opts Options, lockWait time.Duration) error {
	e.acc = access{shared: true, lockWait: lockWait, onWait: opts.OnLockWait}
	st, err := store.OpenWith(filepath.Join(e.home, store.FileName), store.Options{LockWait: lockWait, Shared: true, Owner: opts.Owner})
	if err != nil {
		return err
	}
	e.st = st
	e.st.SetUpgrade(e.upgrade)
	if err := e.checkEmbedder(ctx, opts.AllowEmbedderChange); err != nil {
		return err
	}
	e.vx = e.newVectors()
	why := e.needsRepair()
	if why == "" {
		e.startYield()
		return nil
	}
	err = e.repairShared(ctx)
	switch {
	case err == nil:
	case store.IsReadOnly(err):
		e.acc.readOnly = true
		e.logf("huimem: %s cannot be written (%s); reading it as it is", e.home, why)
		if err := e.readOnlyIndex(ctx); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: %w", why, err)
	}
	e.startYield()
	return nil
}

// needsRepair opens the index read-only when it is in step with the
// store and nothing else needs writing, and otherwise says what needs
// doing.
func (e *Engine) needsRepair() string {
	var gen uint64
	var chunks, outbox int
	var forget, staged bool
	e.st.View(func(tx *store.Tx) error {
		gen, outbox = tx.Gen(), tx.OutboxLen()
		chunks, _ = tx.Counts()
		forget = tx.Meta(forgetPendingKey) != nil
		stages, err := tx.Stages()
		staged = err != nil || len(stages) > 0
		return nil
	})
	if forget {
		return "an interrupted forget is to be finished"
	}
	if staged { // a stage a crash left: see stageindex.go
		return "an interrupted ingest is to be removed"
	}
	if outbox > 0 {
		return "the search index is behind the store"
	}
	ix, err := index.OpenWith(filepath.Join(e.home, indexDir), index.OpenOptions{ReadOnly: true, LockWait: e.acc.lockWait})
	if err != nil {
		return fmt.Sprintf("the search index cannot be opened (%v)", err)
	}
	igen, err1 := ix.Gen()
	n, err2 := ix.Count()
	if err1 != nil || err2 != nil || igen != gen || int(n) != chunks {
		ix.Close()
		return "the search index is not in step with the store"
	}
	e.ix = ix
	return ""
}

// repairShared does at open, under the writer lock, what Open does for an
// exclusive engine: catch the index up (or rebuild it), write the
// transcripts a crash left, finish an interrupted forget.
func (e *Engine) repairShared(ctx context.Context) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if err := e.upgrade(); err != nil {
		return err
	}
	if e.ix != nil {
		e.ix.Close()
		e.ix = nil
	}
	if err := e.openIndex(ctx); err != nil {
		return err
	}
	// The upgrade may have found the old index unusable (another
	// version, say) and marked it stale; openIndex has repaired it.
	e.ixMu.Lock()
	e.stale = nil
	e.ixMu.Unlock()
	return e.finishCrashed(ctx)
}

// upgrade makes a shared engine's handles read-write for the write in
// progress; [Store.Update] calls it. The caller holds writeMu and not
// ixMu.
func (e *Engine) upgrade() error {
	if !e.acc.shared || e.st.Exclusive() {
		return nil
	}
	if e.acc.lockErr != nil {
		return e.acc.lockErr
	}
	if !e.acc.writer {
		return fmt.Errorf("engine: a store write outside the write lock")
	}
	if e.acc.readOnly {
		return fmt.Errorf("writing to %s: %w", e.home, store.ErrReadOnly)
	}
	start := time.Now()
	e.ixMu.Lock()
	defer e.ixMu.Unlock()
	err := e.st.Upgrade(context.Background(), func() {
		if e.ix != nil {
			e.ix.Close()
			e.ix = nil
		}
	})
	if e.acc.onWait != nil {
		e.acc.onWait("exclusive", time.Since(start))
	}
	if err != nil {
		e.openReadIndex()
		return err
	}
	if e.acc.writeEmbedder {
		if err := e.st.Update(e.putEmbedder); err != nil {
			return err
		}
		e.acc.writeEmbedder = false
	}
	// Another process may have written since this one last looked.
	e.vx.Reset()
	ix, err := index.OpenWith(filepath.Join(e.home, indexDir), index.OpenOptions{LockWait: e.acc.lockWait})
	if err != nil {
		e.stale = err
		return nil // the write goes on; syncDerived reports the index
	}
	e.ix = ix
	return nil
}

// downgrade turns the handles read-only again after a write. The caller
// holds writeMu.
func (e *Engine) downgrade() {
	if !e.st.Exclusive() || !e.acc.shared {
		return
	}
	e.ixMu.Lock()
	defer e.ixMu.Unlock()
	if e.ix != nil {
		e.ix.Close()
		e.ix = nil
	}
	if err := e.st.Downgrade(e.openReadIndex); err != nil {
		e.stale = err
	}
}

// openReadIndex opens the index read-only into e.ix. The caller holds
// ixMu, and the store's handle (the index is opened under its locks).
func (e *Engine) openReadIndex() {
	if e.acc.tempIndex != "" || e.ix != nil {
		return
	}
	ix, err := index.OpenWith(filepath.Join(e.home, indexDir), index.OpenOptions{ReadOnly: true, LockWait: e.acc.lockWait})
	if err != nil {
		if e.stale == nil {
			e.stale = err
		}
		return
	}
	e.ix = ix
}

// readOnlyIndex makes reads work on a home that cannot be written: the
// index on disk if it is in step with the store, else one built from the
// store in a temporary folder.
func (e *Engine) readOnlyIndex(ctx context.Context) error {
	if e.ix == nil {
		e.needsRepair() // opens it when it is in step
	}
	if e.ix != nil {
		return nil
	}
	dir, err := os.MkdirTemp("", "huimem-index-")
	if err != nil {
		return fmt.Errorf("building a temporary index: %w", err)
	}
	e.acc.tempIndex = dir
	ix, err := index.Create(filepath.Join(dir, "index"))
	if err != nil {
		return err
	}
	e.ix = ix
	total := 0
	err = e.st.View(func(tx *store.Tx) error {
		var docs []index.Doc
		flush := func() error {
			total += len(docs)
			err := ix.Apply(docs, nil, tx.Gen())
			docs = docs[:0]
			return err
		}
		err := tx.ForEachChunk(func(c *store.Chunk) error {
			d, err := e.doc(tx, c)
			if err != nil {
				return err
			}
			if docs = append(docs, d); len(docs) >= indexBatch {
				if err := ctx.Err(); err != nil {
					return err
				}
				return flush()
			}
			return nil
		})
		if err != nil {
			return err
		}
		return flush()
	})
	if err != nil {
		return fmt.Errorf("building a temporary index: %w", err)
	}
	e.logf("huimem: built a temporary search index of %d chunks (the home's own cannot be used or written)", total)
	return nil
}

func (e *Engine) removeTempIndex() {
	if e.acc.tempIndex != "" {
		os.RemoveAll(e.acc.tempIndex)
	}
}

// yieldEvery is how often a shared engine checks for a waiting writer.
const yieldEvery = 5 * time.Millisecond

// startYield starts the goroutine that lets other processes' writers in.
func (e *Engine) startYield() {
	if e.acc.readOnly {
		return
	}
	e.acc.stop, e.acc.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(e.acc.done)
		t := time.NewTicker(yieldEvery)
		defer t.Stop()
		for {
			select {
			case <-e.acc.stop:
				return
			case <-t.C:
			}
			if e.st.WriterWaiting() {
				e.yield()
			}
			if e.longLived && e.st.Exclusive() && e.st.Knocked() {
				e.letGo()
			}
		}
	}()
}

func (e *Engine) stopYield() {
	if e.acc.stop != nil {
		close(e.acc.stop)
		<-e.acc.done
		e.acc.stop = nil
	}
}

// yield lets go of the read-only handles while another process writes,
// and takes them again; recalls wait meanwhile.
func (e *Engine) yield() {
	e.ixMu.Lock()
	defer e.ixMu.Unlock()
	if e.closed || e.st.Exclusive() || !e.st.WriterWaiting() {
		return
	}
	var before uint64
	e.st.View(func(tx *store.Tx) error { before = tx.Gen(); return nil })
	err := e.st.Yield(context.Background(), func() {
		if e.ix != nil && e.acc.tempIndex == "" {
			e.ix.Close()
			e.ix = nil
		}
	}, e.openReadIndex)
	if err != nil {
		e.stale = fmt.Errorf("%w: %v", core.ErrLocked, err)
		return
	}
	var after uint64
	e.st.View(func(tx *store.Tx) error { after = tx.Gen(); return nil })
	if after != before {
		e.vx.Reset()
	}
	if e.ix != nil && errors.Is(e.stale, core.ErrLocked) {
		e.stale = nil
	}
}
