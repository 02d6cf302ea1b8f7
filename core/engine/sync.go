package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
	"golang.org/x/sync/errgroup"
)

// indexBatch bounds the documents in one index batch, and
// indexBatchBytes their text (bleve holds a batch's analysis
// in memory until it writes the segment, about 80 bytes for each byte of
// text with its context: 1 MiB batches took the heap of a 10k-chunk
// ingest to 145 MB, and its peak RSS to 260 MB). Each batch is one
// segment; the index's merge policy takes small ones as they are (see
// core/index/merge.go). Fewer than bulkMin chunks are indexed in batches
// of up to smallBatchBytes: in one segment, as a rule, so that a small
// ingest, which the tidy after it does not merge, scores as a
// one-segment ingest does (BM25's field lengths are summed over the
// segments).
const (
	indexBatch      = 2000
	indexBatchBytes = 128 << 10
	smallBatchBytes = 1 << 20
)

// backendBatch and backendBatchBytes bound a backend's index batches:
// the database holds no analysis in memory, and each batch updates the
// statistics of every term it holds, which larger batches share (in one
// namespace of the perf corpus, 2,000 chunks hold 14 distinct terms each,
// 137 chunks 33).
const (
	backendBatch      = 8000
	backendBatchBytes = 8 << 20
)

// batchBytes bounds the text of the index batches of n chunks.
func batchBytes(n int) int {
	if n < bulkMin {
		return smallBatchBytes
	}
	return indexBatchBytes
}

// openIndex opens the index and brings it in step with the store: it
// replays the outbox when the index is a little behind, and rebuilds the
// index when it is missing, damaged or too far behind.
func (w *writer) openIndex(ctx context.Context) error {
	dir := filepath.Join(w.home, indexDir)
	_, statErr := os.Stat(dir)
	ix, err := index.Open(dir)
	if errors.Is(err, index.ErrCorrupt) {
		w.logf("huimem: the search index cannot be used (%v); rebuilding it from the store", err)
		return w.rebuildIndex(ctx)
	}
	if err != nil {
		return err
	}
	w.ix = ix
	// An ingest that a crash interrupted may have indexed
	// chunks it never published (stageindex.go); they leave the index
	// with the stage, before the index is checked against the store.
	if err := w.discardStages(); err != nil && !store.IsReadOnly(err) {
		return err
	}
	var gen, cleared uint64
	var chunks int
	var outbox int
	w.st.View(func(tx *store.Tx) error {
		gen, cleared = tx.Gen(), tx.OutboxCleared()
		chunks, _ = tx.Counts()
		outbox = tx.OutboxLen() // count, not list
		return nil
	})
	igen, err := ix.Gen()
	if err != nil {
		return w.repair(ctx, fmt.Sprintf("its generation cannot be read (%v)", err))
	}
	switch {
	case errors.Is(statErr, os.ErrNotExist) && chunks > 0:
		return w.repair(ctx, "it is missing")
	case igen > gen:
		return w.repair(ctx, fmt.Sprintf("it is ahead of the store (generation %d > %d)", igen, gen))
	case igen < gen && igen < cleared:
		return w.repair(ctx, fmt.Sprintf("it is behind the store (generation %d < %d) by more than the outbox holds", igen, gen))
	case igen < gen || outbox > 0:
		if igen < gen {
			w.logf("huimem: the search index is behind the store (generation %d < %d); catching up %d chunks", igen, gen, outbox)
		}
		if err := w.applyOutbox(ctx); err != nil {
			return w.repair(ctx, fmt.Sprintf("catching up failed (%v)", err))
		}
	}
	n, err := w.ix.Count()
	if err != nil {
		return w.repair(ctx, fmt.Sprintf("its documents cannot be counted (%v)", err))
	}
	if int(n) != chunks {
		return w.repair(ctx, fmt.Sprintf("it holds %d chunks but the store holds %d", n, chunks))
	}
	return nil
}

func (w *writer) repair(ctx context.Context, why string) error {
	w.logf("huimem: the search index has diverged from the store: %s; rebuilding it", why)
	if w.backend != nil {
		return w.rebuildBackendIndex(ctx)
	}
	if w.ix != nil {
		w.ix.Close()
		w.ix = nil
	}
	return w.rebuildIndex(ctx)
}

// syncDerived brings the index and the transcripts in step with the store
// after a write. Until the index has caught up, recalls fail rather than
// read it.
//
// The transcripts are written while the index catches up: the
// two read the store and write different files, so on two cores a bulk
// ingest waits for the longer of the two rather than their sum. On a
// backend they are written one after the other, as both go to its
// database.
func (w *writer) syncDerived(ctx context.Context) error {
	texts := make(chan error, 1)
	if w.backend == nil {
		go func() { texts <- w.writeTranscripts(ctx) }()
	}
	if err := w.applyOutbox(ctx); err != nil {
		w.ixMu.Lock()
		w.stale = err
		w.ixMu.Unlock()
		if w.backend == nil {
			<-texts
		}
		return fmt.Errorf("%w: %v; the store is intact: reopen or run `huimem reindex`", core.ErrIndexStale, err)
	}
	w.ixMu.Lock()
	w.stale = nil
	w.ixMu.Unlock()
	if w.backend != nil {
		return w.writeTranscripts(ctx)
	}
	return <-texts
}

