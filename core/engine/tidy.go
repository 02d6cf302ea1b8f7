package engine

import (
	"context"
)

// Tidying: the maintenance that follows writes. After each ingest's
// commit, once the index and transcripts are up to date, afterCommit
// seals finished weeks (archive.auto_seal), moves vectors still in
// layout 1, writes codes for vectors stored without them
// (vectorcodes.go), and, when the ingest grew the store or the index by
// a quarter, compacts the one (compact.go) and merges the other
// (merge.go). [Engine.Tidy] does the last step once for a caller that
// ingested many sources.

// tidy is [Engine.Tidy].
func (m *maintainer) tidy(ctx context.Context, base TidyBase) (*Compaction, *IndexMerge, error) {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	if err := m.writable(); err != nil {
		return nil, nil, err
	}
	if !m.tidyWanted(base) {
		return nil, nil, nil
	}
	// A shared engine's handles are read-only outside a write.
	if err := m.upgrade(); err != nil {
		return nil, nil, err
	}
	defer beginBulkGC()() // see bulkgc.go
	c, im := m.compactAndMerge(ctx, m.compactBase(base), 0)
	return c, im, nil
}

// compactAndMerge runs compactAfterIngest and mergeIndexAfterIngest at
// the same time: one rewrites the store's file, the other the
// index's segments, and neither reads the other's, so on two cores the
// tidy takes the longer of the two rather than their sum. The caller
// holds writeMu.
func (m *maintainer) compactAndMerge(ctx context.Context, data int64, minDocs uint64) (*Compaction, *IndexMerge) {
	done := make(chan *Compaction, 1)
	go func() { done <- m.compactAfterIngest(ctx, data) }()
	im := m.mergeIndexAfterIngest(ctx, minDocs)
	return <-done, im
}

// tidyWanted reports whether the store grew by more than compactGrowth
// since base or the index wants a merge: a cheap look, before a shared
// engine takes the home for the work.
func (m *maintainer) tidyWanted(base TidyBase) bool {
	if data, _, err := m.st.DataSize(); err == nil && data >= compactMinBytes && float64(data) > compactGrowth*float64(m.compactBase(base)) {
		return true
	}
	_, want := m.mergeWanted()
	return want
}

// tidyAfterIngest is what the end of one ingest does, for a caller that
// holds writeMu: compact the store if the ingest grew it by a quarter,
// and merge the index if the ingest grew it by a quarter and it wants a
// merge.
func (m *maintainer) tidyAfterIngest(ctx context.Context, base TidyBase) (*Compaction, *IndexMerge) {
	if !m.tidyWanted(base) {
		return nil, nil
	}
	defer beginBulkGC()() // see bulkgc.go
	return m.compactAndMerge(ctx, m.compactBase(base), uint64(compactGrowth*float64(base.docs)))
}

// afterCommit is the maintenance that follows each ingest's commit, once
// the index and transcripts are up to date, with writeMu held: it seals
// finished weeks if archive.auto_seal is set, moves vectors still in
// layout 1, writes the codes of vectors stored without them, and, unless
// the caller tidies itself, compacts the store and merges the index when
// the ingest grew them (see tidyAfterIngest).
func (m *maintainer) afterCommit(ctx context.Context, c committed) error {
	if err := m.autoSeal(ctx); err != nil {
		return err
	}
	// A home whose vectors are still in layout 1, outside the time-ordered
	// bucket, moves them over with its writes (readers take both layouts).
	if err := m.st.MigrateVectors(ctx, 5000); err != nil {
		m.logf("huimem: warning: %v (the vectors stay readable where they are)", err)
	}
	m.backfillVectorCodes(ctx) // codes for vectors stored without them
	// Everything is durable and indexed; a bulk ingest leaves
	// the buckets' pages interleaved and the index in several segments.
	if !c.deferTidy {
		c.res.Compaction, c.res.IndexMerge = m.tidyAfterIngest(ctx, c.base)
	}
	return nil
}

// backfillVectorCodes writes the codes of a home's vectors written before
// codes, after an ingest; until then its searches scan float32s.
func (m *maintainer) backfillVectorCodes(ctx context.Context) {
	if err := m.st.BackfillVectorCodes(ctx, 5000); err != nil {
		m.logf("huimem: warning: %v (searches scan the vectors' float32s meanwhile)", err)
	}
}

// releaseBatch is how many candidates' vectors a search reads before it
// lets their pages go: at most 1 MiB of the map stays resident for them.
const releaseBatch = 16
