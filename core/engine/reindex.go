package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
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

// reindex is [Engine.Reindex].
func (m *maintainer) reindex(ctx context.Context, opts ReindexOptions) (ReindexResult, error) {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	var res ReindexResult
	if m.closed {
		return res, core.ErrClosed
	}
	var staged *reembedding
	if m.embedderChanged || opts.Embed {
		// A shared engine that could not take the writer lock would
		// embed for nothing: its commit fails.
		if m.acc.lockErr != nil {
			return res, m.acc.lockErr
		}
		var err error
		if staged, err = m.embedAll(ctx, opts.Progress); err != nil {
			return res, err
		}
		res.Resumed = staged.resumed
	}
	// A shared engine takes the home now, not inside ixMu (access.go).
	if err := m.upgrade(); err != nil {
		return res, err
	}
	m.ixMu.Lock()
	defer m.ixMu.Unlock()
	if m.closed {
		return res, core.ErrClosed
	}
	if staged != nil {
		if err := m.replaceVectors(staged); err != nil {
			return res, err
		}
		res.Embedded = true
	}
	// Committed, or nothing to re-embed: what an interrupted run left is
	// of no use any more.
	os.Remove(filepath.Join(m.home, reembedFile))
	if m.ix != nil {
		m.ix.Close()
		m.ix = nil
	}
	if err := m.w.rebuildIndex(ctx); err != nil {
		m.stale = err
		return res, err
	}
	m.stale = nil
	m.st.View(func(tx *store.Tx) error { res.Chunks, _ = tx.Counts(); return nil })
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
func (m *maintainer) embedAll(ctx context.Context, progress func(done, total int)) (*reembedding, error) {
	r := &reembedding{}
	var texts []string
	var hdr reembedHeader
	err := m.st.View(func(tx *store.Tx) error {
		hdr.Gen = tx.Gen()
		return tx.ForEachChunk(func(c *store.Chunk) error {
			chunk, err := m.hydrate(tx, c)
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
	hdr.Version, hdr.Embedder, hdr.Chunks = 1, m.info, len(texts)
	path := filepath.Join(m.home, reembedFile)
	done := readReembed(path, hdr)
	cp := createReembed(path, hdr, done)
	if cp != nil {
		defer cp.Close()
	}
	if progress == nil {
		m.logf("huimem: embedding %d chunks with %s", len(texts)-len(done), describe(m.info))
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
	step := max(m.cfg.Embedding.BatchSize, 1)
	for start := 0; start < len(todo); start += step {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		idx := todo[start:min(start+step, len(todo))]
		batch := make([]string, len(idx))
		for j, i := range idx {
			batch[j] = texts[i]
		}
		vecs, err := m.embed(ctx, batch)
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
func (m *maintainer) replaceVectors(r *reembedding) error {
	err := m.st.Update(func(tx *store.Tx) error {
		if err := tx.DeleteAllVectors(); err != nil {
			return err
		}
		for i, k := range r.keys {
			if err := tx.PutVector(k.ns, k.time, k.id, r.vecs[i]); err != nil {
				return err
			}
		}
		return m.putEmbedder(tx)
	})
	if err != nil {
		return fmt.Errorf("replacing vectors: %w", err)
	}
	m.embedderChanged = false
	m.acc.writeEmbedder = false
	m.vx = m.newVectors()
	return nil
}
