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
	s  *shared
}

// Lock takes the write lock.
func (w *writeLock) Lock() {
	w.mu.Lock()
	s := w.s
	if s == nil || !(s.acc.shared || s.acc.external) || s.closed || s.st == nil {
		return
	}
	if s.acc.kept {
		return // still the writer since the last write
	}
	waited, err := s.st.LockWriter(context.Background())
	s.acc.writer, s.acc.lockErr = err == nil, err
	if err != nil {
		return
	}
	if s.acc.onWait != nil {
		s.acc.onWait("writer", waited)
	}
	if waited >= time.Second {
		s.logf("huimem: waited %s for another writer to finish", waited.Round(time.Millisecond))
	}
}

// Unlock ends the write: the home's handles turn read-only again and the
// writer lock is released.
func (w *writeLock) Unlock() {
	if s := w.s; s != nil && s.acc.external {
		if s.acc.writer && s.st != nil {
			s.st.UnlockWriter()
		}
		s.acc.writer, s.acc.lockErr = false, nil
	} else if s != nil && s.acc.shared {
		if s.longLived && s.acc.writer && s.st != nil && s.st.Exclusive() && !s.closed {
			// Keep the home until another process knocks (letGo).
			s.acc.kept = true
			w.mu.Unlock()
			return
		}
		s.release()
	}
	w.mu.Unlock()
}

// release ends a write, or what a long-lived engine kept of it: the
// handles turn read-only and the writer lock goes. The caller holds
// writeMu.mu.
func (s *shared) release() {
	if s.st != nil {
		s.downgrade()
		if s.acc.writer {
			s.st.UnlockWriter()
		}
	}
	s.acc.writer, s.acc.lockErr, s.acc.kept = false, nil, false
}

// letGo gives up the home a long-lived engine kept after its last write,
// because another process waits for it.
func (s *shared) letGo() {
	s.writeMu.mu.Lock()
	defer s.writeMu.mu.Unlock()
	if s.acc.kept && !s.closed {
		s.release()
	}
}

