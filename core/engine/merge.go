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
// home's own, [maintainer.mergeWanted] says so and it holds more than
// minDocs chunks. It returns nil when it did not merge. The caller holds
// writeMu.
func (m *maintainer) mergeIndexAfterIngest(ctx context.Context, minDocs uint64) *IndexMerge {
	sm, want := m.mergeWanted()
	if !want || m.indexCount() <= minDocs {
		return nil
	}
	st, _ := sm.SegmentStats()
	start := time.Now()
	if r, ok := sm.(mappedReleaser); ok { // see release.go
		// Now, not a tick into the merge: the segments' pages that the
		// batches mapped were 65–74 MiB of the peak at 300 MB.
		r.ReleaseMapped()
		stop := every(indexReleaseTick, r.ReleaseMapped)
		defer func() { stop(); r.ReleaseMapped() }()
	}
	if err := sm.Merge(ctx); err != nil {
		m.logf("huimem: warning: merging the index after the ingest: %v (the index stays as it was)", err)
		return nil
	}
	im := &IndexMerge{Segments: st.Segments, Seconds: time.Since(start).Seconds()}
	m.logf("huimem: merged the index's %d segments into one in %.2f s", im.Segments, im.Seconds)
	return im
}

// mergeWanted returns the home's index if it is one that merges, and
// whether it wants a merge: several segments, at least mergeMinChunks
// chunks, and more chunks outside the largest than a quarter of the
// largest's.
func (m *maintainer) mergeWanted() (segmentMerger, bool) {
	sm, ok := m.ix.(segmentMerger)
	if on := m.cfg.Storage.CompactAfterIngest; !ok || m.backend != nil || (on != nil && !*on) {
		return nil, false
	}
	st, err := sm.SegmentStats()
	if err != nil || st.Segments < 2 || st.Total < mergeMinChunks {
		return sm, false
	}
	return sm, float64(st.Total) > compactGrowth*float64(st.Largest)
}
