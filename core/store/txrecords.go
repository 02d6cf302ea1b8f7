package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/huimemory/huimemory/core"
)

// The transaction methods on the records themselves: messages, chunks and
// their ids, sessions.

// HasMessage reports whether a message with this content key is stored.
func (t *Tx) HasMessage(k core.MessageKey) bool { return t.get(bMsgIDs, k[:]) != nil }

// AddMessage stores a new message, giving it the next arrival sequence.
func (t *Tx) AddMessage(m *core.Message, k core.MessageKey, lines int) (*Message, error) {
	seq := t.metaU64(metaSeq) + 1
	if err := t.setMetaU64(metaSeq, seq); err != nil {
		return nil, err
	}
	rec := NewMessage(m, seq, lines)
	key := MsgKey(m.Namespace, m.Session, m.Time, seq)
	if err := t.putJSON(bMsgs, key, rec); err != nil {
		return nil, err
	}
	if err := t.put(bMsgIDs, k[:], key); err != nil {
		return nil, err
	}
	return rec, t.addMeta(metaMessages, 1)
}

// PutMessage rewrites a stored message (to mark it sealed, say).
func (t *Tx) PutMessage(m *Message) error {
	tm, err := time.Parse(time.RFC3339Nano, m.Time)
	if err != nil {
		return fmt.Errorf("message %d: bad time: %w", m.Seq, err)
	}
	return t.putJSON(bMsgs, MsgKey(m.NS, m.Session, tm, m.Seq), m)
}

// Message returns the message a chunk refers to.
func (t *Tx) Message(ns, session string, ref MsgRef) (*Message, error) {
	v := t.get(bMsgs, ref.Key(ns, session))
	if v == nil {
		return nil, fmt.Errorf("message %d of session %q: %w", ref.Q, session, core.ErrNotFound)
	}
	m, err := decodeMessage(v)
	if err != nil {
		return nil, fmt.Errorf("decoding message %d of session %q: %w", ref.Q, session, err)
	}
	return &m, nil
}

// SessionMessages returns a session's messages in order (time, then
// arrival).
func (t *Tx) SessionMessages(ns, session string) ([]*Message, []MsgRef, error) {
	prefix := SessionPrefix(ns, session)
	var msgs []*Message
	var refs []MsgRef
	c := t.b(bMsgs).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		m, err := decodeMessage(v)
		if err != nil {
			return nil, nil, fmt.Errorf("decoding message of session %q: %w", session, err)
		}
		rest := k[len(prefix):]
		msgs = append(msgs, &m)
		refs = append(refs, MsgRef{T: TimeFromKey(rest[:8]), Q: binary.BigEndian.Uint64(rest[8:16])})
	}
	return msgs, refs, nil
}

// Chunk returns the chunk with the given id, or an error wrapping
// [core.ErrNotFound].
func (t *Tx) Chunk(id string) (*Chunk, error) {
	v := t.get(bChunks, []byte(id))
	if v == nil {
		return nil, fmt.Errorf("chunk %q: %w", id, core.ErrNotFound)
	}
	var c Chunk
	if err := json.Unmarshal(v, &c); err != nil {
		return nil, fmt.Errorf("decoding chunk %q: %w", id, err)
	}
	return &c, nil
}

// ChunkBrief returns a stored chunk without its text and message
// references (Text and Msgs are empty), and a copy of its stored bytes:
// what planning a session's chunks again needs of the chunks it has, in
// a fraction of a full decode's time. The plan compares each chunk it
// makes with the stored bytes; the chunk returned must never be written
// back.
func (t *Tx) ChunkBrief(id string) (*Chunk, []byte, error) {
	v := t.get(bChunks, []byte(id))
	if v == nil {
		return nil, nil, fmt.Errorf("chunk %q: %w", id, core.ErrNotFound)
	}
	c, err := decodeChunkBrief(v)
	if err != nil {
		return nil, nil, fmt.Errorf("decoding chunk %q: %w", id, err)
	}
	return &c, bytes.Clone(v), nil
}

// ChunkHead is the start of a stored chunk: its links, namespace, session
// and time, read without decoding its messages.
type ChunkHead struct {
	Prev, Next string
	NS         string
	Session    string
	// Asks is [Chunk.Asks].
	Asks bool
	Time time.Time
}

// ChunkHead returns the head of a stored chunk; ok is false when no chunk
// has the id. See [parseChunkHead].
func (t *Tx) ChunkHead(id string) (h ChunkHead, ok bool, err error) {
	v := t.get(bChunks, []byte(id))
	if v == nil {
		return h, false, nil
	}
	if h, err = parseChunkHead(v); err != nil {
		return h, false, fmt.Errorf("decoding chunk %q: %w", id, err)
	}
	return h, true, nil
}

// ChunkID returns the id of the chunk with the given key, if stored.
func (t *Tx) ChunkID(k core.ChunkKey) (string, bool) {
	v := t.get(bChunkKeys, k[:])
	return string(v), v != nil
}

