package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/jsonl"
	"github.com/huimemory/huimemory/core/store"
)

// IngestResult says what one ingest did.
type IngestResult struct {
	// Source is the file name, or "" for messages given directly.
	Source string `json:"source,omitempty"`
	// Messages is how many messages were read.
	Messages int `json:"messages"`
	// Added is how many were new; Duplicates were already stored.
	Added      int `json:"added"`
	Duplicates int `json:"duplicates"`
	// ExtractFailures are the extractions that failed; the chunks are
	// stored, and the extractions retried later.
	ExtractFailures []ExtractFailure `json:"extract_failures,omitempty"`
	// DuplicateIndexes are the indexes, in the messages given to
	// [Engine.Ingest], of those that were stored already.
	DuplicateIndexes []int `json:"-"`
	// Chunks is how many chunks were created or changed, Removed how many
	// were merged away.
	Chunks  int `json:"chunks"`
	Removed int `json:"removed"`
	// Sessions is how many sessions were touched.
	Sessions int `json:"sessions"`
	// Unchanged is set when the source's content had been ingested before.
	Unchanged bool `json:"unchanged,omitempty"`
	// Compaction is set when the ingest ended by compacting the store
	// (see compact.go).
	Compaction *Compaction `json:"compaction,omitempty"`
	// IndexMerge is set when the ingest ended by merging the index's
	// segments into one (see merge.go).
	IndexMerge *IndexMerge `json:"index_merge,omitempty"`
}

// FileOptions tune [Engine.IngestFile].
type FileOptions struct {
	// Namespace is given to messages that name none.
	Namespace string
	// Location is used for times without an offset; nil means local time.
	Location *time.Location
	// DeferTidy is [SourceOptions.DeferTidy].
	DeferTidy bool
}

// ingestFile is [Engine.IngestFile].
func (w *writer) ingestFile(ctx context.Context, path string, opts FileOptions) (IngestResult, error) {
	res := IngestResult{Source: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return res, fmt.Errorf("reading %s: %w", path, err)
	}
	sum := sha256.Sum256(append([]byte(opts.Namespace+"\x00"), data...))
	digest := hex.EncodeToString(sum[:])
	seen := false
	if err := w.st.View(func(tx *store.Tx) error { seen = tx.HasSourceHash(digest); return nil }); err != nil {
		return res, err
	}
	if seen {
		res.Unchanged = true
		return res, nil
	}
	loc := opts.Location
	if loc == nil {
		loc = time.Local
	}
	msgs, err := jsonl.Read(bytes.NewReader(data), path, jsonl.Options{Location: loc, Namespace: opts.Namespace})
	if err != nil {
		return res, err
	}
	abs, _ := filepath.Abs(path)
	r, err := w.ingest(ctx, msgs, &source{name: abs, digest: digest, deferTidy: opts.DeferTidy})
	r.Source = path
	return r, err
}

// ingestMessages is [Engine.Ingest].
func (w *writer) ingestMessages(ctx context.Context, msgs []core.Message) (IngestResult, error) {
	for i := range msgs {
		if err := msgs[i].Validate(); err != nil {
			return IngestResult{}, fmt.Errorf("message %d: %w: %w", i+1, core.ErrInvalid, err)
		}
	}
	return w.ingest(ctx, msgs, nil)
}

// source is the file an ingest reads. track, when set, replaces the
// file's earlier content (see sources.go).
type source struct {
	name, digest string
	track        *tracking
	// stage, when set, is published in the ingest's transaction (see
	// ingeststage.go).
	stage *stageRun
	// deferTidy leaves the store's compaction and the index merge to the
	// caller, which calls [Engine.Tidy] after its last source.
	deferTidy bool
	// group, when set, are the files of a grouped ingest
	// (sourcegroup.go), each recorded in the ingest's transaction as a
	// source of its own is; the source itself names no file.
	group []*source
	// wrote, when set, is told what the commit wrote of each planned
	// session; it may be told again if the transaction is retried.
	wrote func(p *sessionPlan, changed, removed int)
}

func (w *writer) ingest(ctx context.Context, msgs []core.Message, src *source) (IngestResult, error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.discardStages(); err != nil { // leftover stages: see ingeststage.go
		return IngestResult{}, err
	}
	return w.ingestLocked(ctx, msgs, src)
}

