package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// writeSession writes a planned session's chunks, links and vectors, and
// the session record. It returns the chunks whose vectors changed, and
// how many chunks were written and removed.
func (w *writer) writeSession(tx *store.Tx, p *sessionPlan) ([]touchedChunk, int, int, error) {
	ids := make([]string, len(p.chunks))
	keys := make([]core.ChunkKey, len(p.chunks))
	for i, c := range p.chunks {
		keys[i] = c.rec.Key
	}
	tx.PrefetchNewChunks(keys)
	for i, c := range p.chunks {
		id, err := tx.AllocID(c.rec.Key)
		if err != nil {
			return nil, 0, 0, err
		}
		ids[i] = id
		c.rec.ID = id
	}
	touched, changed, err := putChunks(tx, p, ids)
	if err != nil {
		return nil, 0, 0, err
	}
	gone, removed, err := deleteGoneChunks(tx, p, ids)
	if err != nil {
		return nil, 0, 0, err
	}
	touched = append(touched, gone...)
	if len(p.msgs) == 0 { // the session's last message was removed
		// Queued so that a backend drops the stored transcript
		// (storeTranscripts); a home removes the file (removeTranscripts).
		if err := tx.MarkSessionDirty(p.ns, p.session); err != nil {
			return nil, 0, 0, err
		}
		return touched, changed, removed, tx.DeleteSession(p.ns, p.session)
	}
	return touched, changed, removed, putSession(tx, p, ids)
}

// putChunks links each planned chunk to its neighbours and writes the
// ones that changed, with their vectors.
func putChunks(tx *store.Tx, p *sessionPlan, ids []string) ([]touchedChunk, int, error) {
	var touched []touchedChunk
	changed := 0
	linkChunks(p, ids)
	for _, c := range p.chunks {
		if c.old != nil && sameRecord(c.old, c.rec) {
			continue
		}
		changed++
		if err := tx.PutChunk(c.rec, c.fields); err != nil {
			return nil, 0, err
		}
		if len(c.rec.PendingExtract) > 0 || (c.old != nil && len(c.old.PendingExtract) > 0) {
			if err := tx.MarkPendingExtract(c.rec.ID, len(c.rec.PendingExtract) > 0); err != nil {
				return nil, 0, err
			}
		}
		if c.vec != nil {
			if err := tx.PutVector(p.ns, c.chunk.Time, c.rec.ID, c.vec); err != nil {
				return nil, 0, err
			}
			touched = append(touched, touchedChunk{p.ns, c.chunk.Time})
		}
	}
	return touched, changed, nil
}

// linkChunks sets each planned chunk's prev/next ids. A chunk whose
// neighbours change is not indexed again: the index holds each chunk's own
// text, and recall adds the neighbours' at query time (neighbours.go).
func linkChunks(p *sessionPlan, ids []string) {
	for i, c := range p.chunks {
		if i > 0 {
			c.rec.Prev = ids[i-1]
		}
		if i+1 < len(ids) {
			c.rec.Next = ids[i+1]
		}
	}
}

// deleteGoneChunks deletes the session's stored chunks that the plan no
// longer has.
func deleteGoneChunks(tx *store.Tx, p *sessionPlan, ids []string) ([]touchedChunk, int, error) {
	var touched []touchedChunk
	keep := map[string]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	for _, old := range p.old {
		if keep[old.ID] {
			continue
		}
		if err := tx.DeleteChunk(old.Chunk); err != nil {
			return nil, 0, err
		}
		touched = append(touched, touchedChunk{p.ns, old.StartTime()})
	}
	return touched, len(touched), nil
}

// putSession writes the session's record and chunk list, and queues its
// transcript to be written.
func putSession(tx *store.Tx, p *sessionPlan, ids []string) error {
	if !slices.Equal(ids, p.oldIDs) {
		if err := tx.SetSessionChunks(p.ns, p.session, ids); err != nil {
			return err
		}
	}
	sess := &store.Session{
		NS: p.ns, Session: p.session, File: p.file,
		First: p.msgs[0].Time.Format(time.RFC3339Nano), Last: p.msgs[len(p.msgs)-1].Time.Format(time.RFC3339Nano),
		Count: len(p.msgs), Chunks: len(ids),
	}
	if o := p.oldSession; o != nil {
		sess.Stale = o.Stale
		if o.File != p.file && !slices.Contains(sess.Stale, o.File) {
			sess.Stale = append(sess.Stale, o.File)
		}
	}
	if err := tx.PutSession(sess); err != nil {
		return err
	}
	return tx.MarkSessionDirty(p.ns, p.session)
}

// sameRecord reports whether chunk c is stored as it is: whether its
// record encodes to old's stored bytes, as the store writes it. A chunk
// that an earlier version encoded otherwise is written again, once.
func sameRecord(old *storedChunk, c *store.Chunk) bool {
	b, err := json.Marshal(c)
	return err == nil && bytes.Equal(old.raw, b)
}

// closeSession is [Engine.CloseSession].
func (w *writer) closeSession(ctx context.Context, ns, session string) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.writable(); err != nil {
		return err
	}
	return w.st.Update(func(tx *store.Tx) error {
		s, err := tx.Session(ns, session)
		if err != nil {
			return err
		}
		if s == nil {
			return fmt.Errorf("session %q: %w in %s", session, core.ErrNotFound, nsName(ns))
		}
		return tx.SetMeta(closedKey(ns, session), []byte(time.Now().UTC().Format(time.RFC3339)))
	})
}
