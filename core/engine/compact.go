package engine

import (
	"context"
	"time"

	"github.com/huimemory/huimemory/core/store"
)

// Compaction after a bulk ingest. A staged ingest commits its
// batches one after the other, and each commit puts new pages of every
// bucket it writes (messages, chunks, vectors, ids) at the end of the
// file: the vectors' pages end up interleaved with the rest. A recall
// scans the vectors through the memory map, and the kernel maps the
// 64 KiB around every page it faults in, so it maps the neighbours too.
// When an ingest grew the store by more than a quarter, the ingest ends
// by compacting it ([store.Store.CompactWith]): every bucket is copied
// into a new file in one run of full pages, and the new file is renamed
// over the old one. A staged ingest's own transactions fill their pages
// and append its vectors in order, so their growth does not
// count (see compactBase). This runs after the ingest is durable and
// indexed, outside its all-or-nothing section: a crash during the compaction
// leaves the store as the ingest left it (the next open removes the
// half-written copy), and an error only logs a warning.
//
// With [AccessShared] the compaction runs while the write still holds
// the home (other processes' readers wait at the gate, as for the rest
// of the write, and open the new file once it ends). On a backend
// (PostgreSQL) there is no file to compact.

// compactBase is the data size that the store's growth since base is
// measured against to decide on a compaction: base's, plus what
// transactions that filled their leaves have added since (a staged
// ingest's bulk writes, see [store.Store.FilledGrowth]). Those pages are
// as full as a compaction would leave them, and the stage's vectors lie
// in order (after a 75 MB ingest, 662 MB of store compacted to 656 MB,
// and its vectors lay in 4,386 windows of 64 KiB where 4,127 would do,
// against 4,159 after), so a copy would cost seconds per hundred MB for
// next to nothing. What other writes added counts in full. A base of no
// size (a store it could not read) stays so, and there is no compaction.
func (m *maintainer) compactBase(base TidyBase) int64 {
	if m.st == nil || base.data <= 0 {
		return base.data
	}
	return base.data + max(0, m.st.FilledGrowth()-base.filled)
}

// compactGrowth is the growth of the store's data since the ingest (or,
// for `huimem ingest`, the run of files) began, beyond which it ends by
// compacting it: the compaction costs about as much as reading the
// store, so compacting at every quarter's growth costs a bounded share
// of the writes.
const compactGrowth = 1.25

// compactMinBytes is the least data size worth compacting: below it the
// whole store fits in a few hundred fault-around windows. A variable for
// tests.
var compactMinBytes int64 = 8 << 20

// Compaction says what the compaction at the end of an ingest did.
type Compaction struct {
	// Before and After are the store file's size in bytes.
	Before int64 `json:"before"`
	After  int64 `json:"after"`
	// Seconds is how long it took.
	Seconds float64 `json:"seconds"`
}

// compactAfterIngest compacts the store if storage.compact_after_ingest
// is on, the store is the home's file and held read-write by this
// engine, and its data grew by more than compactGrowth since base (its
// size when the ingest began, plus what filled transactions added since:
// see compactBase). It returns nil when it did not compact.
// The caller holds writeMu and no transaction.
func (m *maintainer) compactAfterIngest(ctx context.Context, base int64) *Compaction {
	on := m.cfg.Storage.CompactAfterIngest
	if (on != nil && !*on) || m.backend != nil || m.st.External() || !m.st.Exclusive() {
		return nil
	}
	now, _, err := m.st.DataSize()
	if err != nil || now < compactMinBytes {
		return nil
	}
	// Growth since base only, not since the last compaction: many small
	// ingests (a sidecar's appends) never compact the store, where each
	// quarter's growth would copy all of it again.
	if base <= 0 || float64(now) <= compactGrowth*float64(base) {
		return nil
	}
	start := time.Now()
	st, err := m.st.CompactWith(ctx, store.CompactOptions{})
	if err != nil {
		m.logf("huimem: warning: compacting the store after the ingest: %v (the ingest is stored; the store stays as it was)", err)
		return nil
	}
	c := &Compaction{Before: st.Before, After: st.After, Seconds: time.Since(start).Seconds()}
	m.logf("huimem: compacted the store after the ingest: %.1f MB to %.1f MB in %.2f s", float64(c.Before)/1e6, float64(c.After)/1e6, c.Seconds)
	return c
}
