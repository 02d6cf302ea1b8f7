package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// ReindexOptions tune [Engine.Reindex].
type ReindexOptions struct {
	// Embed re-embeds every chunk even when the embedder has not changed.
	Embed bool
}

// ReindexResult says what a reindex did.
type ReindexResult struct {
	Chunks   int  `json:"chunks"`
	Embedded bool `json:"embedded"`
}

// Reindex rebuilds the search index from the store. When the embedder
// changed since the vectors were made (or opts.Embed is set) it first
// re-embeds every chunk and replaces all vectors in one transaction, so
// vectors from two models are never mixed. Recalls wait while it runs.
func (e *Engine) Reindex(ctx context.Context, opts ReindexOptions) (ReindexResult, error) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	var res ReindexResult
	// A shared engine takes the home now, not inside ixMu (access.go).
	if err := e.upgrade(); err != nil {
		return res, err
	}
	e.ixMu.Lock()
	defer e.ixMu.Unlock()
	if e.closed {
		return res, core.ErrClosed
	}
	if e.embedderChanged || opts.Embed {
		if err := e.reembed(ctx); err != nil {
			return res, err
		}
		res.Embedded = true
	}
	if e.ix != nil {
		e.ix.Close()
		e.ix = nil
	}
	if err := e.rebuildIndex(ctx); err != nil {
		e.stale = err
		return res, err
	}
	e.stale = nil
	e.st.View(func(tx *store.Tx) error { res.Chunks, _ = tx.Counts(); return nil })
	return res, nil
}

func (e *Engine) reembed(ctx context.Context) error {
	type item struct {
		ns, id string
		c      *core.Chunk
	}
	var items []item
	var texts []string
	err := e.st.View(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error {
			chunk, err := e.hydrate(tx, c)
			if err != nil {
				return err
			}
			items = append(items, item{ns: c.NS, id: c.ID, c: &core.Chunk{Time: chunk.Time}})
			texts = append(texts, chunk.Content())
			return nil
		})
	})
	if err != nil {
		return err
	}
	e.logf("huimem: embedding %d chunks with %s", len(texts), describe(e.info))
	vecs, err := e.embed(ctx, texts)
	if err != nil {
		return err
	}
	err = e.st.Update(func(tx *store.Tx) error {
		if err := tx.DeleteAllVectors(); err != nil {
			return err
		}
		for i, it := range items {
			if err := tx.PutVector(it.ns, it.c.Time, it.id, vecs[i]); err != nil {
				return err
			}
		}
		data, _ := json.Marshal(e.info)
		return tx.SetMeta(store.MetaEmbedder, data)
	})
	if err != nil {
		return fmt.Errorf("replacing vectors: %w", err)
	}
	e.embedderChanged = false
	e.vx = e.newVectors()
	return nil
}

// Stats describes a home.
type Stats struct {
	Home       string            `json:"home"`
	Chunks     int               `json:"chunks"`
	Messages   int               `json:"messages"`
	Sessions   int               `json:"sessions"`
	Namespaces map[string]int    `json:"namespaces"` // chunks per namespace
	Embedder   core.EmbedderInfo `json:"embedder"`
	Generation uint64            `json:"generation"`
	IndexGen   uint64            `json:"index_generation"`
	IndexDocs  uint64            `json:"index_documents"`
	Pending    int               `json:"pending"` // chunks not yet in the index
	// PendingExtractions counts chunks with failed extractions to retry.
	PendingExtractions int   `json:"pending_extractions"`
	StoreBytes         int64 `json:"store_bytes"`
	IndexBytes         int64 `json:"index_bytes"`
	FilesBytes         int64 `json:"sessions_bytes"`
}

// Stats counts what the home holds.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Home: e.home, Namespaces: map[string]int{}, Embedder: e.info}
	err := e.st.View(func(tx *store.Tx) error {
		s.Chunks, s.Messages = tx.Counts()
		s.Generation = tx.Gen()
		s.Pending = tx.OutboxLen()
		_, s.PendingExtractions = tx.PendingExtracts(1)
		err := tx.ForEachSession(func(ss *store.Session) error {
			s.Sessions++
			s.Namespaces[ss.NS] += ss.Chunks
			return nil
		})
		return err
	})
	if err != nil {
		return s, err
	}
	e.ixMu.RLock()
	if e.ix != nil {
		s.IndexGen, _ = e.ix.Gen()
		s.IndexDocs, _ = e.ix.Count()
	}
	e.ixMu.RUnlock()
	s.StoreBytes = e.st.Size()
	s.IndexBytes = dirSize(filepath.Join(e.home, indexDir))
	s.FilesBytes = dirSize(e.sessionsRoot())
	return s, ctx.Err()
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
