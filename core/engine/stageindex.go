package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
)

// Indexing a staged ingest as it goes. A staged ingest (ingeststage.go)
// that indexed its chunks only once it was published would run the
// store's writes and the index's work one after the other, each on one
// core. Instead each committed batch's chunks go to a goroutine that
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
// is indexed after its publication.

// A small stage is indexed at its publication, in one batch: BM25's
// statistics are summed over the index's segments, and a small ingest
// scores as a one-transaction ingest of the same messages does only if
// it writes one segment. A stage is indexed as it goes once it holds
// bulkMin chunks, counting the batch being committed: the chunks it
// wrote so far go to the indexer, then each batch's.
//
// A committed batch's chunks go to the indexer at once, except the last
// chunk of each session the batch wrote: a session that goes on into the
// next batch has its last chunk rewritten there, and a chunk indexed
// twice leaves a replaced document in a segment until a merge. Those are
// held, and go with the next batch (as it rewrote them, if it did). So
// the indexer works on a batch while the next is planned and committed,
// from the first batch on, and once the last is committed only it is
// left to index.

// indexStagedBatch is what happens to a committed batch's chunks
// (written) in a staged ingest: they are sent to the indexer, or held,
// as the comment above says, starting the indexer when the stage has
// just become indexed. tails are the last chunks of the batch's sessions.
func (w *writer) indexStagedBatch(ctx context.Context, run *stageRun, written *stagedChunks, tails map[string]bool) error {
	if run.info.Indexed && run.ix == nil {
		ix, err := w.startStageIndex(ctx)
		if err != nil {
			return err
		}
		run.ix = ix
	}
	if run.ix == nil {
		if run.indexable { // else the stage is indexed at its publication
			run.held.addAll(written)
		}
		return nil
	}
	run.held.addAll(written)
	var ready, hold stagedChunks
	for _, c := range run.held.list {
		if tails[c.id] {
			hold.add(c)
		} else {
			ready.add(c)
		}
	}
	if err := run.ix.send(ctx, &ready); err != nil {
		return err
	}
	run.held = hold
	return nil
}

// stagedChunk is a chunk that a staged batch wrote, with its record and
// messages, or removed (rec nil). The indexer builds its document from
// them: reading the chunks back from the store was 7% of an
// ingest's CPU, and the page faults of those reads slowed the store's
// writes beside them.
type stagedChunk struct {
	id   string
	rec  *store.Chunk
	msgs []core.Message
}

// doc builds the index document of a written chunk: the one
// [shared.doc] builds from the store once the batch is committed.
func (c *stagedChunk) doc() (index.Doc, error) {
	chunk, err := chunkHead(c.rec)
	if err != nil {
		return index.Doc{}, err
	}
	chunk.Messages = c.msgs
	return docOf(c.rec, chunk), nil
}

// stagedChunks is a list of staged chunks without repeats, in the order
// first added; a chunk added again replaces the one before.
type stagedChunks struct {
	list []stagedChunk
	at   map[string]int
}

func (s *stagedChunks) add(c stagedChunk) {
	if s.at == nil {
		s.at = map[string]int{}
	}
	if i, ok := s.at[c.id]; ok {
		s.list[i] = c
		return
	}
	s.at[c.id] = len(s.list)
	s.list = append(s.list, c)
}

func (s *stagedChunks) addAll(o *stagedChunks) {
	for _, c := range o.list {
		s.add(c)
	}
}

func (s *stagedChunks) count() int { return len(s.list) }

// stageIndexedHook, when set (by tests), is called on the indexer's
// goroutine after each batch it indexed, with the documents it wrote and
// the chunks it removed.
var stageIndexedHook func(w *writer, docs []index.Doc, removed []string)

// pinnable is what the home's own index (core/index) offers for this.
type pinnable interface {
	Pin() error
	Unpin()
}

// stageIndexable reports whether a staged ingest can index its chunks as
// it goes. The caller holds writeMu.
func (w *writer) stageIndexable() bool {
	_, ok := w.ix.(pinnable)
	return ok && w.backend == nil
}

// stageIndexer indexes a stage's batches, in order, on its own goroutine.
type stageIndexer struct {
	w      *writer
	chunks chan []stagedChunk
	done   chan struct{}
	err    atomic.Pointer[error]
	cancel context.CancelFunc
	unpin  func()
}

