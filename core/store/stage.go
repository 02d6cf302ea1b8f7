package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/huimemory/huimemory/core"
)

// Staged ingests: a large file is written in bounded batches,
// each its own transaction, but readers must see all of it or none of it.
// So a stage writes everything that only the stage can reach (the
// messages of sessions that are new, their chunk records and their
// vectors) and holds back everything a reader finds things through: the
// session records and chunk lists, the index outbox, the dirty-transcript
// queue and the counts. The vectors are the exception: they are written
// where a scan walks (vectors.go), and [Tx.ScanVectors] passes
// by the chunks of the open stages. So are the sessions once the batches
// are done: [Tx.WriteStagedSessions] writes their records, chunk lists
// and dirty marks in bounded transactions, each record marked with the
// stage ([Session.Stage]), and [Tx.Session], [Tx.ForEachSession],
// [Tx.SessionChunkIDs] and [Tx.DirtySessions] pass by the sessions of
// open stages. [Tx.PublishStage]
// then closes the stage in one small transaction; until then nothing a
// recall, get, export or stats reads leads to the staged records. A
// closed stage's bucket, and the marks on its sessions, are swept away
// afterwards by [Tx.SweepStage], in steps. A stage that was never
// published (a bad line, a crash) is removed by [Tx.DiscardStage], in
// steps.
//
// Buckets, created on first use:
//
//	stages          source name → JSON StageInfo (the open stages)
//	stage/<id>      "s" 0 namespace 0 session → JSON StagedSession
//	                "t" 0 vector key → nothing (the stage's chunks)
//
// The stage's chunk set is keyed by the key of the chunk's vector in
// vectime (namespace 0 time key chunk id, [VecKey]), whether or not the
// chunk has a vector (schema version 8): the scans
// that consult it hold that key; the batches of a chronological export
// append at the bucket's right edge instead of landing on a leaf each,
// as puts keyed by the random chunk id did; and the publication walks
// the stage's vectors in their own order. A stage begun by an earlier
// version keyed its chunks "c" 0 chunk id; such a stage is never written
// again nor published, only discarded, and readers still pass its chunks
// by.
var bStages = []byte("stages")

func stageBucketName(id string) []byte { return []byte("stage/" + id) }

// StageInfo describes an unpublished stage.
type StageInfo struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Digest string `json:"digest"`
	// Messages is how many messages the stage stored.
	Messages int `json:"messages"`
	// Started is when the stage began, in RFC 3339.
	Started string `json:"started"`
	// Indexed is set when the engine indexes the stage's chunks as they
	// are written: the index may hold them before the stage
	// is published, so its publication queues none of them for the
	// index, and whoever discards it removes them from the index first.
	// Set before the first chunk is written.
	Indexed bool `json:"indexed,omitempty"`
	// Sessions is set when [Tx.WriteStagedSessions] has written every
	// session of the stage: its publication only closes it.
	Sessions bool `json:"sessions,omitempty"`
}

// StagedSession is a new session as a stage has written it so far.
type StagedSession struct {
	Session Session  `json:"session"`
	IDs     []string `json:"ids"`
	// Pending are the chunks with extractions to retry (see pending.go).
	Pending []string `json:"pending,omitempty"`
}

// BeginStage starts a stage for source src whose content has the given
// digest and returns it. The caller discards any earlier stage of src
// first.
func (t *Tx) BeginStage(src, digest string) (*StageInfo, error) {
	b, err := t.tx.CreateBucketIfNotExists(bStages)
	if err != nil {
		return nil, fmt.Errorf("creating bucket %s: %w", bStages, err)
	}
	seq, err := b.NextSequence()
	if err != nil {
		return nil, err
	}
	info := &StageInfo{ID: strconv.FormatUint(seq, 10), Source: src, Digest: digest, Started: time.Now().UTC().Format(time.RFC3339)}
	if _, err := t.tx.CreateBucket(stageBucketName(info.ID)); err != nil {
		return nil, fmt.Errorf("creating stage %s: %w", info.ID, err)
	}
	return info, t.putStage(info)
}

func (t *Tx) putStage(info *StageInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	t.open = nil
	return t.b(bStages).Put([]byte(info.Source), data)
}