// applyOutbox indexes the chunks queued in the outbox and clears it.
//
// Batches are bounded by count and by text (indexBatchBytes).
// They go through a pipeline: one goroutine reads the next batch's chunks
// from the store while up to outboxAppliers batches are analysed and
// written as segments (bleve builds a batch's segment in the caller's
// goroutine, and takes batches from several at once). The outbox holds
// each chunk once, so batches never touch the same document and their
// order does not matter, except that only the last batch records the
// new generation, after every other one is in: a crash before it leaves
// the index marked behind, and the outbox is replayed.
func (w *writer) applyOutbox(ctx context.Context) error {
	var ids []string
	var gen uint64
	w.st.View(func(tx *store.Tx) error {
		ids, gen = tx.Outbox(), tx.Gen()
		return nil
	})
	old, err := w.ix.Gen()
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		// Nothing to index, but the generation may have moved on: a
		// transcript queued, or a stage published whose chunks were
		// indexed as they were written (stageindex.go).
		if old < gen {
			return w.ix.Apply(nil, nil, gen)
		}
		return nil
	}
	if len(ids) >= bulkMin { // see bulkgc.go
		defer beginBulkGC()()
	}
	if err := w.indexChunks(ctx, ids, old, gen, outboxAppliers); err != nil {
		return err
	}
	return w.st.Update(func(tx *store.Tx) error { return tx.ClearOutbox(gen) })
}

// indexChunks indexes the chunks of ids as the store holds them, and
// removes from the index those it does not hold, in the pipeline
// applyOutbox describes, with up to appliers batches written at once:
// every batch but the last records generation old, the last gen.
func (w *writer) indexChunks(ctx context.Context, ids []string, old, gen uint64, appliers int) error {
	bulk := len(ids) >= bulkMin
	grp, gctx := errgroup.WithContext(ctx)
	batches := make(chan outboxBatch, 1)
	grp.Go(func() error {
		defer close(batches)
		return w.readOutbox(gctx, ids, bulk, batches)
	})
	sem := make(chan struct{}, appliers)
	var last *outboxBatch
	for b := range batches {
		if b.last {
			last = &b
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-gctx.Done():
			continue // the reader stops; the loop drains what it sent
		}
		grp.Go(func() error {
			defer func() { <-sem }()
			return w.ix.Apply(b.docs, b.deletes, old)
		})
	}
	if err := grp.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return w.ix.Apply(last.docs, last.deletes, gen)
}

// outboxAppliers is how many index batches applyOutbox writes at once:
// with the reader and bleve's analysis workers, enough to keep two cores
// busy, and each batch holds its analysis in memory until it is written.
// On a backend each batch is a transaction: one is analysed, or writes
// its documents, while the other updates the term statistics they share
// (the second waits for the first's commit there, and never deadlocks:
// see core/postgres's updateTermStats).
const outboxAppliers = 2

// outboxReadAhead is how many chunks readOutbox reads at a time.
const outboxReadAhead = 256

// outboxBatch is one index batch of applyOutbox.
type outboxBatch struct {
	docs    []index.Doc
	deletes []string
	last    bool // the outbox's last batch
}

