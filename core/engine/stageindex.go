package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/huimemory/huimemory/core/store"
)

// Indexing a staged ingest as it goes (issue 13). A staged ingest
// (ingeststage.go) used to index its chunks only once it was published:
// the store's writes and the index's work ran one after the other, each on
// one core. Now each committed batch's chunks go to a goroutine that
// indexes them while the next batch is read, chunked, embedded and
// committed, so the two overlap.
//
// The stage's chunks are then in the index before the stage is published,
// and readers must not see them. So:
//
//   - The index is pinned ([index.Index.Pin]) before the first batch:
//     recalls, counts and term statistics read it as it was, until the
//     publishing transaction commits. Other processes cannot read the
//     home during the write anyway (see access.go).
//   - The stage records that it is indexed ([store.StageInfo.Indexed])
//     before it writes a chunk. Its publication queues none of its chunks
//     for the index, since they are there already; the indexer has
//     finished, and each batch was on disk when it returned, before the
//     publication commits.
//   - A stage that fails, or that a crash left, is removed from the index
//     before it is removed from the store (discardStage). A crash in
//     between leaves the stage, and the next attempt removes it again.
//     A writable open discards what a crash left before it checks the
//     index against the store (sync.go), so that the index's extra
//     chunks do not force a rebuild.
//
// Only the home's own index can be pinned: on a backend, a staged ingest
// is indexed after its publication, as before.

// A small stage is indexed at its publication, as before, in one
// batch: BM25's statistics are summed over the index's segments, and
// a small ingest scores as a one-transaction ingest of the same messages
// does only if it writes one segment. A stage is indexed as it goes
// once it has written bulkMin chunks: from the next batch on, the chunks
// it wrote so far go to the indexer, then each batch's.
//
// A batch's chunks go to the indexer once the next batch is committed,
// less those that batch wrote or removed again (they go with it): a
// session that goes on into the next batch has its last chunk rewritten
// there, and a chunk indexed twice leaves a replaced document in a
// segment until a merge.

// indexStagedBatch is what happens to a committed batch's chunks
// (written) in a staged ingest: they are held, and sent to the indexer as
// the comment above says, starting it when the stage has just become
// indexed.
func (e *Engine) indexStagedBatch(ctx context.Context, run *stageRun, written []string) error {
	if run.info.Indexed && run.ix == nil {
		ix, err := e.startStageIndex(ctx)
		if err != nil {
			return err
		}
		run.ix = ix
	}
	if run.ix == nil {
		if run.indexable { // else the stage is indexed at its publication
			run.held.add(written...)
		}
		return nil
	}
	if err := run.ix.send(ctx, run.held.ids, written); err != nil {
		return err
	}
	run.held = idSet{}
	run.held.add(written...)
	return nil
}

// idSet is a list of chunk ids without repeats, in the order first added.
type idSet struct {
	ids  []string
	seen map[string]bool
}

func (s *idSet) add(ids ...string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, id := range ids {
		if !s.seen[id] {
			s.seen[id] = true
			s.ids = append(s.ids, id)
		}
	}
}

func (s *idSet) count() int { return len(s.ids) }

// stageIndexedHook, when set (by tests), is called on the indexer's
// goroutine after each batch it indexed.
var stageIndexedHook func(e *Engine, ids []string)

// pinnable is what the home's own index (core/index) offers for this.
type pinnable interface {
	Pin() error
	Unpin()
}

// stageIndexable reports whether a staged ingest can index its chunks as
// it goes. The caller holds writeMu.
func (e *Engine) stageIndexable() bool {
	_, ok := e.ix.(pinnable)
	return ok && e.backend == nil
}

// stageIndexer indexes a stage's batches, in order, on its own goroutine.
type stageIndexer struct {
	e      *Engine
	ids    chan []string
	done   chan struct{}
	err    atomic.Pointer[error]
	cancel context.CancelFunc
	unpin  func()
}

