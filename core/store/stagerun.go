package store

import (
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/huimemory/huimemory/core"
)

// A stage's run. Five buckets are keyed by hashes: msgids,
// msgsrcs, chunks, chunkkeys and veckeys. Once such a bucket is much
// larger than a batch, each of a batch's inserts lands on a leaf of its
// own, wherever it is in the file, so every batch of a bulk ingest read
// and rewrote thousands of leaves all over a growing tree, and the cost of
// a batch grew with the store. A stage's batches therefore write those
// buckets' records into a run instead: a batch's records, keyed by
// bucket, then key, written in key order. In a home a batch is a segment
// of the stage's run file (runfile.go); behind a KV, a bucket of the
// store (below). Reads in the stage's
// transactions look in the run, newest batch first, before the bucket
// itself; Bloom filters in memory, one per batch and one per group of
// batches, tell which batches may hold a key, so that a key the run does
// not hold costs no read. A run file keeps them for its newest group
// alone, and folds each full group into a key index on disk, behind a
// filter of a fixed size, which a lookup reads one block of
// (runkeys.go): the filters of every batch were the part of an ingest's
// memory that grew with the file. Before the stage is published,
// [Tx.MergeStageRun] merges the run's batches into the buckets in key
// order, in bounded transactions: each leaf is then written once per
// merge transaction that reaches it, not once per batch. Until the
// publication nothing a reader finds things through leads to the merged
// records.
//
// Run buckets (behind a KV, and in a version-6 store left by a crash),
// one per batch that wrote any of those records:
//
//	stagerun/<id>/<batch, 16 hex digits>   tag (1 byte) key → 1 value, or 0 (deleted)
//
// A bucket per batch, because removing a bucket reads every page of it:
// the run is removed a few batches at a time, letting the store's map
// go in between.

// runTags numbers the buckets that a stage's batches write into its run;
// a record's key in the run starts with its bucket's tag.
var runTags = map[string]byte{
	string(bChunkKeys): 1, string(bChunks): 2, string(bMsgIDs): 3, string(bMsgSrcs): 4, string(bVecKeys): 5,
}

// runBuckets names the bucket of each tag.
var runBuckets = [...][]byte{1: bChunkKeys, 2: bChunks, 3: bMsgIDs, 4: bMsgSrcs, 5: bVecKeys}

// runGroupSpan is how many batches share a group filter: a lookup tests
// every group's filter, then the batch filters of the groups that may
// hold the key.
const runGroupSpan = 32

// runBitsPerKey and runHashes size the filters: about 0.8% false
// positives, 1.25 bytes of memory per record (twice: batch and group),
// of a run in buckets, or of a run file's newest group.
const (
	runBitsPerKey = 10
	runHashes     = 7
)

// stageRunPrefix is the name prefix of stage id's run buckets.
func stageRunPrefix(id string) []byte { return []byte("stagerun/" + id + "/") }

// runBatchName is the name of batch seq's run bucket.
func runBatchName(id string, seq uint64) []byte {
	return fmt.Appendf(stageRunPrefix(id), "%016x", seq)
}

// StageRun is the memory of a stage's run: which batches it holds and
// what each may hold. It lives for one ingest; a stage whose run is lost
// with the process is discarded by the next ingest, never resumed. It is
// not safe for concurrent use; the stage's transactions are serial.
type StageRun struct {
	id      string
	file    *runFile // the run's file (runfile.go); nil: its batches are buckets
	batches []runBatch
	groups  []*bloom.BloomFilter // groups[i] covers batches[i*runGroupSpan:]; nil: folded
	// A run file's index of the keys of its folded groups (runkeys.go).
	keys *runKeys
	// records counts the records the batches wrote.
	records int
	// Where MergeStageRun stopped: the tag being merged and the last key
	// written (nil: the start of the tag); merged counts the keys written.
	mergeTag   byte
	mergeAfter []byte
	merged     int
	// A run file's merge reads each segment once, across transactions:
	// its readers, ordered by their next record (nil until it starts).
	readers runHeap[*segReader]
	// err is the first error reading the run file: lookups cannot return
	// one, so the batch's write (or the merge) that follows fails with it.
	err error
}

type runBatch struct {
	seq    uint64
	filter *bloom.BloomFilter
	bytes  int         // of keys and values
	seg    *runSegment // its records in the run's file; nil: in its bucket
}