// readOutbox reads the chunks of ids from the store in index batches and
// sends them on out, the last with last set, until ctx is done.
func (w *writer) readOutbox(ctx context.Context, ids []string, bulk bool, out chan<- outboxBatch) error {
	limit, most := batchBytes(len(ids)), indexBatch
	if w.backend != nil {
		limit, most = backendBatchBytes, backendBatch
	}
	for start := 0; start < len(ids); {
		var b outboxBatch
		end := start
		err := w.st.View(func(tx *store.Tx) error {
			size := 0
			for end < len(ids) && end-start < most && size < limit {
				// A run of chunks, then their messages: behind a
				// database each is read in one round trip.
				run := ids[end:min(len(ids), start+most, end+outboxReadAhead)]
				tx.PrefetchChunks(run)
				cs := make([]*store.Chunk, len(run))
				for i, id := range run {
					c, err := tx.Chunk(id)
					if err != nil && !errors.Is(err, core.ErrNotFound) {
						return err
					}
					cs[i] = c
				}
				tx.PrefetchMessages(cs)
				for i := 0; i < len(run) && size < limit; i++ {
					end++
					if cs[i] == nil {
						b.deletes = append(b.deletes, run[i])
						continue
					}
					d, err := w.doc(tx, cs[i])
					if err != nil {
						return err
					}
					size += index.DocBytes(&d, nil)
					b.docs = append(b.docs, d)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if bulk {
			// The store pages the ingest and this batch's reads
			// mapped need not stay resident while bleve analyses the
			// batch, where the heap peaks (10k chunks: 31 of 144 MiB);
			// and the index's (see releaseMapped).
			w.releaseMapped()
		}
		b.last = end >= len(ids)
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
		start = end
	}
	return nil
}

// rebuildIndex builds a new index from every chunk in the store and swaps
// it in.
func (w *writer) rebuildIndex(ctx context.Context) error {
	dir := filepath.Join(w.home, indexDir)
	tmp := dir + ".new"
	ix, err := index.Create(tmp)
	if err != nil {
		return err
	}
	gen, total, err := w.fillIndex(ctx, ix)
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("rebuilding index: %w", err)
	}
	old := dir + ".old"
	os.RemoveAll(old)
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("replacing index: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("replacing index: %w", err)
	}
	os.RemoveAll(old)
	nix, err := index.Open(dir)
	if err != nil {
		return err
	}
	w.ix = nix
	if err := w.st.Update(func(tx *store.Tx) error { return tx.ClearOutbox(gen) }); err != nil {
		return err
	}
	w.logf("huimem: index rebuilt: %d chunks", total)
	return nil
}

// fillIndex indexes every chunk of the store into ix, and records the
// store's generation in it. It also puts right the chunks' question marks
// (markQuestions).
func (w *writer) fillIndex(ctx context.Context, ix Lexical) (gen uint64, total int, err error) {
	var marks []string // chunks whose question mark is wrong (markQuestions)
	err = w.st.View(func(tx *store.Tx) error {
		gen = tx.Gen()
		defer beginBulkGC()() // see bulkgc.go
		chunks, _ := tx.Counts()
		limit := batchBytes(chunks)
		var docs []index.Doc
		size := 0 // batches bounded by text, as in applyOutbox
		flush := func() error {
			if len(docs) == 0 {
				return nil
			}
			err := ix.Apply(docs, nil, 0)
			if total/50000 < (total+len(docs))/50000 {
				w.logf("huimem: indexed %d chunks", total+len(docs))
			}
			total += len(docs)
			docs, size = docs[:0], 0
			return err
		}
		err := tx.ForEachChunk(func(c *store.Chunk) error {
			if tx.StagedChunk(c) { // an unpublished stage (ingeststage.go)
				return nil
			}
			chunk, err := w.hydrate(tx, c)
			if err != nil {
				return err
			}
			if asks(chunk.Messages) != c.Asks {
				marks = append(marks, c.ID)
			}
			d := docOf(c, chunk)
			docs = append(docs, d)
			size += index.DocBytes(&d, nil)
			if len(docs) >= indexBatch || size >= limit {
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
	if err == nil {
		err = ix.Apply(nil, nil, gen)
	}
	if err == nil {
		err = w.markQuestions(marks)
	}
	return gen, total, err
}

// markQuestions sets store.Chunk.Asks right on the chunks in ids, which
// a rebuild of the index found wrong: chunks stored before the mark
// existed (index version 7 rebuilds every older index once, and so
// marks them). It writes markBatch chunks a transaction; the mark
// changes no indexed field.
func (w *writer) markQuestions(ids []string) error {
	for len(ids) > 0 {
		n := min(len(ids), markBatch)
		err := w.st.Update(func(tx *store.Tx) error {
			for _, id := range ids[:n] {
				c, err := tx.Chunk(id)
				if errors.Is(err, core.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				chunk, err := w.hydrate(tx, c)
				if err != nil {
					return err
				}
				if a := asks(chunk.Messages); a != c.Asks {
					c.Asks = a
					if err := tx.PutChunk(c, false); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("marking questions: %w", err)
		}
		ids = ids[n:]
	}
	return nil
}

// markBatch is the number of chunks markQuestions rewrites in one
// transaction.
const markBatch = 1024

// rebuildBackendIndex empties the backend's index and fills it again
// from the store. The caller holds the write lock.
func (w *writer) rebuildBackendIndex(ctx context.Context) error {
	if err := w.backend.Index.Reset(); err != nil {
		return fmt.Errorf("rebuilding index: %w", err)
	}
	gen, total, err := w.fillIndex(ctx, w.backend.Index)
	if err != nil {
		return fmt.Errorf("rebuilding index: %w", err)
	}
	if err := w.st.Update(func(tx *store.Tx) error { return tx.ClearOutbox(gen) }); err != nil {
		return err
	}
	w.logf("huimem: index rebuilt: %d chunks", total)
	return nil
}
