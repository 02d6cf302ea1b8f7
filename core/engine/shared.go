package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// shared is what the engine's parts share: its parts, the open store,
// index and vector cache, and the locks that guard them.
type shared struct {
	cfg        core.Config
	home       string
	st         *store.Store
	emb        core.Embedder
	info       core.EmbedderInfo
	chunker    core.Chunker
	extractors []core.Extractor
	extNames   []string
	logf       func(string, ...any)
	vx         *vector.Index
	// backend is Options.Backend (backend.go); nil for a home.
	backend *Backend
	// longLived is Options.LongLived.
	longLived bool
	// writeMu serialises writes: ingest, index sync, reindex. With
	// [AccessShared] it also takes the home's writer lock (access.go).
	writeMu writeLock
	// acc is the state of shared access (access.go).
	acc access

	// ixMu guards ix and stale; recalls hold it for reading.
	ixMu  sync.RWMutex
	ix    Lexical
	stale error // non-nil when the index is known to be behind the store

	// embedderChanged is set when Open was allowed an embedder change.
	embedderChanged bool
	closed          bool
	// onClose is Options.OnClose.
	onClose func() error
}

// setParts takes the engine's parts from opts; it builds nothing.
func (s *shared) setParts(opts Options) error {
	var missing []string
	if opts.Embedder == nil {
		missing = append(missing, "embedder")
	}
	if opts.Chunker == nil {
		missing = append(missing, "chunker")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w (missing: %s)", ErrNoParts, strings.Join(missing, ", "))
	}
	s.emb, s.chunker = opts.Embedder, opts.Chunker
	s.extractors, s.extNames = opts.Extractors, opts.ExtractorNames
	return nil
}

// newVectors returns an empty vector index over the store, with the heap
// budget of storage.vector_cache_mb, scanning the vectors'
// codes where the store has them (vectorcodes.go).
func (s *shared) newVectors() *vector.Index {
	return vector.NewWithOptions(s.info.Dim, s.loadVectors, vector.Options{CacheBytes: s.cfg.Storage.VectorCacheBytes(), Codes: s.vectorCodes()})
}

func (s *shared) loadVectors(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
	return s.st.View(func(tx *store.Tx) error { return tx.ScanVectors(ns, from, to, fn) })
}

// checkEmbedder compares the embedder with the one the store's vectors
// came from.
func (s *shared) checkEmbedder(ctx context.Context, allowChange bool) error {
	info, err := s.emb.Info(ctx)
	if err != nil {
		return fmt.Errorf("asking embedder for its model: %w", err)
	}
	if info.Dim <= 0 {
		return fmt.Errorf("embedder %q reports dimension %d", info.Name, info.Dim)
	}
	s.info = info
	// Read first; only a new home or a change writes.
	write := false
	err = s.st.View(func(tx *store.Tx) error {
		var err error
		write, err = s.embedderRecord(tx, allowChange)
		return err
	})
	if err != nil || !write {
		return err
	}
	if s.st.Shared() {
		// A shared engine writes it with its first write (access.go).
		s.acc.writeEmbedder = true
		return nil
	}
	return s.st.Update(func(tx *store.Tx) error {
		write, err := s.embedderRecord(tx, allowChange)
		if err != nil || !write {
			return err
		}
		return s.putEmbedder(tx)
	})
}

// embedderRecord compares the stored embedder with s.info and reports
// whether the record must be written.
func (s *shared) embedderRecord(tx *store.Tx, allowChange bool) (bool, error) {
	raw := tx.Meta(store.MetaEmbedder)
	chunks, _ := tx.Counts()
	if raw == nil {
		return true, nil
	}
	var old core.EmbedderInfo
	if err := json.Unmarshal(raw, &old); err != nil {
		return false, fmt.Errorf("reading stored embedder: %w", err)
	}
	if old == s.info {
		return false, nil
	}
	if chunks == 0 {
		return true, nil
	}
	if !allowChange {
		return false, fmt.Errorf("%w: the stored vectors come from %s, but the configured embedder is %s; run `huimem reindex` to re-embed every chunk",
			core.ErrEmbedderChanged, describe(old), describe(s.info))
	}
	s.embedderChanged = true
	return false, nil
}

