package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
)

// indexBatch bounds the documents in one index batch.
const indexBatch = 2000

// openIndex opens the index and brings it in step with the store: it
// replays the outbox when the index is a little behind, and rebuilds the
// index when it is missing, damaged or too far behind.
func (e *Engine) openIndex(ctx context.Context) error {
	dir := filepath.Join(e.home, indexDir)
	_, statErr := os.Stat(dir)
	ix, err := index.Open(dir)
	if errors.Is(err, index.ErrCorrupt) {
		e.logf("huimem: the search index cannot be used (%v); rebuilding it from the store", err)
		return e.rebuildIndex(ctx)
	}
	if err != nil {
		return err
	}
	e.ix = ix
	var gen, cleared uint64
	var chunks int
	var outbox int
	e.st.View(func(tx *store.Tx) error {
		gen, cleared = tx.Gen(), tx.OutboxCleared()
		chunks, _ = tx.Counts()
		outbox = len(tx.Outbox())
		return nil
	})
	igen, err := ix.Gen()
	if err != nil {
		return e.repair(ctx, fmt.Sprintf("its generation cannot be read (%v)", err))
	}
	switch {
	case errors.Is(statErr, os.ErrNotExist) && chunks > 0:
		return e.repair(ctx, "it is missing")
	case igen > gen:
		return e.repair(ctx, fmt.Sprintf("it is ahead of the store (generation %d > %d)", igen, gen))
	case igen < gen && igen < cleared:
		return e.repair(ctx, fmt.Sprintf("it is behind the store (generation %d < %d) by more than the outbox holds", igen, gen))
	case igen < gen || outbox > 0:
		if igen < gen {
			e.logf("huimem: the search index is behind the store (generation %d < %d); catching up %d chunks", igen, gen, outbox)
		}
		if err := e.applyOutbox(ctx); err != nil {
			return e.repair(ctx, fmt.Sprintf("catching up failed (%v)", err))
		}
	}
	n, err := e.ix.Count()
	if err != nil {
		return e.repair(ctx, fmt.Sprintf("its documents cannot be counted (%v)", err))
	}
	if int(n) != chunks {
		return e.repair(ctx, fmt.Sprintf("it holds %d chunks but the store holds %d", n, chunks))
	}
	return nil
}

func (e *Engine) repair(ctx context.Context, why string) error {
	e.logf("huimem: the search index has diverged from the store: %s; rebuilding it", why)
	if e.ix != nil {
		e.ix.Close()
		e.ix = nil
	}
	return e.rebuildIndex(ctx)
}

// syncDerived brings the index and the transcripts in step with the store
// after a write. Until the index has caught up, recalls fail rather than
// read it.
func (e *Engine) syncDerived(ctx context.Context) error {
	if err := e.applyOutbox(ctx); err != nil {
		e.ixMu.Lock()
		e.stale = err
		e.ixMu.Unlock()
		return fmt.Errorf("%w: %v; the store is intact: reopen or run `huimem reindex`", core.ErrIndexStale, err)
	}
	e.ixMu.Lock()
	e.stale = nil
	e.ixMu.Unlock()
	return e.writeTranscripts(ctx)
}