// openStages returns the ids of the open stages, read once per
// transaction.
func (t *Tx) openStages() map[string]bool {
	if t.open != nil {
		return t.open
	}
	t.open = map[string]bool{}
	if b := t.b(bStages); b != nil {
		b.ForEach(func(_, v []byte) error {
			var s StageInfo
			if json.Unmarshal(v, &s) == nil {
				t.open[s.ID] = true
			}
			return nil
		})
	}
	return t.open
}

// hidden reports whether a session record belongs to an open stage.
func (t *Tx) hidden(s *Session) bool { return s.Stage != "" && t.openStages()[s.Stage] }

// Stages returns the unpublished stages.
func (t *Tx) Stages() ([]*StageInfo, error) {
	b := t.b(bStages)
	if b == nil {
		return nil, nil
	}
	var out []*StageInfo
	err := b.ForEach(func(k, v []byte) error {
		var s StageInfo
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("decoding stage of %q: %w", k, err)
		}
		out = append(out, &s)
		return nil
	})
	return out, err
}

func (t *Tx) stageBucket(id string) (Bucket, error) {
	b := t.tx.Bucket(stageBucketName(id))
	if b == nil {
		return nil, fmt.Errorf("stage %s: %w", id, core.ErrNotFound)
	}
	return b, nil
}

func stagedSessionKey(ns, session string) []byte {
	return append([]byte("s\x00"), sessionKey(ns, session)...)
}

// stagedChunkKey is the key of chunk id of namespace ns at time tm in
// its stage's bucket.
func stagedChunkKey(ns string, tm time.Time, id string) []byte {
	return appendStagedChunkKey(nil, VecKey(ns, tm, id))
}

// appendStagedChunkKey appends the key of the chunk whose vector key is
// vk to dst.
func appendStagedChunkKey(dst, vk []byte) []byte {
	return append(append(dst, stagedChunkPrefix...), vk...)
}

var (
	stagedChunkPrefix = []byte("t\x00")
	// legacyChunkPrefix keys a chunk by its id alone, in the stages of
	// schema versions before 8.
	legacyChunkPrefix = []byte("c\x00")
)

// StagedChunkID returns the chunk id of a key of a stage's chunk set,
// of either form, or nil for a key that is not one.
func StagedChunkID(k []byte) []byte {
	if vk, ok := bytes.CutPrefix(k, stagedChunkPrefix); ok {
		if i := bytes.IndexByte(vk, 0); i >= 0 && len(vk) > i+9 {
			return vk[i+9:]
		}
		return nil
	}
	if id, ok := bytes.CutPrefix(k, legacyChunkPrefix); ok {
		return id
	}
	return nil
}

// StagedSession returns what stage id wrote of a session, or nil.
func (t *Tx) StagedSession(id, ns, session string) (*StagedSession, error) {
	b, err := t.stageBucket(id)
	if err != nil {
		return nil, err
	}
	v := b.Get(stagedSessionKey(ns, session))
	if v == nil {
		return nil, nil
	}
	var s StagedSession
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("decoding staged session %q: %w", session, err)
	}
	return &s, nil
}