// vectorsStillOurs checks that the stored vectors still come from this
// engine's embedder: another process may have re-embedded the memory
// (huimem reindex) since this one opened it, and then a query embedded
// here would be compared with vectors of another model, and a write
// would mix two models.
func (s *shared) vectorsStillOurs(tx *store.Tx) error {
	raw := tx.Meta(store.MetaEmbedder)
	if s.embedderChanged || raw == nil {
		return nil
	}
	var cur core.EmbedderInfo
	if json.Unmarshal(raw, &cur) != nil || cur == s.info {
		return nil
	}
	return fmt.Errorf("%w: another process re-embedded this memory with %s after this one opened it with %s; restart this process",
		core.ErrEmbedderChanged, describe(cur), describe(s.info))
}

func (s *shared) putEmbedder(tx *store.Tx) error {
	data, _ := json.Marshal(s.info)
	return tx.SetMeta(store.MetaEmbedder, data)
}

func describe(i core.EmbedderInfo) string {
	return fmt.Sprintf("%s (model %s, %d dimensions)", i.Name, i.Model, i.Dim)
}

// embed embeds texts in batches and checks every vector.
func (s *shared) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	bs := s.cfg.Embedding.BatchSize
	for i := 0; i < len(texts); i += bs {
		batch := texts[i:min(i+bs, len(texts))]
		vecs, err := s.emb.Embed(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("embedder %s: %w", s.info.Name, err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", s.info.Name, len(vecs), len(batch))
		}
		for j, v := range vecs {
			if len(v) != s.info.Dim {
				return nil, fmt.Errorf("embedder %s returned a vector of dimension %d, want %d", s.info.Name, len(v), s.info.Dim)
			}
			if !vector.Valid(v) {
				return nil, fmt.Errorf("embedder %s returned NaN or infinity for text %d", s.info.Name, i+j+1)
			}
			vector.Normalize(v)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// writable reports why the engine cannot take writes, if it cannot.
func (s *shared) writable() error {
	if s.closed {
		return core.ErrClosed
	}
	if s.embedderChanged {
		return fmt.Errorf("%w: run `huimem reindex` before adding memories", core.ErrEmbedderChanged)
	}
	return s.st.View(s.vectorsStillOurs)
}

// TidyBase is the size of the store and of the index at some moment,
// which the growth that tidying looks at is measured from.
type TidyBase struct {
	data   int64
	filled int64 // the store's FilledGrowth
	docs   uint64
}

// tidyBase is [Engine.TidyBase].
func (s *shared) tidyBase() TidyBase {
	b := TidyBase{data: s.dataSize(), docs: s.indexCount()}
	if s.st != nil {
		b.filled = s.st.FilledGrowth()
	}
	return b
}

// indexCount returns how many chunks the index holds, or 0 when it cannot
// say.
func (s *shared) indexCount() uint64 {
	if s.ix == nil {
		return 0
	}
	n, err := s.ix.Count()
	if err != nil {
		return 0
	}
	return n
}

// dataSize returns the store's data size, or 0 when it cannot be read or
// the store is not a file.
func (s *shared) dataSize() int64 {
	if s.backend != nil || s.st == nil || s.st.External() {
		return 0
	}
	n, _, err := s.st.DataSize()
	if err != nil {
		return 0
	}
	return n
}

// indexReady returns the index for a recall, or why it cannot be used. The
// caller must hold ixMu for reading.
func (s *shared) indexReady() (Lexical, error) {
	if s.closed {
		return nil, core.ErrClosed
	}
	if s.stale != nil {
		return nil, fmt.Errorf("%w: %v; reopen or run `huimem reindex`", core.ErrIndexStale, s.stale)
	}
	return s.ix, nil
}