// startStageIndex pins the index and starts the indexer. The caller
// holds writeMu; the stage's record says it is indexed.
func (w *writer) startStageIndex(ctx context.Context) (*stageIndexer, error) {
	p := w.ix.(pinnable)
	old, err := w.ix.Gen()
	if err != nil {
		return nil, err
	}
	if err := p.Pin(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	si := &stageIndexer{w: w, chunks: make(chan []stagedChunk, 1), done: make(chan struct{}), cancel: cancel, unpin: sync.OnceFunc(p.Unpin)}
	endGC := beginOverlapGC() // see bulkgc.go
	go func() {
		defer endGC()
		defer close(si.done)
		for chunks := range si.chunks {
			if si.err.Load() != nil {
				continue // drain, so that send never blocks
			}
			// Every batch records the generation the index had: the
			// stage's chunks change nothing the outbox tracks.
			// One batch at a time: the stage's own goroutine keeps the
			// other core busy, and each batch in the works holds its
			// analysis in memory (10k chunks: peak RSS 5 MiB less).
			if err := w.indexStaged(ctx, chunks, old); err != nil {
				si.err.Store(&err)
			}
		}
	}()
	return si, nil
}

// indexStaged writes the documents of a stage's written chunks, and
// removes its removed ones, in index batches bounded as applyOutbox's
// are, each recording generation gen.
func (w *writer) indexStaged(ctx context.Context, chunks []stagedChunk, gen uint64) error {
	// The store pages that the stage's writes mapped need not stay
	// resident while bleve analyses the batch, where the heap peaks; nor
	// the index pages that scorch's background merges read.
	w.releaseMapped()
	var docs []index.Doc
	var removed []string
	size := 0
	flush := func() error {
		if len(docs) == 0 && len(removed) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.ix.Apply(docs, removed, gen); err != nil {
			return err
		}
		if stageIndexedHook != nil {
			stageIndexedHook(w, docs, removed)
		}
		docs, removed, size = nil, nil, 0
		return nil
	}
	for i := range chunks {
		c := &chunks[i]
		if c.rec == nil {
			removed = append(removed, c.id)
			continue
		}
		d, err := c.doc()
		if err != nil {
			return err
		}
		docs = append(docs, d)
		if size += index.DocBytes(&d, nil); len(docs) >= indexBatch || size >= indexBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// send queues chunks for the indexer. It waits while the indexer is a
// batch behind, which bounds the memory, and returns the indexer's
// error, if it failed.
func (si *stageIndexer) send(ctx context.Context, chunks *stagedChunks) error {
	if si == nil || chunks.count() == 0 {
		return nil
	}
	if err := si.err.Load(); err != nil {
		return *err
	}
	select {
	case si.chunks <- chunks.list:
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
		close(si.chunks)
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
func (w *writer) failStage(run *stageRun, err error) error {
	if run.ix != nil {
		run.ix.stop(true)
	}
	if run.hashed != nil {
		run.hashed.Close() // the discard walks the file on its own
	}
	if derr := w.discardStage(run.info); derr != nil {
		w.logf("huimem: discarding the unpublished part of %s failed (the next open or ingest removes it): %v", run.src, derr)
	}
	run.unpin()
	return err
}

// unindexStage removes an indexed stage's chunks from the index, in
// pages. It does nothing for a stage that is not indexed. The caller
// holds writeMu.
func (w *writer) unindexStage(info *store.StageInfo) error {
	if !info.Indexed || w.ix == nil || w.backend != nil {
		return nil
	}
	gen, err := w.ix.Gen()
	if err != nil {
		return fmt.Errorf("removing the chunks of an unpublished ingest from the index: %w", err)
	}
	removed := 0
	for after := []byte(nil); ; {
		var ids []string
		w.st.View(func(tx *store.Tx) error {
			ids, after = tx.StageChunks(info, after, indexBatch)
			return nil
		})
		if len(ids) == 0 {
			break
		}
		if err := w.ix.Apply(nil, ids, gen); err != nil {
			return fmt.Errorf("removing the chunks of an unpublished ingest from the index: %w", err)
		}
		removed += len(ids)
	}
	// The removed documents stay in their segments, and in BM25's
	// statistics, until a merge drops them: merge now, so that the home
	// ranks as if the stage had never been (a failure or a crash is rare).
	// A segment that the background merger made of the stage's chunks
	// and others is not merged again on its own, so scores may still
	// differ a little from a home that never had the stage until a later
	// merge (see core/index/doc.go).
	if m, ok := w.ix.(segmentMerger); ok && removed > 0 {
		if err := m.Merge(context.Background()); err != nil {
			w.logf("huimem: warning: merging the index after removing an unpublished ingest: %v", err)
		}
	}
	return nil
}
