package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// ReindexOptions tune [Engine.Reindex].
type ReindexOptions struct {
	// Embed re-embeds every chunk even when the embedder has not changed.
	Embed bool
	// Progress, when set, is called from Reindex's goroutine as chunks
	// are embedded, with the count done so far (those an interrupted
	// reindex left included) and the total: once before the first batch,
	// then after each batch. It is not called when nothing is re-embedded.
	Progress func(done, total int)
}

// ReindexResult says what a reindex did.
type ReindexResult struct {
	Chunks   int  `json:"chunks"`
	Embedded bool `json:"embedded"`
	// Resumed counts the vectors an interrupted reindex had made, which
	// this one took instead of embedding their chunks again.
	Resumed int `json:"resumed,omitempty"`
}

// reembedFile, in the home, holds the vectors a re-embedding has made so
// far, so that a reindex that is killed or fails goes on where it
// stopped. Its format (version 1):
//
//	{"version":1,"embedder":{...},"gen":N,"chunks":M}\n   header, JSON
//	records: uint32 key length, key (namespace NUL chunk id), dim
//	float32 (little endian), uint32
//	CRC-32 (IEEE) of the record's bytes before it
//
// It is used only when the header matches the engine's embedder and the
// store's generation and chunk count (nothing was written since), read up
// to its first damaged record, and removed when the vectors are
// committed.
const reembedFile = "reembed.partial"

// reembedHeader is the first line of [reembedFile].
type reembedHeader struct {
	Version  int               `json:"version"`
	Embedder core.EmbedderInfo `json:"embedder"`
	Gen      uint64            `json:"gen"`
	Chunks   int               `json:"chunks"`
}

// Reindex rebuilds the search index from the store. When the embedder
// changed since the vectors were made (or opts.Embed is set) it first
// re-embeds every chunk, then replaces all vectors and the embedder
// record in one transaction, so vectors from two models are never mixed.
//
// The embedding, which takes minutes with a real model on a large home,
// runs under the write lock (no other write can change the chunks) but
// beside readers, as an ingest's embedding does; only the commit and the
// index rebuild lock them out. Recalls in this process wait while it
// runs. A kill or a failure before the commit leaves the store as it was,
// vectors and embedder record together; the vectors made so far are kept
// in the home's reembed.partial, and the next Reindex with the same
// embedder takes them and embeds only the rest. After the commit the
// index is rebuilt in a folder of its own and renamed into place, and a
// reopen repairs an index left behind.
func (e *Engine) Reindex(ctx context.Context, opts ReindexOptions) (ReindexResult, error) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	var res ReindexResult
	if e.closed {
		return res, core.ErrClosed
	}
	var staged *reembedding
	if e.embedderChanged || opts.Embed {
		// A shared engine that could not take the writer lock would
		// embed for nothing: its commit fails.
		if e.acc.lockErr != nil {
			return res, e.acc.lockErr
		}
		var err error
		if staged, err = e.embedAll(ctx, opts.Progress); err != nil {
			return res, err
		}
		res.Resumed = staged.resumed
	}
	// A shared engine takes the home now, not inside ixMu (access.go).
	if err := e.upgrade(); err != nil {
		return res, err
	}
	e.ixMu.Lock()
	defer e.ixMu.Unlock()
	if e.closed {
		return res, core.ErrClosed
	}
	if staged != nil {
		if err := e.replaceVectors(staged); err != nil {
			return res, err
		}
		res.Embedded = true
	}
	// Committed, or nothing to re-embed: what an interrupted run left is
	// of no use any more.
	os.Remove(filepath.Join(e.home, reembedFile))
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

// reembedding is every chunk's new vector, ready to replace the old ones.
type reembedding struct {
	keys []vectorKey
	vecs [][]float32
	// resumed counts the vectors taken from [reembedFile].
	resumed int
}

// vectorKey names one chunk's vector in the store.
type vectorKey struct {
	ns, id string
	time   time.Time
}

// key is the chunk's key in [reembedFile]: its namespace and id.
func (k vectorKey) key() string { return k.ns + "\x00" + k.id }

