package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/formats"
	"github.com/huimemory/huimemory/core/store"
)

// Source statuses reported in [SourceResult.Status].
const (
	SourceNew       = "new"       // first ingest of this path
	SourceChanged   = "changed"   // the path was ingested before with other content
	SourceUnchanged = "unchanged" // same path, same content: skipped
	SourcePruned    = "pruned"    // removed by [Engine.PruneSource]
)

// SourceOptions tune [Engine.IngestSource].
type SourceOptions struct {
	// Namespace is given to messages that name none.
	Namespace string
	// Location is used for times without an offset and Unix timestamps;
	// nil means local time.
	Location *time.Location
	// Format names the file's format (see core/formats); "" detects it.
	Format string
	// BatchMessages is how many messages a large new file is read and
	// committed in at a time (see ingeststage.go); 0 means
	// [DefaultBatchMessages]. A file with no more messages than this goes
	// in one transaction.
	BatchMessages int
	// DeferTidy leaves the store's compaction and the index merge that
	// end a large ingest (see merge.go) to the caller, who
	// ingests several sources and calls [Engine.Tidy] once after the last,
	// with the [Engine.TidyBase] it took before the first.
	DeferTidy bool
}

// SourceResult says what ingesting or pruning one source did.
type SourceResult struct {
	IngestResult
	// Status is one of SourceNew, SourceChanged, SourceUnchanged and
	// SourcePruned.
	Status string `json:"status"`
	// Format is the format the file was read in.
	Format string `json:"format,omitempty"`
	// Dropped is how many messages of the source's earlier content were
	// removed because the file no longer holds them.
	Dropped int `json:"dropped"`
}

// tracking is what a tracked ingest changes besides adding messages: the
// messages it removes, and the source's claims on messages (see
// core/store/sources.go).
type tracking struct {
	drop     map[core.MessageKey]bool
	sessions [][2]string // (namespace, session) of the dropped messages, in order
	claim    []core.MessageKey
	unclaim  []core.MessageKey
	forget   bool // prune: forget the source's hash too
	// erase (Engine.Forget) drops every source's claims on the
	// dropped messages, and nothing else; set forget with it.
	erase bool
}

// dropSessions returns the sessions that lose messages; src may be nil.
func (s *source) dropSessions() [][2]string {
	if s == nil || s.track == nil {
		return nil
	}
	return s.track.sessions
}

// dropped reports whether a stored message is being removed; s may be nil.
func (s *source) dropped(k core.MessageKey) bool {
	return s != nil && s.track != nil && s.track.drop[k]
}