// NewStageRun returns the run of stage info, kept in its buckets of the
// store. Pass it to [Tx.UseStageRun] in every transaction of the stage's
// batches, reads included. [Store.NewStageRun] gives a home's stage a run
// in a file of its own.
func NewStageRun(info *StageInfo) *StageRun { return &StageRun{id: info.ID, mergeTag: 1} }

// NewStageRun returns the run of stage info: in a home, in a file beside
// the store (runfile.go), which [StageRun.Remove] removes once the run is
// merged and [Tx.DiscardStage] once the stage is discarded; behind a KV,
// in the store's buckets, where another machine's writer can discard it.
func (s *Store) NewStageRun(info *StageInfo) (*StageRun, error) {
	r := NewStageRun(info)
	if s.kv != nil {
		return r, nil
	}
	f, err := createRunFile(runFilePrefix(s.path) + info.ID)
	if err != nil {
		return nil, err
	}
	r.file = f
	r.keys = newRunKeys(f.path + runKeysSuffix)
	return r, nil
}

// Close closes the run's file, if it has one; the file stays, for
// [Tx.DiscardStage]. A closed run cannot be used.
func (r *StageRun) Close() error {
	if r.file == nil || r.file.f == nil {
		return nil
	}
	err := errors.Join(r.file.close(), r.keys.remove()) // the index serves no one else
	r.file.f = nil
	return err
}

// Remove closes and removes the run's file once [Tx.MergeStageRun] has
// merged the whole run and its transaction has committed: the buckets
// hold every record, and the stage's own records lead to them.
func (r *StageRun) Remove() error {
	if r.file == nil {
		return nil
	}
	r.Close()
	if err := os.Remove(r.file.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the stage's run: %w", err)
	}
	return nil
}

// UseStageRun makes the transaction write the hashed buckets' records
// into run r instead of the buckets, and read them from it first, and
// fill the leaves it writes (a batch writes its messages in runs of
// keys: see [Tx.fillLeaves]). A transaction that writes with it must be
// one of the stage's batches.
func (t *Tx) UseStageRun(r *StageRun) {
	t.run = r
	t.fillLeaves()
}

// Records returns how many records the run holds (for tests and tracing).
func (r *StageRun) Records() int { return r.records }

// StagedInRun reports whether one of the batches of the stage run the
// transaction uses ([Tx.UseStageRun]) stored message k: true for a
// message of the stage, false for one stored before it or not at all.
func (t *Tx) StagedInRun(k core.MessageKey) bool {
	if t.run == nil {
		return false
	}
	v, found := t.runGet(runTags[string(bMsgIDs)], k[:])
	return found && v != nil
}

// runKey is a run bucket's key of key in bucket tag.
func runKey(tag byte, key []byte) []byte {
	b := make([]byte, 0, 1+len(key))
	return append(append(b, tag), key...)
}

// runGet looks key of bucket tag up in the run, newest batch first. found
// is false when no batch holds it; a found nil value is a deletion.
func (t *Tx) runGet(tag byte, key []byte) (v []byte, found bool) {
	r := t.run
	if len(r.batches) == 0 {
		return nil, false
	}
	if r.readers != nil {
		if r.err == nil {
			r.err = fmt.Errorf("stage %s: a lookup in a run being merged", r.id)
		}
		return nil, false
	}
	probe := runKey(tag, key)
	locs := bloom.Locations(probe, runHashes)
	for g := len(r.groups) - 1; g >= 0; g-- {
		if r.groups[g] == nil {
			break // folded into the key index, with every group before it
		}
		if !r.groups[g].TestLocations(locs) {
			continue
		}
		last := min(len(r.batches), (g+1)*runGroupSpan) - 1
		for i := last; i >= g*runGroupSpan; i-- {
			if !r.batches[i].filter.TestLocations(locs) {
				continue
			}
			if seg := r.batches[i].seg; seg != nil {
				v, found, err := r.file.get(seg, probe)
				if err != nil && r.err == nil {
					r.err = err
				}
				if found {
					return v, true
				}
				continue
			}
			if rb := t.tx.Bucket(runBatchName(r.id, r.batches[i].seq)); rb != nil {
				if raw := rb.Get(probe); raw != nil {
					return runValue(raw), true
				}
			}
		}
	}
	if r.keys != nil && r.keys.n > 0 {
		v, found, err := r.keys.get(r.file, r.keys.hash(probe), probe)
		if err != nil && r.err == nil {
			r.err = err
		}
		return v, found
	}
	return nil, false
}