// applyOutbox indexes the chunks queued in the outbox and clears it.
func (e *Engine) applyOutbox(ctx context.Context) error {
	var ids []string
	var gen uint64
	e.st.View(func(tx *store.Tx) error {
		ids, gen = tx.Outbox(), tx.Gen()
		return nil
	})
	if len(ids) == 0 {
		return nil
	}
	for start := 0; start < len(ids); start += indexBatch {
		part := ids[start:min(start+indexBatch, len(ids))]
		var docs []index.Doc
		var deletes []string
		err := e.st.View(func(tx *store.Tx) error {
			for _, id := range part {
				c, err := tx.Chunk(id)
				if errors.Is(err, core.ErrNotFound) {
					deletes = append(deletes, id)
					continue
				}
				if err != nil {
					return err
				}
				d, err := e.doc(tx, c)
				if err != nil {
					return err
				}
				docs = append(docs, d)
			}
			return nil
		})
		if err != nil {
			return err
		}
		// Only the last batch records the new generation: a crash before
		// it leaves the index marked behind, and the outbox is replayed.
		g, err := e.ix.Gen()
		if err != nil {
			return err
		}
		if start+indexBatch >= len(ids) {
			g = gen
		}
		if err := e.ix.Apply(docs, deletes, g); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return e.st.Update(func(tx *store.Tx) error { return tx.ClearOutbox(gen) })
}

// doc builds the index document of a stored chunk.
func (e *Engine) doc(tx *store.Tx, c *store.Chunk) (index.Doc, error) {
	chunk, err := e.hydrate(tx, c)
	if err != nil {
		return index.Doc{}, err
	}
	var ctx []string
	for _, id := range []string{c.Prev, c.Next} {
		if id == "" {
			continue
		}
		n, err := tx.Chunk(id)
		if err != nil {
			return index.Doc{}, fmt.Errorf("neighbour of chunk %s: %w", c.ID, err)
		}
		nc, err := e.hydrate(tx, n)
		if err != nil {
			return index.Doc{}, err
		}
		ctx = append(ctx, nc.Content())
	}
	text, reply := splitRoles(chunk)
	return index.Doc{
		ID: c.ID, NS: c.NS, Session: c.Session, Time: chunk.Time, Text: text, Reply: reply,
		Context: strings.Join(ctx, "\n"),
		Roles:   c.Roles, Speakers: c.Speakers, Topic: c.Topic, Types: chunk.MemoryTypes(),
	}, nil
}

// splitRoles returns a chunk's content without its assistant messages, and
// the assistant messages' text: the index keeps them in separate fields
// (see [index.Doc]). A chunk without messages, or without assistant
// messages, is all text.
func splitRoles(c *core.Chunk) (text, reply string) {
	if c.Text != "" {
		return c.Text, ""
	}
	var t, r strings.Builder
	for i := range c.Messages {
		m := &c.Messages[i]
		b := &t
		if m.Role == core.RoleAssistant {
			b = &r
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if w := m.Who(); w != "" {
			b.WriteString(w)
			b.WriteString(": ")
		}
		b.WriteString(m.Text)
	}
	return t.String(), r.String()
}

// rebuildIndex builds a new index from every chunk in the store and swaps
// it in.
func (e *Engine) rebuildIndex(ctx context.Context) error {
	dir := filepath.Join(e.home, indexDir)
	tmp := dir + ".new"
	ix, err := index.Create(tmp)
	if err != nil {
		return err
	}
	var gen uint64
	total := 0
	err = e.st.View(func(tx *store.Tx) error {
		gen = tx.Gen()
		var docs []index.Doc
		flush := func() error {
			if len(docs) == 0 {
				return nil
			}
			err := ix.Apply(docs, nil, 0)
			total += len(docs)
			docs = docs[:0]
			if total%50000 < indexBatch {
				e.logf("huimem: indexed %d chunks", total)
			}
			return err
		}
		err := tx.ForEachChunk(func(c *store.Chunk) error {
			d, err := e.doc(tx, c)
			if err != nil {
				return err
			}
			docs = append(docs, d)
			if len(docs) >= indexBatch {
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
	if e.ix, err = index.Open(dir); err != nil {
		return err
	}
	if err := e.st.Update(func(tx *store.Tx) error { return tx.ClearOutbox(gen) }); err != nil {
		return err
	}
	e.logf("huimem: index rebuilt: %d chunks", total)
	return nil
}

// indexReady returns the index for a recall, or why it cannot be used. The
// caller must hold ixMu for reading.
func (e *Engine) indexReady() (*index.Index, error) {
	if e.closed {
		return nil, core.ErrClosed
	}
	if e.stale != nil {
		return nil, fmt.Errorf("%w: %v; reopen or run `huimem reindex`", core.ErrIndexStale, e.stale)
	}
	return e.ix, nil
}