// PutStagedSession records a staged session's record and chunk list.
func (t *Tx) PutStagedSession(id string, s *StagedSession) error {
	b, err := t.stageBucket(id)
	if err != nil {
		return err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return b.Put(stagedSessionKey(s.Session.NS, s.Session.Session), data)
}

// AddStagedMessage stores a new message of a staged session, giving it
// the next arrival sequence; the message count is added at publish.
func (t *Tx) AddStagedMessage(info *StageInfo, m *core.Message, k core.MessageKey, lines int) (*Message, error) {
	seq := t.metaU64(metaSeq) + 1
	if err := t.setMetaU64(metaSeq, seq); err != nil {
		return nil, err
	}
	rec := NewMessage(m, seq, lines)
	key := MsgKey(m.Namespace, m.Session, m.Time, seq)
	if err := t.putJSON(bMsgs, key, rec); err != nil {
		return nil, err
	}
	info.Messages++
	return rec, t.put(bMsgIDs, k[:], key)
}

// SaveStage records the stage's progress (its message count).
func (t *Tx) SaveStage(info *StageInfo) error { return t.putStage(info) }

// PutStagedChunk stores a chunk of a staged session and its vector. It
// queues nothing for the index and counts nothing. The vector goes where
// a published one goes (vectors.go), and scans pass it by until the stage
// is published; a stage begun in a version-1 store kept its vectors by
// id only (layout 1), and its publish writes their time entries.
func (t *Tx) PutStagedChunk(id string, c *Chunk, vec []float32, tm time.Time) error {
	b, err := t.stageBucket(id)
	if err != nil {
		return err
	}
	if err := t.putJSON(bChunks, []byte(c.ID), c); err != nil {
		return err
	}
	if err := t.put(bChunkKeys, c.Key[:], []byte(c.ID)); err != nil {
		return err
	}
	if err := b.Put(stagedChunkKey(c.NS, tm, c.ID), nil); err != nil {
		return err
	}
	if vec != nil {
		if err := t.putVector(c.NS, tm, c.ID, EncodeVector(vec)); err != nil {
			return fmt.Errorf("storing the vector of staged chunk %s: %w", c.ID, err)
		}
	}
	return nil
}

// DeleteStagedChunk removes a chunk that a later batch of the same stage
// cut differently.
func (t *Tx) DeleteStagedChunk(id string, c *Chunk) error {
	b, err := t.stageBucket(id)
	if err != nil {
		return err
	}
	for _, d := range []struct{ bucket, key []byte }{{bChunks, []byte(c.ID)}, {bChunkKeys, c.Key[:]}} {
		if err := t.del(d.bucket, d.key); err != nil {
			return err
		}
	}
	// The chunk was put at its vector's time, which is its record's (or
	// by its id alone, by a version before 8).
	keys := [][]byte{stagedChunkKey(c.NS, c.StartTime(), c.ID), append(bytes.Clone(legacyChunkPrefix), c.ID...)}
	if p := t.get(bVecKeys, []byte(c.ID)); len(p) >= 9 {
		keys = append(keys, appendStagedChunkKey(nil, append(bytes.Clone(p), c.ID...)))
	}
	if err := t.dropVector(c.NS, c.ID, nil); err != nil {
		return fmt.Errorf("deleting the vector of staged chunk %s: %w", c.ID, err)
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// StagedChunk reports whether chunk c belongs to an unpublished stage,
// which readers and index rebuilds must pass by. It costs nothing when no
// stage is open.
func (t *Tx) StagedChunk(c *Chunk) bool {
	staged := t.stagedFilter()
	if staged == nil {
		return false
	}
	return staged(VecKey(c.NS, c.StartTime(), c.ID), []byte(c.ID))
}

// stagedFilter returns a function that reports whether the chunk with
// vector key vk (its key in vectime, whether or not it has a vector) and
// the given id belongs to an unpublished stage, for scans to pass it by,
// or nil when no stage is open. It costs a lookup per open stage, two
// for a stage of a version before 8 (see the bucket's layout above).
func (t *Tx) stagedFilter() func(vk, id []byte) bool {
	b := t.b(bStages)
	if b == nil {
		return nil
	}
	type open struct {
		b      Bucket
		legacy bool // it holds chunks keyed by id alone
	}
	var stages []open
	b.ForEach(func(_, v []byte) error {
		var s StageInfo
		if json.Unmarshal(v, &s) == nil {
			if sb := t.tx.Bucket(stageBucketName(s.ID)); sb != nil {
				k, _ := sb.Cursor().Seek(legacyChunkPrefix)
				stages = append(stages, open{sb, bytes.HasPrefix(k, legacyChunkPrefix)})
			}
		}
		return nil
	})
	if len(stages) == 0 {
		return nil
	}
	var key, old []byte
	return func(vk, id []byte) bool {
		key = appendStagedChunkKey(key[:0], vk)
		for _, s := range stages {
			if s.b.Get(key) != nil {
				return true
			}
			if s.legacy {
				old = append(append(old[:0], legacyChunkPrefix...), id...)
				if s.b.Get(old) != nil {
					return true
				}
			}
		}
		return false
	}
}

// PublishStage makes a stage visible, in the caller's transaction: it
// queues the stage's chunks for the index (none for a stage that is
// [StageInfo.Indexed]) and their pending extractions, adds the counts,
// and closes the stage, which makes its vectors visible to scans and its
// sessions to readers (a stage begun in a version-1 store gets its
// vectors' time entries written here). A stage whose sessions
// [Tx.WriteStagedSessions] did not write gets their records, chunk lists
// and dirty marks here, and its bucket removed. It calls touched with the
// namespace and time of every chunk whose vector became visible, and
// returns how many chunks it published. The transaction writes a few bytes
// per chunk, whatever the size of the messages, or about a hundred without
// the sessions written before.
func (t *Tx) PublishStage(info *StageInfo, touched func(ns string, tm time.Time)) (int, error) {
	n, err := t.publishStage(info, touched)
	if err != nil {
		return 0, fmt.Errorf("publishing stage %s: %w", info.ID, err)
	}
	return n, nil
}

// publishGroup is how many chunks a publication makes visible between
// two releases of the store's map. Its ids' dirty marks are
// sorted, so that they walk the outbox's leaves once each. The vectors
// are walked in the order of the stage's chunk set, which is theirs:
// looked up by id, in the order of the staged sessions, they read every
// page of the vector buckets in random order (publishing 198,000 chunks
// held 500 MiB of the map resident), and sorted by id in groups, every
// page of veckeys once a group.
var publishGroup = 16384

func (t *Tx) publishStage(info *StageInfo, touched func(ns string, tm time.Time)) (int, error) {
	b, err := t.stageBucket(info.ID)
	if err != nil {
		return 0, err
	}
	chunks, read := 0, 0
	var dirty []string
	// endGroup marks a group's chunks dirty (none when the stage was
	// indexed) and lets the store's map go.
	endGroup := func() error {
		slices.Sort(dirty)
		for _, id := range dirty {
			if err := t.MarkIndexDirty(id); err != nil {
				return err
			}
		}
		dirty = dirty[:0]
		t.releaseMapped()
		return nil
	}
	c := b.Cursor()
	prefix := []byte("s\x00")
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var s StagedSession
		if err := json.Unmarshal(v, &s); err != nil {
			return 0, fmt.Errorf("decoding staged session %q: %w", k, err)
		}
		if !info.Sessions {
			if err := t.writeStagedSession(&s, ""); err != nil {
				return 0, err
			}
		}
		for _, id := range s.Pending {
			if err := t.MarkPendingExtract(id, true); err != nil {
				return 0, err
			}
		}
		chunks += len(s.IDs)
		if !info.Indexed {
			dirty = append(dirty, s.IDs...)
		}
		// A group ends every publishGroup chunks read, dirty marks
		// or not: the sessions' records lie all over the store,
		// and reading all of them without a release mapped 39 MiB of it
		// at 150 MB.
		if read += len(s.IDs); read >= publishGroup {
			if err := endGroup(); err != nil {
				return 0, err
			}
			read = 0
		}
	}
	if err := endGroup(); err != nil {
		return 0, err
	}
	if err := t.publishVectors(b, touched); err != nil {
		return 0, err
	}
	if err := t.addMeta(metaChunks, chunks); err != nil {
		return 0, err
	}
	if err := t.addMeta(metaMessages, info.Messages); err != nil {
		return 0, err
	}
	if info.Sessions {
		return chunks, t.closeStage(info) // the bucket: SweepStage
	}
	return chunks, t.dropStage(info)
}

// writeStagedSession writes a staged session's record, marked with stage
// (none for ""), its chunk list and its dirty mark.
func (t *Tx) writeStagedSession(s *StagedSession, stage string) error {
	sess := s.Session
	sess.Stage = stage
	if err := t.PutSession(&sess); err != nil {
		return err
	}
	if err := t.SetSessionChunks(sess.NS, sess.Session, s.IDs); err != nil {
		return err
	}
	return t.MarkSessionDirty(sess.NS, sess.Session)
}

// WriteStagedSessions writes the records, chunk lists and dirty marks of
// a stage's sessions, each record marked with the stage, which readers
// pass by until it is published: about limit bytes of them (0 for a
// default), from the first session after key after (nil for the first).
// It returns the key to go on from, or nil when every session is written;
// then the stage's record says so, and its publication only closes it. A
// stage that is discarded instead takes the records with it.
func (t *Tx) WriteStagedSessions(info *StageInfo, after []byte, limit int) ([]byte, error) {
	if limit <= 0 {
		limit = mergeBytes
	}
	t.fillLeaves() // in the order of the sessions' keys
	b, err := t.stageBucket(info.ID)
	if err != nil {
		return nil, err
	}
	c := b.Cursor()
	prefix := []byte("s\x00")
	k, v := c.Seek(prefix)
	if after != nil {
		if k, v = c.Seek(after); k != nil && bytes.Equal(k, after) {
			k, v = c.Next()
		}
	}
	var last []byte
	for written := 0; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if written >= limit {
			return bytes.Clone(last), nil
		}
		last = k
		var s StagedSession
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("decoding staged session %q: %w", k, err)
		}
		if err := t.writeStagedSession(&s, info.ID); err != nil {
			return nil, fmt.Errorf("writing staged session %q: %w", s.Session.Session, err)
		}
		written += len(k) + 64*len(s.IDs)
	}
	info.Sessions = true
	return nil, t.putStage(info)
}