// AllocID returns the id for a chunk key: the one it already has, or the
// shortest prefix of its base-32 form, at least core.MinIDLen long, that no
// other chunk uses.
func (t *Tx) AllocID(k core.ChunkKey) (string, error) {
	if id, ok := t.ChunkID(k); ok {
		return id, nil
	}
	for n := core.MinIDLen; n <= core.MaxIDLen; n++ {
		id := k.ID(n)
		if t.get(bChunks, []byte(id)) == nil {
			// Reserve the id now so that another new chunk in this
			// transaction cannot take it.
			if err := t.put(bChunkKeys, k[:], []byte(id)); err != nil {
				return "", err
			}
			return id, t.put(bChunks, []byte(id), []byte("{}"))
		}
	}
	return "", fmt.Errorf("no free id for chunk key %x", k)
}

// PutChunk stores a chunk under its id and, when reindex is set, queues it
// for the index.
func (t *Tx) PutChunk(c *Chunk, reindex bool) error {
	if v := t.get(bChunks, []byte(c.ID)); v == nil || string(v) == "{}" {
		if err := t.addMeta(metaChunks, 1); err != nil {
			return err
		}
	}
	if err := t.putJSON(bChunks, []byte(c.ID), c); err != nil {
		return err
	}
	if err := t.put(bChunkKeys, c.Key[:], []byte(c.ID)); err != nil {
		return err
	}
	if !reindex {
		return nil
	}
	return t.MarkIndexDirty(c.ID)
}

// DeleteChunk removes a chunk, its key and its vector, and queues the
// removal for the index.
func (t *Tx) DeleteChunk(c *Chunk) error {
	if err := t.del(bChunks, []byte(c.ID)); err != nil {
		return err
	}
	if err := t.del(bChunkKeys, c.Key[:]); err != nil {
		return err
	}
	if err := t.DeleteVector(c.NS, c.StartTime(), c.ID); err != nil {
		return err
	}
	if err := t.addMeta(metaChunks, -1); err != nil {
		return err
	}
	if len(c.PendingExtract) > 0 {
		if err := t.MarkPendingExtract(c.ID, false); err != nil {
			return err
		}
	}
	return t.MarkIndexDirty(c.ID)
}

// SessionChunkIDs returns the ids of a session's chunks in order; none
// for a session of an open stage.
func (t *Tx) SessionChunkIDs(ns, session string) []string {
	if len(t.openStages()) > 0 {
		if s, err := t.sessionRecord(ns, session); err != nil || s != nil && t.hidden(s) {
			return nil
		}
	}
	prefix := SessionPrefix(ns, session)
	var ids []string
	c := t.b(bSessChunks).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		ids = append(ids, string(v))
	}
	return ids
}

// SetSessionChunks replaces the ordered list of a session's chunk ids.
func (t *Tx) SetSessionChunks(ns, session string, ids []string) error {
	b := t.b(bSessChunks)
	prefix := SessionPrefix(ns, session)
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	for i, id := range ids {
		if err := b.Put(binary.BigEndian.AppendUint32(bytes.Clone(prefix), uint32(i)), []byte(id)); err != nil {
			return err
		}
	}
	return nil
}

// ForEachChunk calls fn for every chunk, in id order, until fn returns an
// error.
func (t *Tx) ForEachChunk(fn func(*Chunk) error) error {
	return t.b(bChunks).ForEach(func(k, v []byte) error {
		var c Chunk
		if err := json.Unmarshal(v, &c); err != nil {
			return fmt.Errorf("decoding chunk %q: %w", k, err)
		}
		return fn(&c)
	})
}

// Session returns what the store knows of a session, or nil; a session
// of an open stage is not known yet.
func (t *Tx) Session(ns, session string) (*Session, error) {
	s, err := t.sessionRecord(ns, session)
	if err != nil || s == nil || t.hidden(s) {
		return nil, err
	}
	return s, nil
}

// sessionRecord returns a session's record, or nil, whether or not it
// belongs to an open stage.
func (t *Tx) sessionRecord(ns, session string) (*Session, error) {
	v := t.b(bSessions).Get(sessionKey(ns, session))
	if v == nil {
		return nil, nil
	}
	var s Session
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("decoding session %q: %w", session, err)
	}
	return &s, nil
}

// PutSession stores a session record.
func (t *Tx) PutSession(s *Session) error {
	return t.putJSON(bSessions, sessionKey(s.NS, s.Session), s)
}

// ForEachSession calls fn for every session record but those of the open
// stages.
func (t *Tx) ForEachSession(fn func(*Session) error) error {
	return t.b(bSessions).ForEach(func(k, v []byte) error {
		var s Session
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("decoding session %q: %w", k, err)
		}
		if t.hidden(&s) {
			return nil
		}
		return fn(&s)
	})
}

func sessionKey(ns, session string) []byte {
	p := SessionPrefix(ns, session)
	return p[:len(p)-1]
}

func (t *Tx) putJSON(bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return t.put(bucket, key, data)
}