// ingestLocked is ingest for a caller that holds writeMu. It
// runs in three phases: plan (read the store, find the new messages),
// prepare (chunk, extract and embed, outside any transaction) and commit
// (one transaction); then it brings the derived index and transcripts up
// to date and seals finished weeks if archive.auto_seal is set.
func (w *writer) ingestLocked(ctx context.Context, msgs []core.Message, src *source) (IngestResult, error) {
	res := IngestResult{Messages: len(msgs)}
	if err := w.writable(); err != nil {
		return res, err
	}
	// The sizes the ingest's growth is measured from (see
	// compact.go and merge.go).
	base := w.tidyBase()
	if src != nil && src.stage != nil {
		base = src.stage.base
	}
	in, err := w.planIngest(msgs, src, &res)
	if err != nil {
		return res, err
	}
	res.Added = len(in.fresh)
	res.Sessions = len(in.plans)
	if len(in.fresh) == 0 && len(src.dropSessions()) == 0 && (src == nil || src.stage == nil) {
		return res, w.recordSource(src)
	}
	if err := w.prepareIngest(ctx, in.plans); err != nil {
		return res, err
	}
	touched, err := w.commitIngest(in, src, &res)
	if err != nil {
		return res, fmt.Errorf("ingest rolled back, nothing was stored: %w", err)
	}
	if src != nil {
		src.stage.unpin() // the stage is published (stageindex.go)
	}
	w.refreshVectors(touched)
	removeTranscripts(w.sessionsRoot(), in.plans) // sessions emptied by a replace
	for _, p := range in.plans {
		res.ExtractFailures = append(res.ExtractFailures, p.extractFails...)
	}
	if err := w.syncDerived(ctx); err != nil {
		return res, err
	}
	w.maybeRetryExtractions(ctx, len(res.ExtractFailures) > 0)
	if err := w.afterCommit(ctx, committed{base: base, deferTidy: src != nil && src.deferTidy, res: &res}); err != nil {
		return res, err
	}
	return res, nil
}

// committed is what an ingest tells [writer.afterCommit]: the sizes its
// growth is measured from, whether the caller tidies itself, and the
// result, which the maintenance that follows fills in.
type committed struct {
	base      TidyBase
	deferTidy bool
	res       *IngestResult
}

// ingestPlan is what the plan phase of an ingest found.
type ingestPlan struct {
	plans   []*sessionPlan
	fresh   []*newMsg
	baseSeq uint64 // the store's sequence number when planned
}

// planIngest reads what is stored, counts the duplicates in res, and
// plans each session that gains or (for a changed source) loses messages.
func (w *writer) planIngest(msgs []core.Message, src *source, res *IngestResult) (*ingestPlan, error) {
	in := &ingestPlan{}
	err := w.st.View(func(tx *store.Tx) error {
		in.baseSeq = tx.Seq()
		seen := map[core.MessageKey]bool{}
		bySession := map[[2]string][]*newMsg{}
		var order [][2]string
		keys := make([]core.MessageKey, len(msgs))
		for i := range msgs {
			keys[i] = msgs[i].Key()
		}
		tx.PrefetchMessageKeys(keys) // one round trip behind a database
		for i := range msgs {
			k := keys[i]
			if seen[k] || tx.HasMessage(k) {
				res.Duplicates++
				res.DuplicateIndexes = append(res.DuplicateIndexes, i)
				continue
			}
			seen[k] = true
			nm := &newMsg{msg: msgs[i], key: k, seq: in.baseSeq + uint64(len(in.fresh)) + 1, lines: transcript.TextLines(msgs[i].Text)}
			in.fresh = append(in.fresh, nm)
			sk := [2]string{msgs[i].Namespace, msgs[i].Session}
			if bySession[sk] == nil {
				order = append(order, sk)
			}
			bySession[sk] = append(bySession[sk], nm)
		}
		// Sessions that only lose messages are planned too.
		for _, sk := range src.dropSessions() {
			if bySession[sk] == nil {
				order = append(order, sk)
				bySession[sk] = []*newMsg{}
			}
		}
		for _, sk := range order {
			p, err := w.loadSession(tx, sk[0], sk[1], bySession[sk], src.dropped)
			if err != nil {
				return err
			}
			in.plans = append(in.plans, p)
		}
		return nil
	})
	return in, err
}