// publishVectors makes the vectors of the chunks of stage bucket b
// visible, in the order of their keys. A chunk written in place
// (vectors.go) is visible once the stage is gone, and a stage of a
// version before codes (vecq.go) gets them here; a stage of version 1
// kept its vectors by id only, in layout 1, and gets their time
// entries. It calls touched for each chunk that has a vector.
func (t *Tx) publishVectors(b Bucket, touched func(ns string, tm time.Time)) error {
	c := b.Cursor()
	n := 0
	for k, _ := c.Seek(stagedChunkPrefix); k != nil && bytes.HasPrefix(k, stagedChunkPrefix); k, _ = c.Next() {
		if n++; n%publishGroup == 0 {
			t.releaseMapped()
		}
		vk := k[len(stagedChunkPrefix):]
		id := StagedChunkID(k)
		if id == nil {
			return fmt.Errorf("bad staged chunk key %q", k)
		}
		ns := string(vk[:bytes.IndexByte(vk, 0)])
		tm := time.Unix(0, TimeFromKey(vk[len(ns)+1:]))
		switch {
		case t.get(bVecQ, vk) != nil:
		case len(t.get(bVecTime, vk)) > 0:
			if err := t.put(bVecQ, vk, vectorCode(t.get(bVecTime, vk))); err != nil {
				return err
			}
		default:
			raw := t.get(bVecs, id) // layout 1
			if len(raw) < 8 {
				continue // a chunk without a vector
			}
			tm = time.Unix(0, TimeFromKey(raw[:8]))
			key := VecKey(ns, tm, string(id))
			if err := t.put(bVecTime, key, nil); err != nil {
				return err
			}
			if err := t.put(bVecQ, key, vectorCode(raw[8:])); err != nil {
				return err
			}
		}
		if touched != nil {
			touched(ns, tm)
		}
	}
	return nil
}

