package store

import "bytes"

// Source hashes, and the queues that derived data is brought in step
// from: the index outbox and the dirty transcripts.

// SourceHash returns the content hash recorded for a source, or "".
func (t *Tx) SourceHash(name string) string { return string(t.b(bSources).Get([]byte(name))) }

// PutSourceHash records a source's content hash.
func (t *Tx) PutSourceHash(name, hash string) error {
	return t.b(bSources).Put([]byte(name), []byte(hash))
}

// HasSourceHash reports whether any source with this content hash was
// ingested.
func (t *Tx) HasSourceHash(hash string) bool {
	return t.b(bSources).Get([]byte("sha256:"+hash)) != nil
}

// PutSourceContent records that content with this hash was ingested.
func (t *Tx) PutSourceContent(hash string) error {
	return t.b(bSources).Put([]byte("sha256:"+hash), []byte{1})
}

// MarkIndexDirty queues a chunk id for the index in this generation.
func (t *Tx) MarkIndexDirty(id string) error {
	gen, err := t.BumpGen()
	if err != nil {
		return err
	}
	return t.put(bOutbox, []byte(id), u64(gen))
}

// Outbox returns the queued chunk ids.
func (t *Tx) Outbox() []string {
	var ids []string
	t.b(bOutbox).ForEach(func(k, _ []byte) error {
		ids = append(ids, string(k))
		return nil
	})
	return ids
}

// OutboxLen counts the queued chunk ids without listing them.
func (t *Tx) OutboxLen() int { return t.b(bOutbox).KeyN() }

// Seq returns the last arrival sequence given to a message.
func (t *Tx) Seq() uint64 { return t.metaU64(metaSeq) }

// OutboxCleared returns the highest generation whose outbox entries were
// cleared: an index older than that cannot be caught up from the outbox.
func (t *Tx) OutboxCleared() uint64 { return t.metaU64(metaCleared) }

// ClearOutbox drops the queued ids whose generation is at most gen.
func (t *Tx) ClearOutbox(gen uint64) error {
	if gen > t.OutboxCleared() {
		if err := t.setMetaU64(metaCleared, gen); err != nil {
			return err
		}
	}
	b := t.b(bOutbox)
	var done [][]byte
	b.ForEach(func(k, v []byte) error {
		if readU64(v) <= gen {
			done = append(done, bytes.Clone(k))
		}
		return nil
	})
	for _, k := range done {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// MarkSessionDirty queues a session's transcript to be rewritten.
func (t *Tx) MarkSessionDirty(ns, session string) error {
	gen, err := t.BumpGen()
	if err != nil {
		return err
	}
	return t.b(bDirty).Put(sessionKey(ns, session), u64(gen))
}

// DirtySessions returns the queued sessions as (namespace, session) pairs
// and their generations, but those of the open stages, whose marks wait
// for the publication.
func (t *Tx) DirtySessions() (list [][2]string, gens []uint64) {
	staging := len(t.openStages()) > 0
	t.b(bDirty).ForEach(func(k, v []byte) error {
		ns, sess, _ := bytes.Cut(k, []byte{0})
		if staging {
			if s, err := t.sessionRecord(string(ns), string(sess)); err == nil && s != nil && t.hidden(s) {
				return nil
			}
		}
		list = append(list, [2]string{string(ns), string(sess)})
		gens = append(gens, readU64(v))
		return nil
	})
	return list, gens
}

// ClearDirtySession drops a queued session if its generation is at most gen.
func (t *Tx) ClearDirtySession(ns, session string, gen uint64) error {
	b := t.b(bDirty)
	k := sessionKey(ns, session)
	if v := b.Get(k); v != nil && readU64(v) <= gen {
		return b.Delete(k)
	}
	return nil
}