// runValue decodes a run record's value: nil for a deletion.
func runValue(raw []byte) []byte {
	if len(raw) == 0 || raw[0] == 0 {
		return nil
	}
	return raw[1:]
}

// flushRun writes the pending writes of the run's buckets into the run,
// as the next batch, and takes them out of the write buffer.
func (t *Tx) flushRun() error {
	r := t.run
	if r.err != nil {
		return r.err
	}
	n := 0
	for name, m := range t.buf {
		if runTags[name] != 0 {
			n += len(m)
		}
	}
	if n == 0 {
		return nil
	}
	seq := uint64(1)
	if len(r.batches) > 0 {
		seq = r.batches[len(r.batches)-1].seq + 1
	}
	var put func(k, v []byte) error
	var enc *segEncoder
	var entries []runKeyEntry // of a run file's batch, for its key index
	if r.file != nil {
		entries = make([]runKeyEntry, 0, n)
		enc = newSegEncoder(n * 64)
		put = func(k, v []byte) error {
			if v[0] == 0 {
				v = nil
			} else {
				v = v[1:]
			}
			off := enc.add(k, v)
			entries = append(entries, runKeyEntry{r.keys.hash(k), uint64(off)})
			return nil
		}
	} else {
		rb, err := t.tx.CreateBucketIfNotExists(runBatchName(r.id, seq))
		if err != nil {
			return fmt.Errorf("creating the run of stage %s: %w", r.id, err)
		}
		if bb, ok := rb.(boltBucket); ok {
			bb.FillPercent = 1 // written in key order, never inserted into
		}
		put = rb.Put
	}
	size := 0
	filter := bloom.New(uint(max(n, 64)*runBitsPerKey), runHashes)
	if len(r.batches)%runGroupSpan == 0 {
		// A new group, sized for batches like this one.
		r.groups = append(r.groups, bloom.New(uint(max(n, 64)*runGroupSpan*runBitsPerKey), runHashes))
	}
	group := r.groups[len(r.groups)-1]
	for tag := byte(1); int(tag) < len(runBuckets); tag++ {
		name := string(runBuckets[tag])
		m := t.buf[name]
		if len(m) == 0 {
			continue
		}
		for _, k := range sortedKeys(m) {
			v := m[k]
			val := []byte{0}
			if v != nil {
				val = append([]byte{1}, v...)
			}
			probe := runKey(tag, []byte(k))
			if err := put(probe, val); err != nil {
				return fmt.Errorf("writing the run of stage %s: %w", r.id, err)
			}
			filter.Add(probe)
			group.Add(probe)
			size += len(probe) + len(val)
		}
		delete(t.buf, name)
	}
	b := runBatch{seq: seq, filter: filter, bytes: size}
	if enc != nil {
		start := uint64(r.file.size)
		var err error
		if b.seg, err = r.file.append(enc); err != nil {
			return err
		}
		for i := range entries {
			entries[i].off += start
		}
		if err := r.keys.add(entries); err != nil {
			r.err = fmt.Errorf("stage %s: %w", r.id, err)
			return r.err
		}
	}
	r.batches = append(r.batches, b)
	r.records += n
	if r.keys != nil && len(r.batches)%runGroupSpan == 0 {
		return r.foldGroup()
	}
	return nil
}

// foldGroup folds the newest group of a run file's batches, now full,
// into the run's key index, and lets the group's filters and its
// segments' block indexes go: lookups of its records go to the index.
func (r *StageRun) foldGroup() error {
	if err := r.keys.fold(); err != nil {
		r.err = fmt.Errorf("stage %s: %w", r.id, err)
		return r.err
	}
	g := len(r.groups) - 1
	for i := g * runGroupSpan; i < len(r.batches); i++ {
		r.batches[i].filter, r.batches[i].seg.blocks = nil, nil
	}
	r.groups[g] = nil
	return nil
}