// write records the source's claims in the ingest's transaction.
func (t *tracking) write(tx *store.Tx, src *source) error {
	if t.erase { // Engine.Forget
		for k := range t.drop {
			for _, name := range tx.MessageClaimers(k) {
				if err := tx.UnclaimMessage(name, k); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, k := range t.unclaim {
		if err := tx.UnclaimMessage(src.name, k); err != nil {
			return err
		}
	}
	for _, k := range t.claim {
		if err := tx.ClaimMessage(src.name, k); err != nil {
			return err
		}
	}
	if t.forget {
		return tx.DeleteSourceHash(src.name)
	}
	return nil
}

// ingestSource is [Engine.IngestSource].
func (w *writer) ingestSource(ctx context.Context, path string, opts SourceOptions) (SourceResult, error) {
	r := w.readSource(path, opts)
	defer r.close()
	if r.err != nil || r.res.Unchanged {
		return r.res, r.err
	}
	return w.ingestRead(ctx, r, opts)
}

// sourceRead is a file [Engine.IngestSource] has begun to read: whether
// it changed since it was last ingested, and its first batch of messages.
type sourceRead struct {
	path, abs, digest string
	old               string // the digest it was last ingested with, or ""
	res               SourceResult
	err               error // the file cannot be read; res says how far it got
	limit             int   // messages in a batch
	first             []core.Message
	more              bool // the file holds more than first
	next              func() (core.Message, error, bool)
	stop              func()
}

// readSource hashes the file at path, looks it up among the tracked
// sources and, unless it is unchanged, reads its first batch.
func (w *writer) readSource(path string, opts SourceOptions) *sourceRead {
	r := &sourceRead{path: path, res: SourceResult{IngestResult: IngestResult{Source: path}}, limit: opts.BatchMessages}
	if r.limit <= 0 {
		r.limit = DefaultBatchMessages
	}
	if r.digest, r.err = fileDigest(path, opts.Namespace); r.err != nil {
		return r
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		r.err = fmt.Errorf("reading %s: %w", path, err)
		return r
	}
	r.abs = abs
	if r.err = w.st.View(func(tx *store.Tx) error { r.old = tx.SourceHash(abs); return nil }); r.err != nil {
		return r
	}
	if r.old == r.digest {
		r.res.Status, r.res.Unchanged = SourceUnchanged, true
		return r
	}
	r.res.Status = SourceNew
	if r.old != "" {
		r.res.Status = SourceChanged
	}
	loc := opts.Location
	if loc == nil {
		loc = time.Local
	}
	f, seq, err := formats.StreamFile(path, opts.Format, formats.Options{Namespace: opts.Namespace, Location: loc})
	if f != nil {
		r.res.Format = f.Name
	}
	if err != nil {
		r.err = err
		return r
	}
	r.next, r.stop = iter.Pull2(seq)
	r.first, r.more, r.err = pullBatch(r.next, r.limit)
	return r
}

// close lets the file go.
func (r *sourceRead) close() {
	if r.stop != nil {
		r.stop()
	}
}

// ingestRead ingests a file readSource found new or changed, on its own.
func (w *writer) ingestRead(ctx context.Context, r *sourceRead, opts SourceOptions) (SourceResult, error) {
	res := r.res
	msgs, more := r.first, r.more
	if more && r.old == "" {
		// A large new file goes in batch by batch, under a
		// stage that is published at the end (ingeststage.go).
		ir, err := w.ingestStaged(ctx, r.abs, r.digest, msgs, r.next, r.limit, opts.DeferTidy, nil)
		res.IngestResult = ir
		res.Source = r.path
		return res, err
	}
	// A small file, or a changed one (whose replacement needs every
	// message it now holds): one transaction.
	for more {
		var batch []core.Message
		var err error
		if batch, more, err = pullBatch(r.next, r.limit); err != nil {
			return res, err
		}
		msgs = append(msgs, batch...)
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.writable(); err != nil {
		return res, err
	}
	if err := w.discardStages(); err != nil {
		return res, err
	}
	return w.ingestWhole(ctx, r, msgs, opts.DeferTidy)
}

// ingestWhole ingests msgs, all a file holds, in one transaction that
// replaces what the file held before. The caller holds writeMu.
func (w *writer) ingestWhole(ctx context.Context, r *sourceRead, msgs []core.Message, deferTidy bool) (SourceResult, error) {
	res := r.res
	keys := make([]core.MessageKey, len(msgs))
	for i := range msgs {
		keys[i] = msgs[i].Key()
	}
	track, err := w.planTracking(r.abs, keys)
	if err != nil {
		return res, err
	}
	ir, err := w.applyTracking(ctx, msgs, &source{name: r.abs, digest: r.digest, track: track, deferTidy: deferTidy})
	res.IngestResult, res.Dropped = ir, len(track.drop)
	res.Source = r.path
	return res, err
}

// fileDigest is the sha256 of the namespace, a zero byte and the file's
// content, read as a stream.
func fileDigest(path, ns string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	defer fh.Close()
	h := sha256.New()
	h.Write([]byte(ns + "\x00"))
	if _, err := io.Copy(h, fh); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// pruneSource is [Engine.PruneSource].
func (w *writer) pruneSource(ctx context.Context, name string) (SourceResult, error) {
	res := SourceResult{IngestResult: IngestResult{Source: name}, Status: SourcePruned}
	abs, err := filepath.Abs(name)
	if err != nil {
		return res, err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.writable(); err != nil {
		return res, err
	}
	if err := w.discardStages(); err != nil {
		return res, err
	}
	track, err := w.planTracking(abs, nil)
	if err != nil {
		return res, err
	}
	track.forget = true
	r, err := w.applyTracking(ctx, nil, &source{name: abs, track: track})
	res.IngestResult, res.Dropped = r, len(track.drop)
	res.Source = name
	return res, err
}

// planTracking works out which messages a source's new content (keys)
// drops and which it claims. The caller holds writeMu.
func (w *writer) planTracking(src string, keys []core.MessageKey) (*tracking, error) {
	t := &tracking{drop: map[core.MessageKey]bool{}}
	err := w.st.View(func(tx *store.Tx) error {
		now := make(map[core.MessageKey]bool, len(keys))
		for _, k := range keys {
			if now[k] {
				continue
			}
			now[k] = true
			// Claim what this source adds, and what other tracked
			// sources hold too; leave untracked messages alone.
			if !tx.HasMessage(k) || len(tx.MessageClaimers(k)) > 0 {
				t.claim = append(t.claim, k)
			}
		}
		seen := map[[2]string]bool{}
		for _, k := range tx.SourceMessages(src) {
			if now[k] {
				continue
			}
			t.unclaim = append(t.unclaim, k)
			if slices.ContainsFunc(tx.MessageClaimers(k), func(s string) bool { return s != src }) {
				continue
			}
			m, err := tx.StoredMessage(k)
			if err != nil {
				return err
			}
			if m == nil {
				continue // already gone
			}
			t.drop[k] = true
			if sk := [2]string{m.NS, m.Session}; !seen[sk] {
				seen[sk] = true
				t.sessions = append(t.sessions, sk)
			}
		}
		return nil
	})
	return t, err
}

// applyTracking re-opens the sealed weeks of the sessions that lose
// messages, so that their text can be re-cut, then ingests. The caller
// holds writeMu.
func (w *writer) applyTracking(ctx context.Context, msgs []core.Message, src *source) (IngestResult, error) {
	for _, sk := range src.track.sessions {
		if err := w.reopenFor(sk[0], sk[1]); err != nil {
			return IngestResult{}, fmt.Errorf("re-opening session %q to replace its messages: %w", sk[1], err)
		}
	}
	return w.ingestLocked(ctx, msgs, src)
}