// startStageIndex pins the index and starts the indexer. The caller
// holds writeMu; the stage's record says it is indexed.
func (e *Engine) startStageIndex(ctx context.Context) (*stageIndexer, error) {
	p := e.ix.(pinnable)
	old, err := e.ix.Gen()
	if err != nil {
		return nil, err
	}
	if err := p.Pin(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	si := &stageIndexer{e: e, ids: make(chan []string, 1), done: make(chan struct{}), cancel: cancel, unpin: sync.OnceFunc(p.Unpin)}
	endGC := beginOverlapGC() // issue 15: see ingestgc.go
	go func() {
		defer endGC()
		defer close(si.done)
		for ids := range si.ids {
			if si.err.Load() != nil {
				continue // drain, so that send never blocks
			}
			// Every batch records the generation the index had: the
			// stage's chunks change nothing the outbox tracks.
			// One batch at a time: the stage's own goroutine keeps the
			// other core busy, and each batch in the works holds its
			// analysis in memory (10k chunks: peak RSS 5 MiB less).
			if err := e.indexChunks(ctx, ids, old, old, 1); err != nil {
				si.err.Store(&err)
			} else if stageIndexedHook != nil {
				stageIndexedHook(e, ids)
			}
		}
	}()
	return si, nil
}

// send queues the chunks a batch wrote or removed, less those in later,
// which a later batch wrote or removed again and which go with it. It
// waits while the indexer is a batch behind, which bounds the memory, and
// returns the indexer's error, if it failed.
func (si *stageIndexer) send(ctx context.Context, ids, later []string) error {
	if si == nil {
		return nil
	}
	if len(later) > 0 {
		again := make(map[string]bool, len(later))
		for _, id := range later {
			again[id] = true
		}
		ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return again[id] })
	}
	if len(ids) == 0 {
		return nil
	}
	if err := si.err.Load(); err != nil {
		return *err
	}
	select {
	case si.ids <- ids:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finish waits until every batch sent is indexed and on disk, and returns
// the first error. The indexer stops either way.
func (si *stageIndexer) finish() error {
	if si == nil {
		return nil
	}
	si.stop(false)
	if err := si.err.Load(); err != nil {
		return *err
	}
	return nil
}

// stop ends the indexer, cancelling its work first when cancel is set,
// and waits for it. Safe to call more than once.
func (si *stageIndexer) stop(cancel bool) {
	if cancel {
		si.cancel()
	}
	select {
	case <-si.done:
	default:
		close(si.ids)
		<-si.done
	}
	si.cancel()
}

// unpin lets recalls see the index whole again. Safe on nil and more than
// once.
func (r *stageRun) unpin() {
	if r != nil && r.ix != nil {
		r.ix.unpin()
	}
}

// failStage ends a staged ingest that failed with err: it stops the
// indexer, removes the stage from the index and the store, unpins the
// index and returns err.
func (e *Engine) failStage(run *stageRun, err error) error {
	if run.ix != nil {
		run.ix.stop(true)
	}
	if derr := e.discardStage(run.info); derr != nil {
		e.logf("huimem: discarding the unpublished part of %s failed (the next open or ingest removes it): %v", run.src, derr)
	}
	run.unpin()
	return err
}

// unindexStage removes an indexed stage's chunks from the index, in
// pages. It does nothing for a stage that is not indexed. The caller
// holds writeMu.
func (e *Engine) unindexStage(info *store.StageInfo) error {
	if !info.Indexed || e.ix == nil || e.backend != nil {
		return nil
	}
	gen, err := e.ix.Gen()
	if err != nil {
		return fmt.Errorf("removing the chunks of an unpublished ingest from the index: %w", err)
	}
	removed := 0
	for after := ""; ; {
		var ids []string
		e.st.View(func(tx *store.Tx) error {
			ids = tx.StageChunks(info, after, indexBatch)
			return nil
		})
		if len(ids) == 0 {
			break
		}
		if err := e.ix.Apply(nil, ids, gen); err != nil {
			return fmt.Errorf("removing the chunks of an unpublished ingest from the index: %w", err)
		}
		removed += len(ids)
		after = ids[len(ids)-1]
	}
	// The removed documents stay in their segments, and in BM25's
	// statistics, until a merge drops them: merge now, so that the home
	// ranks as if the stage had never been (a failure or a crash is rare).
	// A segment that the background merger made of the stage's chunks
	// and others is not merged again on its own, so scores may still
	// differ a little from a home that never had the stage until a later
	// merge (see core/index/doc.go).
	if m, ok := e.ix.(segmentMerger); ok && removed > 0 {
		if err := m.Merge(context.Background()); err != nil {
			e.logf("huimem: warning: merging the index after removing an unpublished ingest: %v", err)
		}
	}
	return nil
}