// mergeBytes is how many bytes of keys and values one MergeStageRun
// transaction writes by default. A transaction holds what it writes on
// the heap until it commits, twice (bbolt's nodes, then its new pages):
// at 64k keys a transaction, the merge of a 396,000-message stage peaked
// at 236 MiB of anonymous memory. bbolt's nodes hold an entry per record,
// and most records are small: at 4 MiB a transaction, a heap profile
// found 17 MiB of nodes in one, and the merge's last transactions took
// the anonymous memory of a 300 MB ingest to 132 MiB.
const mergeBytes = 1 << 20

// MergeStageRun merges about limit bytes of run r's records (keys and
// values) into their buckets, in key order, the newest batch's record of
// each key winning; limit ≤ 0 means [mergeBytes]. It returns true when
// the whole run is merged and its buckets removed; call it again, in a new
// transaction, until then. The transaction must not use the run
// ([Tx.UseStageRun]); a merge transaction that fails leaves r unusable,
// and the stage must be discarded.
func (t *Tx) MergeStageRun(r *StageRun, limit int) (bool, error) {
	if limit <= 0 {
		limit = mergeBytes
	}
	t.fillLeaves() // in key order
	if r.file != nil {
		return t.mergeRunFile(r, limit)
	}
	written := 0
	for ; int(r.mergeTag) < len(runBuckets); r.mergeTag, r.mergeAfter = r.mergeTag+1, nil {
		tag := r.mergeTag
		dst, err := t.tx.CreateBucketIfNotExists(runBuckets[tag])
		if err != nil {
			return false, fmt.Errorf("creating bucket %s: %w", runBuckets[tag], err)
		}
		h := runHeap[*runCursor]{}
		for _, b := range r.batches {
			rb := t.tx.Bucket(runBatchName(r.id, b.seq))
			if rb == nil {
				return false, fmt.Errorf("merging the run of stage %s: batch %d is missing", r.id, b.seq)
			}
			c := &runCursor{c: rb.Cursor(), prefix: []byte{tag}, seq: b.seq}
			if c.seek(r.mergeAfter) {
				h = append(h, c)
			}
		}
		heap.Init(&h)
		for h.Len() > 0 {
			if written >= limit {
				return false, nil
			}
			top := h[0]
			key := bytes.Clone(top.key)
			val := top.val // the newest batch's: the heap puts it first
			// Pass by the older batches' records of the same key.
			for h.Len() > 0 && bytes.Equal(h[0].key, key) {
				if h[0].next() {
					heap.Fix(&h, 0)
				} else {
					heap.Pop(&h)
				}
			}
			if v := runValue(val); v != nil {
				err = dst.Put(key, bytes.Clone(v))
			} else {
				err = dst.Delete(key)
			}
			if err != nil {
				return false, fmt.Errorf("merging the run of stage %s into %s: %w", r.id, runBuckets[tag], err)
			}
			r.mergeAfter = key
			r.merged++
			written += len(key) + len(val)
		}
	}
	// Merged: remove the batches' buckets, about limit bytes of them at
	// a time (removing a bucket reads each of its pages).
	for len(r.batches) > 0 {
		if written >= limit {
			return false, nil
		}
		b := r.batches[0]
		if err := t.tx.DeleteBucket(runBatchName(r.id, b.seq)); err != nil {
			return false, fmt.Errorf("removing the run of stage %s: %w", r.id, err)
		}
		written += b.bytes
		r.batches = r.batches[1:]
	}
	r.groups = nil
	return true, nil
}

// runCursor walks one batch's records of one bucket in a run.
type runCursor struct {
	c        Cursor
	prefix   []byte
	seq      uint64
	key, val []byte // the current record's key (without the prefix)
}

// seek moves to the first record after after (nil: the first record).
func (c *runCursor) seek(after []byte) bool {
	k, v := c.c.Seek(append(bytes.Clone(c.prefix), after...))
	if !c.set(k, v) {
		return false
	}
	if after != nil && bytes.Equal(c.key, after) {
		return c.next()
	}
	return true
}

func (c *runCursor) next() bool { return c.set(c.c.Next()) }

func (c *runCursor) set(k, v []byte) bool {
	if k == nil || !bytes.HasPrefix(k, c.prefix) {
		c.key, c.val = nil, nil
		return false
	}
	// The value is copied: a deletion's single byte and a value alike
	// must outlive the cursor's move.
	c.key, c.val = k[len(c.prefix):], bytes.Clone(v)
	return true
}