// needsRepair opens the index read-only when it is in step with the
// store and nothing else needs writing, and otherwise says what needs
// doing.
func (s *shared) needsRepair() string {
	var gen uint64
	var chunks, outbox int
	var forget, staged bool
	s.st.View(func(tx *store.Tx) error {
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
	ix, err := index.OpenWith(filepath.Join(s.home, indexDir), index.OpenOptions{ReadOnly: true, LockWait: s.acc.lockWait})
	if err != nil {
		return fmt.Sprintf("the search index cannot be opened (%v)", err)
	}
	igen, err1 := ix.Gen()
	n, err2 := ix.Count()
	if err1 != nil || err2 != nil || igen != gen || int(n) != chunks {
		ix.Close()
		return "the search index is not in step with the store"
	}
	s.ix = ix
	return ""
}

// upgrade makes a shared engine's handles read-write for the write in
// progress; [Store.Update] calls it. The caller holds writeMu and not
// ixMu.
func (s *shared) upgrade() error {
	if !s.acc.shared || s.st.Exclusive() {
		return nil
	}
	if s.acc.lockErr != nil {
		return s.acc.lockErr
	}
	if !s.acc.writer {
		return fmt.Errorf("engine: a store write outside the write lock")
	}
	if s.acc.readOnly {
		return fmt.Errorf("writing to %s: %w", s.home, store.ErrReadOnly)
	}
	start := time.Now()
	s.ixMu.Lock()
	defer s.ixMu.Unlock()
	err := s.st.Upgrade(context.Background(), func() {
		if s.ix != nil {
			s.ix.Close()
			s.ix = nil
		}
	})
	if s.acc.onWait != nil {
		s.acc.onWait("exclusive", time.Since(start))
	}
	if err != nil {
		s.openReadIndex()
		return err
	}
	if s.acc.writeEmbedder {
		if err := s.st.Update(s.putEmbedder); err != nil {
			return err
		}
		s.acc.writeEmbedder = false
	}
	// Another process may have written since this one last looked.
	s.vx.Reset()
	ix, err := index.OpenWith(filepath.Join(s.home, indexDir), index.OpenOptions{LockWait: s.acc.lockWait})
	if err != nil {
		s.stale = err
		return nil // the write goes on; syncDerived reports the index
	}
	s.ix = ix
	return nil
}

// downgrade turns the handles read-only again after a write. The caller
// holds writeMu.
func (s *shared) downgrade() {
	if !s.st.Exclusive() || !s.acc.shared {
		return
	}
	s.ixMu.Lock()
	defer s.ixMu.Unlock()
	if s.ix != nil {
		s.ix.Close()
		s.ix = nil
	}
	if err := s.st.Downgrade(s.openReadIndex); err != nil {
		s.stale = err
	}
}

// openReadIndex opens the index read-only into s.ix. The caller holds
// ixMu, and the store's handle (the index is opened under its locks).
func (s *shared) openReadIndex() {
	if s.acc.tempIndex != "" || s.ix != nil {
		return
	}
	ix, err := index.OpenWith(filepath.Join(s.home, indexDir), index.OpenOptions{ReadOnly: true, LockWait: s.acc.lockWait})
	if err != nil {
		if s.stale == nil {
			s.stale = err
		}
		return
	}
	s.ix = ix
}

// readOnlyIndex makes reads work on a home that cannot be written: the
// index on disk if it is in step with the store, else one built from the
// store in a temporary folder.
func (s *shared) readOnlyIndex(ctx context.Context) error {
	if s.ix == nil {
		s.needsRepair() // opens it when it is in step
	}
	if s.ix != nil {
		return nil
	}
	dir, err := os.MkdirTemp("", "huimem-index-")
	if err != nil {
		return fmt.Errorf("building a temporary index: %w", err)
	}
	s.acc.tempIndex = dir
	ix, err := index.Create(filepath.Join(dir, "index"))
	if err != nil {
		return err
	}
	s.ix = ix
	total := 0
	err = s.st.View(func(tx *store.Tx) error {
		var docs []index.Doc
		flush := func() error {
			total += len(docs)
			err := ix.Apply(docs, nil, tx.Gen())
			docs = docs[:0]
			return err
		}
		err := tx.ForEachChunk(func(c *store.Chunk) error {
			d, err := s.doc(tx, c)
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
	s.logf("huimem: built a temporary search index of %d chunks (the home's own cannot be used or written)", total)
	return nil
}

func (s *shared) removeTempIndex() {
	if s.acc.tempIndex != "" {
		os.RemoveAll(s.acc.tempIndex)
	}
}

// yieldEvery is how often a shared engine checks for a waiting writer.
const yieldEvery = 5 * time.Millisecond

// startYield starts the goroutine that lets other processes' writers in.
func (s *shared) startYield() {
	if s.acc.readOnly {
		return
	}
	s.acc.stop, s.acc.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.acc.done)
		t := time.NewTicker(yieldEvery)
		defer t.Stop()
		for {
			select {
			case <-s.acc.stop:
				return
			case <-t.C:
			}
			if s.st.WriterWaiting() {
				s.yield()
			}
			if s.longLived && s.st.Exclusive() && s.st.Knocked() {
				s.letGo()
			}
		}
	}()
}

func (s *shared) stopYield() {
	if s.acc.stop != nil {
		close(s.acc.stop)
		<-s.acc.done
		s.acc.stop = nil
	}
}

// yield lets go of the read-only handles while another process writes,
// and takes them again; recalls wait meanwhile.
func (s *shared) yield() {
	s.ixMu.Lock()
	defer s.ixMu.Unlock()
	if s.closed || s.st.Exclusive() || !s.st.WriterWaiting() {
		return
	}
	var before uint64
	s.st.View(func(tx *store.Tx) error { before = tx.Gen(); return nil })
	err := s.st.Yield(context.Background(), func() {
		if s.ix != nil && s.acc.tempIndex == "" {
			s.ix.Close()
			s.ix = nil
		}
	}, s.openReadIndex)
	if err != nil {
		s.stale = fmt.Errorf("%w: %v", core.ErrLocked, err)
		return
	}
	var after uint64
	s.st.View(func(tx *store.Tx) error { after = tx.Gen(); return nil })
	if after != before {
		s.vx.Reset()
	}
	if s.ix != nil && errors.Is(s.stale, core.ErrLocked) {
		s.stale = nil
	}
}
