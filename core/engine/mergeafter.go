package engine

import (
	"context"
	"time"

	"github.com/huimemory/huimemory/core/index"
)

// Merging the index after a bulk ingest. Every index batch
// adds a segment to the home's bleve index, and scorch's background
// merger keeps several (a 100k-chunk ingest leaves 15 to 20). A search
// walks each segment's dictionary and postings, and bleve's BM25 sums its
// statistics over the segments, so rankings also drift a little as the
// background merger catches up (see core/index/merge.go).
//
// The index wants a merge when it has several segments, at least
// mergeMinChunks chunks, and the chunks outside the largest are more than
// a quarter of the largest's (compactGrowth). An ingest that grew the index by a quarter itself ends
// by merging it then: searches get faster and rank the same from then
// on. Smaller ingests (a sidecar's appends) never merge, so that they do
// not stall on a merge of the whole index; the background merger keeps
// up with them. [Engine.Tidy], which `huimem ingest` calls after its last
// file, looks only at whether the index wants a merge, so a run killed
// before its merge leaves it to the next run, even one that finds nothing
// new. A merge runs after the ingest is durable and indexed; searches go
// on meanwhile, and a failure only logs a warning (the index stays as the
// ingest left it, and correct). storage.compact_after_ingest turns it off
// with the store's compaction.

// IndexMerge says what the index merge at the end of an ingest did.
type IndexMerge struct {
	// Segments is how many segments were merged into one.
	Segments int `json:"segments"`
	// Seconds is how long it took.
	Seconds float64 `json:"seconds"`
}

// mergeMinChunks is the smallest index that a merge is worth: below it
// searches are fast whatever the segments, and a few appends to a new home
// (each adds a segment) would otherwise end in a merge and a log line.
const mergeMinChunks = 64

// segmentMerger is what the home's own index (core/index) offers beyond
// [Lexical]; a backend's index has no segments to merge.
type segmentMerger interface {
	SegmentStats() (index.SegmentStats, error)
	Merge(ctx context.Context) error
}

// mergeIndexAfterIngest merges the index into one segment when it is the
// home's own, [Engine.mergeWanted] says so and it holds more than
// minDocs chunks. It returns nil when it did not merge. The caller holds
// writeMu.
func (e *Engine) mergeIndexAfterIngest(ctx context.Context, minDocs uint64) *IndexMerge {
	m, want := e.mergeWanted()
	if !want || e.indexCount() <= minDocs {
		return nil
	}
	st, _ := m.SegmentStats()
	start := time.Now()
	if r, ok := m.(mappedReleaser); ok { // see release.go
		// Now, not a tick into the merge: the segments' pages that the
		// batches mapped were 65–74 MiB of the peak at 300 MB.
		r.ReleaseMapped()
		stop := every(indexReleaseTick, r.ReleaseMapped)
		defer func() { stop(); r.ReleaseMapped() }()
	}
	if err := m.Merge(ctx); err != nil {
		e.logf("huimem: warning: merging the index after the ingest: %v (the index stays as it was)", err)
		return nil
	}
	im := &IndexMerge{Segments: st.Segments, Seconds: time.Since(start).Seconds()}
	e.logf("huimem: merged the index's %d segments into one in %.2f s", im.Segments, im.Seconds)
	return im
}

// mergeWanted returns the home's index if it is one that merges, and
// whether it wants a merge: several segments, at least mergeMinChunks
// chunks, and more chunks outside the largest than a quarter of the
// largest's.
func (e *Engine) mergeWanted() (segmentMerger, bool) {
	m, ok := e.ix.(segmentMerger)
	if on := e.cfg.Storage.CompactAfterIngest; !ok || e.backend != nil || (on != nil && !*on) {
		return nil, false
	}
	st, err := m.SegmentStats()
	if err != nil || st.Segments < 2 || st.Total < mergeMinChunks {
		return m, false
	}
	return m, float64(st.Total) > compactGrowth*float64(st.Largest)
}

// TidyBase is the size of the store and of the index at some moment,
// which the growth that tidying looks at is measured from.
type TidyBase struct {
	data   int64
	filled int64 // the store's FilledGrowth
	docs   uint64
}

// TidyBase returns the store's and the index's size now.
func (e *Engine) TidyBase() TidyBase {
	b := TidyBase{data: e.dataSize(), docs: e.indexCount()}
	if e.st != nil {
		b.filled = e.st.FilledGrowth()
	}
	return b
}

// indexCount returns how many chunks the index holds, or 0 when it cannot
// say.
func (e *Engine) indexCount() uint64 {
	if e.ix == nil {
		return 0
	}
	n, err := e.ix.Count()
	if err != nil {
		return 0
	}
	return n
}

// Tidy does what the end of a large ingest does (compact the store, merge
// the index's segments), for a caller that ingested several sources with
// [SourceOptions.DeferTidy] and base taken before the first: once for
// the whole lot, where each source on its own would have tidied several
// times over. Each step runs only if it pays (the store grew by more than
// a quarter since base; the index as [Engine.mergeWanted] says) and only
// on a home's own files; a failure logs a warning and leaves the memory
// as it was. The results are nil for steps that did not run.
func (e *Engine) Tidy(ctx context.Context, base TidyBase) (*Compaction, *IndexMerge, error) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if err := e.writable(); err != nil {
		return nil, nil, err
	}
	if !e.tidyWanted(base) {
		return nil, nil, nil
	}
	// A shared engine's handles are read-only outside a write.
	if err := e.upgrade(); err != nil {
		return nil, nil, err
	}
	defer beginBulkGC()() // see ingestgc.go
	c, m := e.compactAndMerge(ctx, e.compactBase(base), 0)
	return c, m, nil
}

// compactAndMerge runs compactAfterIngest and mergeIndexAfterIngest at
// the same time: one rewrites the store's file, the other the
// index's segments, and neither reads the other's, so on two cores the
// tidy takes the longer of the two rather than their sum. The caller
// holds writeMu.
func (e *Engine) compactAndMerge(ctx context.Context, data int64, minDocs uint64) (*Compaction, *IndexMerge) {
	done := make(chan *Compaction, 1)
	go func() { done <- e.compactAfterIngest(ctx, data) }()
	m := e.mergeIndexAfterIngest(ctx, minDocs)
	return <-done, m
}

// tidyWanted reports whether the store grew by more than compactGrowth
// since base or the index wants a merge: a cheap look, before a shared
// engine takes the home for the work.
func (e *Engine) tidyWanted(base TidyBase) bool {
	if data, _, err := e.st.DataSize(); err == nil && data >= compactMinBytes && float64(data) > compactGrowth*float64(e.compactBase(base)) {
		return true
	}
	_, want := e.mergeWanted()
	return want
}

// tidyAfterIngest is what the end of one ingest does, for a caller that
// holds writeMu: compact the store if the ingest grew it by a quarter,
// and merge the index if the ingest grew it by a quarter and it wants a
// merge.
func (e *Engine) tidyAfterIngest(ctx context.Context, base TidyBase) (*Compaction, *IndexMerge) {
	if !e.tidyWanted(base) {
		return nil, nil
	}
	defer beginBulkGC()() // see ingestgc.go
	return e.compactAndMerge(ctx, e.compactBase(base), uint64(compactGrowth*float64(base.docs)))
}