func (c *runCursor) current() ([]byte, uint64) { return c.key, c.seq }

// mergeRunFile is MergeStageRun for a run in a file: one pass over all
// of its segments and buckets together (a record's key starts with its
// bucket's tag), whose readers carry on from one transaction to the next.
func (t *Tx) mergeRunFile(r *StageRun, limit int) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	if r.readers == nil {
		// No lookup follows: the filters, the blocks' keys and the key
		// index go.
		r.groups = nil
		if err := r.keys.remove(); err != nil {
			return false, err
		}
		r.readers = runHeap[*segReader]{}
		for i, b := range r.batches {
			r.batches[i].filter, b.seg.blocks = nil, nil
			sr := r.file.reader(b.seg, b.seq)
			if sr.next() {
				r.readers = append(r.readers, sr)
			} else if sr.err != nil {
				return false, r.readErr(sr)
			}
		}
		heap.Init(&r.readers)
	}
	h := &r.readers
	var dst [len(runBuckets)]Bucket
	// The keys and values put stay in place until the commit: copies in
	// blocks, not one allocation each.
	var copies slab
	written := 0
	for h.Len() > 0 {
		if written >= limit {
			return false, nil
		}
		top := (*h)[0]
		key := copies.clone(top.key)
		del, val := top.del, []byte{} // the newest batch's: the heap puts it first
		if len(top.val) > 0 {
			val = copies.clone(top.val)
		}
		// Pass by the older batches' records of the same key.
		for h.Len() > 0 && bytes.Equal((*h)[0].key, key) {
			switch sr := (*h)[0]; {
			case sr.next():
				heap.Fix(h, 0)
			case sr.err != nil:
				return false, r.readErr(sr)
			default:
				heap.Pop(h)
			}
		}
		tag := key[0]
		if int(tag) == 0 || int(tag) >= len(runBuckets) {
			return false, fmt.Errorf("merging the run of stage %s: a record of unknown bucket %d", r.id, tag)
		}
		if dst[tag] == nil {
			b, err := t.tx.CreateBucketIfNotExists(runBuckets[tag])
			if err != nil {
				return false, fmt.Errorf("creating bucket %s: %w", runBuckets[tag], err)
			}
			dst[tag] = b
		}
		var err error
		if !del {
			err = dst[tag].Put(key[1:], val)
		} else {
			err = dst[tag].Delete(key[1:])
		}
		if err != nil {
			return false, fmt.Errorf("merging the run of stage %s into %s: %w", r.id, runBuckets[tag], err)
		}
		r.merged++
		written += len(key) + len(val)
	}
	r.batches, r.groups = nil, nil
	return true, nil
}

// readErr records and returns a segment reader's error.
func (r *StageRun) readErr(sr *segReader) error {
	r.err = fmt.Errorf("merging the run of stage %s: batch %d: %w", r.id, sr.seq, sr.err)
	return r.err
}

// runHeap orders a run's batches by their current key, then newest batch
// first.
type runHeap[T interface{ current() ([]byte, uint64) }] []T

func (h runHeap[T]) Len() int { return len(h) }
func (h runHeap[T]) Less(i, j int) bool {
	ki, si := h[i].current()
	kj, sj := h[j].current()
	if c := bytes.Compare(ki, kj); c != 0 {
		return c < 0
	}
	return si > sj
}
func (h runHeap[T]) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap[T]) Push(x any)   { *h = append(*h, x.(T)) }
func (h *runHeap[T]) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// runNames returns the names of stage id's run buckets.
func (t *Tx) runNames(id string) ([][]byte, error) {
	prefix := stageRunPrefix(id)
	var names [][]byte
	err := t.tx.ForEachBucket(func(name []byte) error {
		if bytes.HasPrefix(name, prefix) {
			names = append(names, bytes.Clone(name))
		}
		return nil
	})
	return names, err
}