// StageChunks returns up to limit ids of the chunks a stage holds, in
// the order of its bucket, from the first after the key after (nil for
// the start), and the key to go on from.
func (t *Tx) StageChunks(info *StageInfo, after []byte, limit int) ([]string, []byte) {
	b := t.tx.Bucket(stageBucketName(info.ID))
	if b == nil {
		return nil, nil
	}
	var ids []string
	c := b.Cursor()
	k, _ := c.First()
	if after != nil {
		if k, _ = c.Seek(after); bytes.Equal(k, after) {
			k, _ = c.Next()
		}
	}
	var last []byte
	for k != nil && len(ids) < limit {
		if bytes.HasPrefix(k, []byte("s\x00")) { // the sessions, between the two forms
			k, _ = c.Seek(stagedChunkPrefix)
			continue
		}
		if id := StagedChunkID(k); id != nil {
			ids = append(ids, string(id))
			last = k
		}
		k, _ = c.Next()
	}
	return ids, bytes.Clone(last)
}

// closeStage forgets an open stage, whose run must be merged, and leaves
// its bucket to [Tx.SweepStage].
func (t *Tx) closeStage(info *StageInfo) error {
	names, err := t.runNames(info.ID)
	if err != nil {
		return fmt.Errorf("removing stage %s: listing its run: %w", info.ID, err)
	}
	if len(names) > 0 {
		return fmt.Errorf("removing stage %s: %d batches of its run are not merged", info.ID, len(names))
	}
	if t.path != "" {
		// A run file goes once its run is merged (StageRun.Remove), or
		// once the stage's discard has walked it.
		switch _, err := os.Stat(runFilePrefix(t.path) + info.ID); {
		case err == nil:
			return fmt.Errorf("removing stage %s: its run is not merged", info.ID)
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("removing stage %s: checking its run: %w", info.ID, err)
		}
	}
	t.open = nil
	return t.b(bStages).Delete([]byte(info.Source))
}