// recordSource records an ingested file that brought nothing new, so that
// the next ingest of the same content is skipped.
func (w *writer) recordSource(src *source) error {
	if src == nil {
		return nil
	}
	return w.st.Update(func(tx *store.Tx) error { return recordSourceTx(tx, src) })
}

// recordSourceTx is recordSource's transaction; a group records each of
// its files.
func recordSourceTx(tx *store.Tx, src *source) error {
	if src.group != nil {
		for _, m := range src.group {
			if err := recordSourceTx(tx, m); err != nil {
				return err
			}
		}
		return nil
	}
	if src.track != nil {
		if err := src.track.write(tx, src); err != nil || src.track.forget {
			return err
		}
		if err := tx.PutSourceHash(src.name, src.digest); err != nil {
			return err
		}
	}
	return tx.PutSourceContent(src.digest)
}

// prepareIngest chunks each planned session, runs the extractors and
// embeds the chunks that need a vector, outside any transaction.
func (w *writer) prepareIngest(ctx context.Context, plans []*sessionPlan) error {
	var toEmbed []*plannedChunk
	for _, p := range plans {
		if err := w.chunkSession(ctx, p); err != nil {
			return err
		}
		for _, c := range p.chunks {
			if c.embed {
				toEmbed = append(toEmbed, c)
			}
		}
	}
	return w.embedChunks(ctx, toEmbed)
}

// commitIngest writes the new messages, the planned sessions and the
// source in one transaction, which fails if anything was written since
// the plan. It returns the weeks whose vectors changed.
func (w *writer) commitIngest(in *ingestPlan, src *source, res *IngestResult) ([]touchedChunk, error) {
	var touched []touchedChunk
	err := w.st.Update(func(tx *store.Tx) error {
		touched = touched[:0]
		res.Chunks, res.Removed = 0, 0
		if tx.Seq() != in.baseSeq {
			return fmt.Errorf("store changed during ingest; try again")
		}
		for _, nm := range in.fresh {
			rec, err := tx.AddMessage(&nm.msg, nm.key, nm.lines)
			if err != nil {
				return err
			}
			if rec.Seq != nm.seq {
				return fmt.Errorf("store changed during ingest; try again")
			}
		}
		if src != nil && src.track != nil { // drop replaced messages
			for k := range src.track.drop {
				if err := tx.DeleteMessage(k); err != nil {
					return err
				}
			}
		}
		for _, p := range in.plans {
			t, changed, removed, err := w.writeSession(tx, p)
			if err != nil {
				return fmt.Errorf("writing session %q: %w", p.session, err)
			}
			touched = append(touched, t...)
			res.Chunks += changed
			res.Removed += removed
			if src != nil && src.wrote != nil {
				src.wrote(p, changed, removed)
			}
		}
		if src != nil && src.stage != nil { // a staged ingest
			if err := src.stage.publish(tx, res, &touched); err != nil {
				return err
			}
		}
		return writeSource(tx, src)
	})
	return touched, err
}

// writeSource records an ingested file in the ingest's transaction.
func writeSource(tx *store.Tx, src *source) error {
	if src == nil {
		return nil
	}
	if src.group != nil {
		for _, m := range src.group {
			if err := writeSource(tx, m); err != nil {
				return err
			}
		}
		return nil
	}
	if src.track != nil {
		if err := src.track.write(tx, src); err != nil || src.track.forget {
			return err
		}
	}
	if err := tx.PutSourceContent(src.digest); err != nil {
		return err
	}
	return tx.PutSourceHash(src.name, src.digest)
}

type touchedChunk struct {
	ns   string
	time time.Time
}

// refreshVectors brings the vector cache up to date with the weeks a
// commit touched: a long-lived process's cached weeks are read again
// once, here, rather than by every search until one caches them again
// (see core/vector's Refresh). A week it cannot read is dropped from the
// cache, and the next search reads it from the store.
func (w *writer) refreshVectors(touched []touchedChunk) {
	byNS := map[string][]time.Time{}
	for _, t := range touched {
		byNS[t.ns] = append(byNS[t.ns], t.time)
	}
	for ns, ts := range byNS {
		if err := w.vx.Refresh(ns, ts); err != nil {
			w.logf("huimem: warning: %v (the next search reads the week from the store)", err)
		}
	}
}