// discardRun removes up to limit records of stage id's run, and each
// record's key from its bucket, which the run may have been partly merged
// into. It returns how many records it removed; 0 with a nil error means
// the run is gone.
func (t *Tx) discardRun(id string, limit int) (int, error) {
	if t.path != "" {
		if n, err := t.discardRunFile(id, limit); err != nil || n > 0 {
			return n, err
		}
	}
	names, err := t.runNames(id)
	if err != nil {
		return 0, fmt.Errorf("listing the run of stage %s: %w", id, err)
	}
	n := 0
	for _, name := range names {
		if n >= limit {
			break
		}
		rb := t.tx.Bucket(name)
		var keys [][]byte
		c := rb.Cursor()
		k, v := c.First()
		for ; k != nil && n < limit; k, v = c.Next() {
			keys = append(keys, bytes.Clone(k))
			if err := t.discardRunRecord(k, runValue(v)); err != nil {
				return 0, err
			}
			n++
		}
		for _, k := range keys {
			if len(k) >= 1 && int(k[0]) > 0 && int(k[0]) < len(runBuckets) {
				if err := t.del(runBuckets[k[0]], k[1:]); err != nil {
					return 0, err
				}
			}
		}
		if k == nil { // every record of the batch
			if err := t.tx.DeleteBucket(name); err != nil {
				return 0, fmt.Errorf("removing the run of stage %s: %w", id, err)
			}
			n++ // the removal counts, so that an empty bucket is progress
			continue
		}
		for _, k := range keys {
			if err := rb.Delete(k); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// discardRunRecord removes what a run's record leads to outside the
// buckets of the run, which nothing else finds once the record is gone:
// a vector's entries, found by its veckeys record, and a claim's number
// in srcmsgs, found by its msgsrcs record. val is the record's value,
// nil for a deletion.
func (t *Tx) discardRunRecord(k, val []byte) error {
	if len(k) <= 1 || val == nil {
		return nil
	}
	key := k[1:]
	switch k[0] {
	case runTags[string(bVecKeys)]:
		return t.delVecEntry(append(bytes.Clone(val), key...))
	case runTags[string(bMsgSrcs)]:
		var mk core.MessageKey
		if len(key) > len(mk) && len(val) == 8 {
			return t.del(bSrcMsgs, srcMsgKey(string(key[len(mk):]), val))
		}
	}
	return nil
}

// runFileDone is the key, in a discarded stage's bucket, of how far the
// discard has walked the stage's run file.
var runFileDone = []byte("r\x00")

// discardRunFile is discardRun for the run file of stage id, a home's
// (runfile.go): it walks whole segments of at least limit records, from
// where the last call stopped, and removes the file once it has walked
// them all. Deleting a key twice does no harm, so a walk cut short by a
// crash is walked again from where its last transaction stopped.
func (t *Tx) discardRunFile(id string, limit int) (int, error) {
	b := t.tx.Bucket(stageBucketName(id))
	if b == nil {
		return 0, nil
	}
	path := runFilePrefix(t.path) + id
	from := int64(readU64(b.Get(runFileDone)))
	n := 0
	next, done, err := walkRunFile(path, from, limit, func(k, v []byte) error {
		n++
		if err := t.discardRunRecord(k, v); err != nil {
			return err
		}
		if len(k) >= 1 && int(k[0]) > 0 && int(k[0]) < len(runBuckets) {
			return t.del(runBuckets[k[0]], k[1:])
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("discarding the run of stage %s: %w", id, err)
	}
	if n > 0 || !done {
		return max(n, 1), b.Put(runFileDone, u64(uint64(next)))
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("removing the run of stage %s: %w", id, err)
	}
	return 0, nil
}

// RemoveRunFiles removes the run files, and the runs' key indexes
// (runkeys.go), of every stage that is not open: left by a crash after a
// run's merge or a stage's discard, before the file's removal, or during
// an ingest. Call it with no ingest under way.
func (s *Store) RemoveRunFiles() error {
	if s.kv != nil {
		return nil
	}
	names, err := runFileStages(s.path)
	if err != nil || len(names) == 0 {
		return err
	}
	var open map[string]bool
	if err := s.View(func(tx *Tx) error { open = tx.openStages(); return nil }); err != nil {
		return err
	}
	for _, name := range names {
		id, _, _ := strings.Cut(name, ".") // a run's key index and its files: <id>.keys…
		if open[id] {
			continue
		}
		if err := os.Remove(runFilePrefix(s.path) + name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the run of stage %s: %w", id, err)
		}
	}
	return nil
}
