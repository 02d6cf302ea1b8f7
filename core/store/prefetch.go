package store

import (
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/vector"
)

// Reading ahead. Behind a KV whose transactions are [Prefetcher]s, each
// point read is a round trip to the server; a caller about to read many
// records names them first, and they are read in one round trip. In a
// home the methods do nothing. They change no result.

// prefetcher returns the transaction's Prefetcher, or nil.
func (t *Tx) prefetcher() Prefetcher {
	p, _ := t.tx.(Prefetcher)
	return p
}

// prefetch names keys of bucket, leaving out those of the transaction's
// pending writes. In a stage's batch, whose run answers for some buckets
// before the KV does, it names nothing of those buckets.
func (t *Tx) prefetch(p Prefetcher, bucket []byte, keys [][]byte) {
	if t.run != nil && runTags[string(bucket)] != 0 {
		return
	}
	buf := t.buf[string(bucket)]
	out := keys[:0:0]
	for _, k := range keys {
		if _, ok := buf[string(k)]; !ok {
			out = append(out, k)
		}
	}
	if len(out) > 0 {
		p.Prefetch(bucket, out)
	}
}

// PrefetchChunks names the chunks of ids, about to be read with
// [Tx.Chunk] or [Tx.ChunkHead].
func (t *Tx) PrefetchChunks(ids []string) {
	p := t.prefetcher()
	if p == nil || len(ids) == 0 {
		return
	}
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = []byte(id)
	}
	t.prefetch(p, bChunks, keys)
}

// PrefetchMessages names the messages of the chunks cs (nil entries are
// skipped), about to be read with [Tx.Message].
func (t *Tx) PrefetchMessages(cs []*Chunk) {
	p := t.prefetcher()
	if p == nil {
		return
	}
	var keys [][]byte
	for _, c := range cs {
		if c == nil {
			continue
		}
		for _, ref := range c.Msgs {
			keys = append(keys, ref.Key(c.NS, c.Session))
		}
	}
	t.prefetch(p, bMsgs, keys)
}

// PrefetchMessageKeys names the messages of content keys ks, about to be
// looked up with [Tx.HasMessage].
func (t *Tx) PrefetchMessageKeys(ks []core.MessageKey) {
	p := t.prefetcher()
	if p == nil || len(ks) == 0 {
		return
	}
	keys := make([][]byte, len(ks))
	for i := range ks {
		keys[i] = ks[i][:]
	}
	t.prefetch(p, bMsgIDs, keys)
}

// PrefetchNewChunks names what [Tx.AllocID], [Tx.PutChunk] and
// [Tx.PutVector] read for chunks of keys ks: each key's id, and the chunk
// and the vector records under the id a new chunk gets when it collides
// with none.
func (t *Tx) PrefetchNewChunks(ks []core.ChunkKey) {
	p := t.prefetcher()
	if p == nil || len(ks) == 0 {
		return
	}
	keys := make([][]byte, len(ks))
	ids := make([][]byte, len(ks))
	for i := range ks {
		keys[i] = ks[i][:]
		ids[i] = []byte(ks[i].ID(core.MinIDLen))
	}
	t.prefetch(p, bChunkKeys, keys)
	for _, b := range [][]byte{bChunks, bVecKeys, bVecs} {
		t.prefetch(p, b, ids)
	}
}

// PrefetchRawVectors names the vectors of the chunks of ids, about to be
// read with [Tx.RawVector]. It reads the chunks' vector keys (one round
// trip) to name their vectors.
func (t *Tx) PrefetchRawVectors(ids []string) {
	p := t.prefetcher()
	if p == nil || len(ids) == 0 {
		return
	}
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = []byte(id)
	}
	t.prefetch(p, bVecKeys, keys)
	var vks [][]byte
	for _, id := range ids {
		if pk := t.get(bVecKeys, []byte(id)); len(pk) >= 9 {
			vks = append(vks, append(append([]byte(nil), pk...), id...))
		}
	}
	t.prefetch(p, bVecTime, vks)
}

// PrefetchVectorsAt names the vectors of namespace ns at keys, about to be
// read with [Tx.VectorAt].
func (t *Tx) PrefetchVectorsAt(ns string, keys []vector.Key) {
	p := t.prefetcher()
	if p == nil || len(keys) == 0 {
		return
	}
	vks := make([][]byte, len(keys))
	for i, k := range keys {
		vks[i] = VecKey(ns, time.Unix(0, k.Time), k.ID)
	}
	t.prefetch(p, bVecTime, vks)
}