// dropStage closes a stage and removes its bucket.
func (t *Tx) dropStage(info *StageInfo) error {
	if err := t.closeStage(info); err != nil {
		return err
	}
	if err := t.tx.DeleteBucket(stageBucketName(info.ID)); err != nil {
		return fmt.Errorf("removing stage %s: %w", info.ID, err)
	}
	return nil
}

// ClosedStages returns the ids of the stages that were published but
// whose buckets are not swept away yet (see [Tx.SweepStage]).
func (t *Tx) ClosedStages() []string {
	var ids []string
	open := t.openStages()
	t.tx.ForEachBucket(func(name []byte) error {
		if id, ok := bytes.CutPrefix(name, []byte("stage/")); ok && !open[string(id)] {
			ids = append(ids, string(id))
		}
		return nil
	})
	return ids
}

// sweepSessions is how many session records one call of [Tx.SweepStage]
// rewrites at most. A session's record lies wherever its
// transaction put it, and the kernel maps a read of one page of the
// store together with its neighbours (64 KiB around it), so the commit
// that rewrote 20,000 records mapped 78 MiB of the store at 150 MB. A
// variable for tests.
var sweepSessions = 1024

// SweepStage removes up to limit keys of the bucket of a published stage
// id, taking the stage's mark off the records of its sessions (at most
// sweepSessions of them), and the bucket once it is empty. It returns
// true when the bucket is gone; call it again, in a new transaction,
// until then. The published store reads the same before and after.
func (t *Tx) SweepStage(id string, limit int) (bool, error) {
	if t.openStages()[id] {
		return false, fmt.Errorf("sweeping stage %s: it is not published", id)
	}
	b := t.tx.Bucket(stageBucketName(id))
	if b == nil {
		return true, nil
	}
	var done [][]byte
	sessions := 0
	c := b.Cursor()
	k, v := c.First()
	for ; k != nil && len(done) < limit && sessions < sweepSessions; k, v = c.Next() {
		if bytes.HasPrefix(k, []byte("s\x00")) {
			sessions++
			var s StagedSession
			if err := json.Unmarshal(v, &s); err != nil {
				return false, fmt.Errorf("sweeping stage %s: decoding staged session %q: %w", id, k, err)
			}
			rec, err := t.sessionRecord(s.Session.NS, s.Session.Session)
			if err != nil {
				return false, fmt.Errorf("sweeping stage %s: %w", id, err)
			}
			if rec != nil && rec.Stage == id {
				rec.Stage = ""
				if err := t.PutSession(rec); err != nil {
					return false, fmt.Errorf("sweeping stage %s: %w", id, err)
				}
			}
		}
		done = append(done, bytes.Clone(k))
	}
	for _, k := range done {
		if err := b.Delete(k); err != nil {
			return false, fmt.Errorf("sweeping stage %s: %w", id, err)
		}
	}
	if k != nil {
		return false, nil
	}
	if err := t.tx.DeleteBucket(stageBucketName(id)); err != nil {
		return false, fmt.Errorf("sweeping stage %s: %w", id, err)
	}
	return true, nil
}

