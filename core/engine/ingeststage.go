package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// Staged ingest. A file that holds more messages than one
// batch is not read whole: its messages are streamed, and each batch is
// planned, chunked, embedded and committed on its own under a stage (see
// core/store/stage.go), which readers cannot reach. When the file has been
// read to its end without a problem, one small transaction publishes the
// stage, together with the messages that go into sessions that existed
// before (those are held in memory and written by the ordinary path at
// publish). A bad line, an error or a cancelled context discards the
// stage; a crash leaves it unpublished and invisible, and the next ingest
// discards it before it writes anything. Memory is bounded by a batch (and
// the sessions it touches), not by the file.

// DefaultBatchMessages is how many messages a staged ingest reads, plans
// and commits at a time, unless [SourceOptions.BatchMessages] says
// otherwise. A file with no more messages than this is ingested in one
// transaction.
const DefaultBatchMessages = 2048

// stageBatchBytes bounds the text of one batch, whatever its count.
const stageBatchBytes = 4 << 20

// discardLimit is how many records one discard transaction removes.
const discardLimit = 20000

// pullBatch reads up to limit messages (or stageBatchBytes of text) from
// next. more is false when the stream ended.
func pullBatch(next func() (core.Message, error, bool), limit int) (batch []core.Message, more bool, err error) {
	size := 0
	for len(batch) < limit && size < stageBatchBytes {
		m, err, ok := next()
		if !ok {
			return batch, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		batch = append(batch, m)
		size += len(m.Text)
	}
	return batch, true, nil
}

// stageRun is one staged ingest in progress.
type stageRun struct {
	info     *store.StageInfo
	src      string
	deferred []core.Message // messages for sessions that existed before
	sessions int
	res      IngestResult
	// base is the store's and the index's size before the stage began
	// (see merge.go).
	base TidyBase
	// ix indexes the stage's chunks as its batches are committed; nil
	// when they are indexed after the publication, or until the stage is
	// large enough (see stageindex.go). held are the chunks not sent to
	// it yet.
	ix        *stageIndexer
	indexable bool
	held      stagedChunks
	// hashed holds the records the batches wrote into the stage's run
	// rather than the buckets keyed by hashes (core/store/stagerun.go);
	// they are merged before the publication.
	hashed *store.StageRun
	// group, when set, is the files of a grouped stage (sourcegroup.go),
	// whose messages the stage takes in turn; nil for one file, src.
	group *stageGroup
}

// ingestStaged ingests a new source (one that holds no messages yet)
// batch by batch under a stage, then publishes it. first is the first
// batch, next yields the rest. With group set, the messages are those of
// several new files, and the stage, named after the first (abs, digest),
// publishes them all (sourcegroup.go). The caller does not hold writeMu
// (nor does it with a group: its feed takes the files in turn).
func (w *writer) ingestStaged(ctx context.Context, abs, digest string, first []core.Message, next func() (core.Message, error, bool), limit int, deferTidy bool, group *stageGroup) (IngestResult, error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.writable(); err != nil {
		return IngestResult{}, err
	}
	if err := w.discardStages(); err != nil {
		return IngestResult{}, err
	}
	defer beginBulkGC()()                            // see bulkgc.go
	defer every(storeReleaseTick, w.releaseMapped)() // see release.go
	run := &stageRun{src: abs, base: w.tidyBase(), indexable: w.stageIndexable(), group: group}
	err := w.st.Update(func(tx *store.Tx) error {
		var err error
		run.info, err = tx.BeginStage(abs, digest)
		return err
	})
	if err != nil {
		return IngestResult{}, fmt.Errorf("starting a staged ingest: %w", err)
	}
	fail := func(err error) (IngestResult, error) { return run.res, w.failStage(run, err) }
	if run.hashed, err = w.st.NewStageRun(run.info); err != nil {
		return fail(err)
	}
	defer run.unpin() // once published, or discarded
	batch, more := first, true
	for {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		if err := w.stageBatch(ctx, run, batch); err != nil {
			return fail(err)
		}
		if !more {
			break
		}
		if batch, more, err = pullBatch(next, limit); err != nil {
			return fail(err)
		}
	}
	if err := run.ix.send(ctx, &run.held); err != nil {
		return fail(fmt.Errorf("indexing: %w", err))
	}
	if err := run.ix.finish(); err != nil {
		return fail(fmt.Errorf("indexing: %w", err))
	}
	if err := w.mergeStageRun(ctx, run); err != nil {
		return fail(err)
	}
	if err := w.writeStagedSessions(ctx, run); err != nil {
		return fail(err)
	}
	// Publish: the messages for sessions that existed go in by the
	// ordinary path, in the same transaction as the stage's publication.
	src := &source{name: abs, digest: digest, track: &tracking{drop: map[core.MessageKey]bool{}}, stage: run, deferTidy: deferTidy}
	if group != nil {
		src = group.source(run, deferTidy)
	}
	r, err := w.ingestLocked(ctx, run.deferred, src)
	if group != nil {
		group.finish(r)
	}
	res := run.res
	res.Messages += r.Messages
	res.Added += r.Added
	res.Duplicates += r.Duplicates
	res.Chunks += r.Chunks
	res.Removed += r.Removed
	res.Sessions += r.Sessions
	res.ExtractFailures = append(res.ExtractFailures, r.ExtractFailures...)
	res.Compaction, res.IndexMerge = r.Compaction, r.IndexMerge
	published := err == nil || w.stagePublished(run.info)
	if err != nil && !published {
		_, err = fail(err)
	}
	if published {
		if serr := w.sweepStage(run.info.ID); serr != nil && err == nil {
			err = serr
		}
	}
	return res, err
}

// writeStagedSessions writes the stage's sessions before its publication
// (see store.Tx.WriteStagedSessions), a bounded transaction at a time,
// letting the store's map go after each: written in the publishing
// transaction, they held the whole stage's chunk lists on the heap.
func (w *writer) writeStagedSessions(ctx context.Context, run *stageRun) error {
	var after []byte
	for first := true; first || after != nil; first = false {
		if err := ctx.Err(); err != nil {
			return err
		}
		before := *run.info
		err := w.st.Update(func(tx *store.Tx) error {
			*run.info = before
			var err error
			after, err = tx.WriteStagedSessions(run.info, after, 0)
			return err
		})
		if err != nil {
			*run.info = before
			return fmt.Errorf("writing the staged sessions: %w", err)
		}
		w.st.ReleaseMapped()
	}
	return nil
}

// sweepStage removes what is left of a published stage, in bounded
// transactions (see store.Tx.SweepStage). Readers see the same store
// before and after; a crash leaves the rest to the next writer.
func (w *writer) sweepStage(id string) error {
	for done := false; !done; {
		err := w.st.Update(func(tx *store.Tx) error {
			var err error
			done, err = tx.SweepStage(id, discardLimit)
			return err
		})
		if err != nil {
			return fmt.Errorf("removing the stage of a finished ingest: %w", err)
		}
		w.st.ReleaseMapped()
	}
	return nil
}

// mergeStageRun merges the stage's run into the buckets keyed by hashes,
// a bounded transaction at a time, letting the store's map go after each.
func (w *writer) mergeStageRun(ctx context.Context, run *stageRun) error {
	for done := false; !done; {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := w.st.Update(func(tx *store.Tx) error {
			var err error
			done, err = tx.MergeStageRun(run.hashed, 0)
			return err
		})
		if err != nil {
			return fmt.Errorf("merging the staged records: %w", err)
		}
		w.st.ReleaseMapped()
	}
	// The buckets hold the whole run now, and the stage's own records
	// lead to them.
	return run.hashed.Remove()
}

// stagePublished reports whether a stage's publication committed (its
// record is gone).
func (w *writer) stagePublished(info *store.StageInfo) bool {
	open := true
	w.st.View(func(tx *store.Tx) error {
		stages, err := tx.Stages()
		open = err != nil || slices.ContainsFunc(stages, func(s *store.StageInfo) bool { return s.ID == info.ID })
		return nil
	})
	return !open
}

// stageBatch plans, prepares and commits one batch of a staged ingest.
func (w *writer) stageBatch(ctx context.Context, run *stageRun, msgs []core.Message) error {
	b := &stagedBatch{}
	err := w.st.View(func(tx *store.Tx) error {
		tx.UseStageRun(run.hashed)
		return w.planStagedBatch(tx, run, msgs, b)
	})
	if err != nil {
		return err
	}
	if err := w.prepareIngest(ctx, b.plans); err != nil {
		return err
	}
	// From bulkMin chunks on, the stage is indexed as it goes
	// (stageindex.go); its record says so before the index holds any of
	// it.
	planned := 0
	for _, p := range b.plans {
		planned += len(p.chunks)
	}
	if run.indexable && run.ix == nil && run.held.count()+planned >= bulkMin {
		run.info.Indexed = true // saved by the commit, undone if it fails
	}
	if err := w.commitStagedBatch(run, b); err != nil {
		return err
	}
	tails := map[string]bool{}
	for _, p := range b.plans {
		if n := len(p.chunks); n > 0 {
			tails[p.chunks[n-1].rec.ID] = true
		}
	}
	if err := w.indexStagedBatch(ctx, run, &b.written, tails); err != nil {
		return fmt.Errorf("indexing: %w", err)
	}
	run.deferred = append(run.deferred, b.deferred...)
	run.res.Messages += len(msgs) - len(b.deferred)
	run.res.Added += len(b.fresh)
	run.res.Duplicates += b.dups
	run.res.Sessions += b.newSessions
	for _, p := range b.plans {
		run.res.ExtractFailures = append(run.res.ExtractFailures, p.extractFails...)
		run.group.wrote(p)
	}
	return nil
}

// stagedBatch is what one batch of a staged ingest writes.
type stagedBatch struct {
	plans  []*sessionPlan
	fresh  []*newMsg
	claims []core.MessageKey
	// claimers name the source of each of claims in a grouped stage
	// (nil: the stage's source).
	claimers []string
	baseSeq  uint64
	deferred []core.Message // messages of sessions stored before the stage
	dups     int
	// newSessions counts the sessions the stage starts.
	newSessions int
	// written are the chunks the batch wrote or removed.
	written stagedChunks
}

// planStagedBatch works out, in a read transaction, the batch's new
// messages, the sessions they go to (those stored before the stage are
// deferred to the publishing transaction), and the source's claims.
//
// In a grouped stage each message is its file's (run.group), and so is
// its claim. The batch writes the claims on the messages the stage
// stores; those on messages stored before, or deferred, are written
// with their files' records at the publication, as their file would
// write them: a discard finds a claim of the stage only by its run or by
// the staged message it claims (store.Tx.DiscardStage), and a claim of a
// file that was never published must not stay.
func (w *writer) planStagedBatch(tx *store.Tx, run *stageRun, msgs []core.Message, b *stagedBatch) error {
	b.baseSeq = tx.Seq()
	seen := map[core.MessageKey]claimWhen{}
	bySession := map[[2]string][]*newMsg{}
	staged := map[[2]string]*store.StagedSession{}
	deferSession := map[[2]string]bool{}
	var order [][2]string
	for i := range msgs {
		f := run.group.owner() // nil for one file
		k := msgs[i].Key()
		if when, ok := seen[k]; ok {
			b.dups++
			if f != nil { // the file claims it too
				b.claim(f, k, when)
				f.dups++
			}
			continue
		}
		has := tx.HasMessage(k)
		when := claimNever
		if !has || len(tx.MessageClaimers(k)) > 0 {
			when = claimNow
		}
		if has {
			switch {
			case f == nil:
			case tx.StagedInRun(k):
				// An earlier batch's file stored it: its claim is
				// in the run, where MessageClaimers does not look.
				when = claimNow
			case when == claimNow:
				when = claimLate
			}
			seen[k] = when
			b.claim(f, k, when)
			b.dups++
			if f != nil {
				f.dups++
			}
			continue
		}
		sk := [2]string{msgs[i].Namespace, msgs[i].Session}
		if _, ok := bySession[sk]; !ok && !deferSession[sk] {
			ss, err := tx.StagedSession(run.info.ID, sk[0], sk[1])
			if err != nil {
				return err
			}
			if ss == nil {
				old, err := tx.Session(sk[0], sk[1])
				if err != nil {
					return err
				}
				if old != nil {
					deferSession[sk] = true
				} else {
					b.newSessions++
				}
			}
			if !deferSession[sk] {
				staged[sk] = ss
				order = append(order, sk)
				bySession[sk] = nil
			}
		}
		if deferSession[sk] {
			if f != nil {
				when = claimLate
				run.group.deferMsg(f, sk)
			}
			seen[k] = when
			b.claim(f, k, when)
			b.deferred = append(b.deferred, msgs[i])
			continue
		}
		seen[k] = when
		b.claim(f, k, when)
		if f != nil {
			run.group.addMsg(f, sk)
		}
		nm := &newMsg{msg: msgs[i], key: k, seq: b.baseSeq + uint64(len(b.fresh)) + 1, lines: transcript.TextLines(msgs[i].Text)}
		b.fresh = append(b.fresh, nm)
		bySession[sk] = append(bySession[sk], nm)
	}
	for _, sk := range order {
		p, err := w.loadSession(tx, sk[0], sk[1], bySession[sk], func(core.MessageKey) bool { return false })
		if err != nil {
			return err
		}
		if ss := staged[sk]; ss != nil {
			p.oldIDs = ss.IDs
			if err := p.loadOld(tx, ss.IDs); err != nil {
				return err
			}
		}
		b.plans = append(b.plans, p)
	}
	return nil
}

// claimWhen says when a staged message's claim is written.
type claimWhen int

const (
	claimNever claimWhen = iota // a message stored before, which no tracked source claims
	claimNow                    // by the batch
	claimLate                   // at the publication, with the file's record (grouped stages)
)

// claim adds file f's claim on k (f nil: the stage's source's) to the
// batch or, late, to the file's.
func (b *stagedBatch) claim(f *groupFile, k core.MessageKey, when claimWhen) {
	switch {
	case when == claimNever:
	case f == nil:
		b.claims = append(b.claims, k)
	case when == claimNow:
		b.claims = append(b.claims, k)
		b.claimers = append(b.claimers, f.r.abs)
	default:
		f.late = append(f.late, k)
	}
}

// commitStagedBatch writes the batch into the stage in one transaction;
// on failure the stage's record is as it was.
func (w *writer) commitStagedBatch(run *stageRun, b *stagedBatch) error {
	before := *run.info
	err := w.st.Update(func(tx *store.Tx) error {
		*run.info = before
		tx.UseStageRun(run.hashed)
		if tx.Seq() != b.baseSeq {
			return fmt.Errorf("store changed during ingest; try again")
		}
		for _, nm := range b.fresh {
			rec, err := tx.AddStagedMessage(run.info, &nm.msg, nm.key, nm.lines)
			if err != nil {
				return err
			}
			if rec.Seq != nm.seq {
				return fmt.Errorf("store changed during ingest; try again")
			}
		}
		b.written = stagedChunks{}
		for _, p := range b.plans {
			if err := writeStagedSession(tx, run.info.ID, p, &b.written); err != nil {
				return fmt.Errorf("writing session %q: %w", p.session, err)
			}
		}
		for i, k := range b.claims {
			src := run.src
			if b.claimers != nil {
				src = b.claimers[i]
			}
			if err := tx.ClaimMessage(src, k); err != nil {
				return err
			}
		}
		return tx.SaveStage(run.info)
	})
	if err != nil {
		*run.info = before
	}
	return err
}

// writeStagedSession writes a planned session of a stage: its chunks and
// vectors, and its record and chunk list in the stage, for publication.
// It adds the chunks it wrote or removed to written.
func writeStagedSession(tx *store.Tx, stage string, p *sessionPlan, written *stagedChunks) error {
	ids := make([]string, len(p.chunks))
	var pending []string
	for i, c := range p.chunks {
		id, err := tx.AllocID(c.rec.Key)
		if err != nil {
			return err
		}
		ids[i], c.rec.ID = id, id
	}
	linkChunks(p, ids)
	for _, c := range p.chunks {
		if len(c.rec.PendingExtract) > 0 {
			pending = append(pending, c.rec.ID)
		}
		if c.old != nil && sameRecord(c.old, c.rec) {
			continue
		}
		if err := tx.PutStagedChunk(stage, c.rec, c.vec, c.chunk.Time); err != nil {
			return err
		}
		written.add(stagedChunk{id: c.rec.ID, rec: c.rec, msgs: c.chunk.Messages})
	}
	for _, old := range p.old {
		if !slices.Contains(ids, old.ID) {
			if err := tx.DeleteStagedChunk(stage, old.Chunk); err != nil {
				return err
			}
			written.add(stagedChunk{id: old.ID})
		}
	}
	sess := store.Session{
		NS: p.ns, Session: p.session, File: p.file,
		First: p.msgs[0].Time.Format(time.RFC3339Nano), Last: p.msgs[len(p.msgs)-1].Time.Format(time.RFC3339Nano),
		Count: len(p.msgs), Chunks: len(ids),
	}
	return tx.PutStagedSession(stage, &store.StagedSession{Session: sess, IDs: ids, Pending: pending})
}

// publishStage publishes a stage in the ingest's transaction and records
// the weeks whose vectors changed.
func (r *stageRun) publish(tx *store.Tx, res *IngestResult, touched *[]touchedChunk) error {
	seen := map[[2]any]bool{}
	n, err := tx.PublishStage(r.info, func(ns string, tm time.Time) {
		day := [2]any{ns, tm.UTC().Truncate(24 * time.Hour)}
		if !seen[day] {
			seen[day] = true
			*touched = append(*touched, touchedChunk{ns, tm})
		}
	})
	if err != nil {
		return err
	}
	res.Chunks += n
	return nil
}

// discardStages removes every unpublished stage: they are left by
// ingests that failed or crashed; and the rest of every published one
// that a crash left unswept. The caller holds writeMu.
func (w *writer) discardStages() error {
	var stages []*store.StageInfo
	if err := w.st.View(func(tx *store.Tx) error {
		var err error
		stages, err = tx.Stages()
		return err
	}); err != nil {
		return err
	}
	for _, s := range stages {
		w.logf("huimem: removing the unpublished part of an interrupted ingest of %s", s.Source)
		if err := w.discardStage(s); err != nil {
			return fmt.Errorf("removing the unpublished part of an interrupted ingest of %s: %w", s.Source, err)
		}
	}
	var closed []string
	w.st.View(func(tx *store.Tx) error {
		closed = tx.ClosedStages()
		return nil
	})
	for _, id := range closed {
		if err := w.sweepStage(id); err != nil {
			return err
		}
	}
	return w.st.RemoveRunFiles()
}

// discardStage removes one unpublished stage, in bounded transactions:
// from the index first, when its chunks were indexed as they were written
// (see stageindex.go), then from the store.
func (w *writer) discardStage(info *store.StageInfo) error {
	if info == nil {
		return nil
	}
	if err := w.unindexStage(info); err != nil {
		return err
	}
	for {
		done := false
		err := w.st.Update(func(tx *store.Tx) error {
			var err error
			done, err = tx.DiscardStage(info, discardLimit)
			return err
		})
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}