// embedAll embeds every chunk of the store with the engine's embedder,
// in batches of embedding.batch_size, calling progress after each. It
// takes the vectors [reembedFile] holds for this embedder and store, and
// appends each batch's vectors to it; the store is not written. The
// caller holds writeMu, so that the chunks do not change meanwhile.
func (e *Engine) embedAll(ctx context.Context, progress func(done, total int)) (*reembedding, error) {
	r := &reembedding{}
	var texts []string
	var hdr reembedHeader
	err := e.st.View(func(tx *store.Tx) error {
		hdr.Gen = tx.Gen()
		return tx.ForEachChunk(func(c *store.Chunk) error {
			chunk, err := e.hydrate(tx, c)
			if err != nil {
				return err
			}
			r.keys = append(r.keys, vectorKey{ns: c.NS, id: c.ID, time: chunk.Time})
			texts = append(texts, chunk.Content())
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("reading the chunks to re-embed: %w", err)
	}
	hdr.Version, hdr.Embedder, hdr.Chunks = 1, e.info, len(texts)
	path := filepath.Join(e.home, reembedFile)
	done := readReembed(path, hdr)
	cp := createReembed(path, hdr, done)
	if cp != nil {
		defer cp.Close()
	}
	if progress == nil {
		e.logf("huimem: embedding %d chunks with %s", len(texts)-len(done), describe(e.info))
		progress = func(int, int) {}
	}
	r.vecs = make([][]float32, len(texts))
	var todo []int // indexes of the chunks to embed
	for i, k := range r.keys {
		if v, ok := done[k.key()]; ok {
			r.vecs[i] = v
			r.resumed++
		} else {
			todo = append(todo, i)
		}
	}
	progress(r.resumed, len(texts))
	step := max(e.cfg.Embedding.BatchSize, 1)
	for start := 0; start < len(todo); start += step {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		idx := todo[start:min(start+step, len(todo))]
		batch := make([]string, len(idx))
		for j, i := range idx {
			batch[j] = texts[i]
		}
		vecs, err := e.embed(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("re-embedding chunk %d of %d: %w", idx[0]+1, len(texts), err)
		}
		var rec []byte
		for j, i := range idx {
			r.vecs[i] = vecs[j]
			rec = appendReembedRecord(rec, r.keys[i].key(), vecs[j])
		}
		if cp != nil {
			if _, err := cp.Write(rec); err != nil {
				// The checkpoint is a help, not a must.
				cp.Close()
				cp = nil
			}
		}
		progress(r.resumed+start+len(idx), len(texts))
	}
	return r, nil
}

// readReembed returns the vectors, by chunk key, that path holds for the
// re-embedding hdr describes; none when it is missing or for another
// embedder or store state. It reads up to the first damaged record.
func readReembed(path string, hdr reembedHeader) map[string][]float32 {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	line, rest, ok := bytes.Cut(data, []byte("\n"))
	var got reembedHeader
	if !ok || json.Unmarshal(line, &got) != nil || got != hdr {
		return nil
	}
	out := map[string][]float32{}
	vecBytes := 4 * hdr.Embedder.Dim
	for len(rest) >= 4 {
		n := int(binary.LittleEndian.Uint32(rest))
		size := 4 + n + vecBytes
		if n > 1<<16 || len(rest) < size+4 || crc32.ChecksumIEEE(rest[:size]) != binary.LittleEndian.Uint32(rest[size:]) {
			break
		}
		id := string(rest[4 : 4+n])
		vec := make([]float32, hdr.Embedder.Dim)
		for i := range vec {
			vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(rest[4+n+4*i:]))
		}
		out[id] = vec
		rest = rest[size+4:]
	}
	return out
}

// createReembed writes path anew with hdr and the vectors of done, and
// returns it open for appending; nil when it cannot be written (a home
// on read-only media, say), which only costs the resumption.
func createReembed(path string, hdr reembedHeader, done map[string][]float32) *os.File {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil
	}
	head, _ := json.Marshal(hdr)
	buf := append(head, '\n')
	for id, v := range done {
		buf = appendReembedRecord(buf, id, v)
	}
	if _, err := f.Write(buf); err != nil || f.Sync() != nil || os.Rename(tmp, path) != nil {
		f.Close()
		os.Remove(tmp)
		return nil
	}
	return f
}

// appendReembedRecord appends one [reembedFile] record to buf.
func appendReembedRecord(buf []byte, id string, vec []float32) []byte {
	start := len(buf)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(id)))
	buf = append(buf, id...)
	for _, x := range vec {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	return binary.LittleEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf[start:]))
}

// replaceVectors replaces every vector with r's and records the engine's
// embedder, in one transaction. The caller holds writeMu and ixMu.
func (e *Engine) replaceVectors(r *reembedding) error {
	err := e.st.Update(func(tx *store.Tx) error {
		if err := tx.DeleteAllVectors(); err != nil {
			return err
		}
		for i, k := range r.keys {
			if err := tx.PutVector(k.ns, k.time, k.id, r.vecs[i]); err != nil {
				return err
			}
		}
		return e.putEmbedder(tx)
	})
	if err != nil {
		return fmt.Errorf("replacing vectors: %w", err)
	}
	e.embedderChanged = false
	e.acc.writeEmbedder = false
	e.vx = e.newVectors()
	return nil
}

// Stats describes a home.
type Stats struct {
	Home string `json:"home"`
	// Backend is where the store and index live: "embedded" (the home),
	// or the backend's name and place ("postgres database huimem on
	// db:5432"), whose sizes are then not counted here.
	Backend    string            `json:"backend"`
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
	// Floor is the "nothing found" floor recall applies with this
	// embedder (retriever.min_relevance and retriever.floor_similarity).
	Floor Floor `json:"floor"`
}

// Floor says when a recall finds nothing: when, over the top hits, the
// best relevance plus SimilarityWeight × (the best cosine −
// SimilarityCenter) stays below MinRelevance (0: no floor). The floor
// does not apply to an index of fewer than MinChunks chunks.
type Floor struct {
	MinRelevance     float64 `json:"min_relevance"`
	SimilarityWeight float64 `json:"similarity_weight"`
	SimilarityCenter float64 `json:"similarity_center"`
	MinChunks        int     `json:"min_chunks"`
}

// Stats counts what the home holds.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Home: e.home, Namespaces: map[string]int{}, Embedder: e.info, Backend: core.BackendEmbedded}
	cal := e.floorCalibration()
	s.Floor = Floor{MinRelevance: *e.cfg.Retriever.MinRelevance, SimilarityWeight: cal.Weight, SimilarityCenter: cal.Center, MinChunks: minFloorChunks}
	if e.backend != nil {
		s.Backend = e.st.Path()
	}
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
	if e.backend == nil {
		s.StoreBytes = e.st.Size()
		s.IndexBytes = dirSize(filepath.Join(e.home, indexDir))
		s.FilesBytes = dirSize(e.sessionsRoot())
	}
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