// DiscardStage removes up to limit records of an unpublished stage: its
// sessions' messages, its chunks and vectors, and the claims of its
// source (a stage is only begun for a source that held nothing before).
// It returns true when the stage is gone; call it again, in a new
// transaction, until then.
func (t *Tx) DiscardStage(info *StageInfo, limit int) (bool, error) {
	b := t.tx.Bucket(stageBucketName(info.ID))
	if b == nil {
		if sb := t.b(bStages); sb != nil {
			return true, sb.Delete([]byte(info.Source))
		}
		return true, nil
	}
	// First the run (stagerun.go), which may be merged in part: the
	// records it lists are the stage's, in the buckets or not yet.
	n, err := t.discardRun(info.ID, limit)
	if err != nil || n > 0 {
		return false, err
	}
	c := b.Cursor()
	var done [][]byte
	for k, v := c.First(); k != nil && n < limit; k, v = c.Next() {
		switch id := StagedChunkID(k); {
		case id != nil:
			var ch Chunk
			if raw := t.get(bChunks, id); raw != nil {
				if err := json.Unmarshal(raw, &ch); err == nil {
					if err := t.del(bChunkKeys, ch.Key[:]); err != nil {
						return false, err
					}
				}
			}
			if err := t.del(bChunks, id); err != nil {
				return false, err
			}
			if err := t.dropVector(ch.NS, string(id), nil); err != nil {
				return false, fmt.Errorf("deleting the vector of staged chunk %s: %w", id, err)
			}
			n++
		case bytes.HasPrefix(k, []byte("s\x00")):
			var s StagedSession
			if err := json.Unmarshal(v, &s); err != nil {
				return false, fmt.Errorf("decoding staged session %q: %w", k, err)
			}
			m, err := t.deleteSessionMessages(s.Session.NS, s.Session.Session, limit-n)
			if err != nil {
				return false, err
			}
			n += m
			if n >= limit {
				continue // more messages of this session next time
			}
			// The records WriteStagedSessions wrote, if it got here.
			rec, err := t.sessionRecord(s.Session.NS, s.Session.Session)
			if err != nil {
				return false, err
			}
			if rec != nil && rec.Stage == info.ID {
				if err := t.DeleteSession(rec.NS, rec.Session); err != nil {
					return false, err
				}
				n++
			}
		}
		done = append(done, bytes.Clone(k))
	}
	for _, k := range done {
		if err := b.Delete(k); err != nil {
			return false, err
		}
	}
	if n >= limit {
		return false, nil
	}
	// Then the claims of the source, which had none before the stage.
	if more, err := t.dropClaims(info.Source, limit); err != nil || more {
		return false, err
	}
	return true, t.dropStage(info)
}

// deleteSessionMessages removes up to limit stored messages of a session
// with their content keys, and every source's claim on them (a grouped
// stage's files claim its messages each under its own name:
// core/engine/sourcegroup.go), and returns how many it removed.
func (t *Tx) deleteSessionMessages(ns, session string, limit int) (int, error) {
	prefix := SessionPrefix(ns, session)
	var keys, ids [][]byte
	c := t.b(bMsgs).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(keys) < limit; k, v = c.Next() {
		if cur, ok := t.buf[string(bMsgs)][string(k)]; ok && cur == nil {
			continue // deleted earlier in this transaction
		}
		m, err := decodeMessage(v)
		if err != nil {
			return 0, fmt.Errorf("decoding message of session %q: %w", session, err)
		}
		cm, err := m.Core()
		if err != nil {
			return 0, err
		}
		mk := cm.Key()
		keys = append(keys, bytes.Clone(k))
		ids = append(ids, bytes.Clone(mk[:]))
	}
	for i := range keys {
		if err := t.del(bMsgs, keys[i]); err != nil {
			return 0, err
		}
		if err := t.del(bMsgIDs, ids[i]); err != nil {
			return 0, err
		}
		mk := core.MessageKey(ids[i])
		for _, src := range t.MessageClaimers(mk) {
			if err := t.UnclaimMessage(src, mk); err != nil {
				return 0, err
			}
		}
	}
	return len(keys), nil
}
