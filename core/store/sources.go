package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/huimemory/huimemory/core"
)

// Source tracking (issue 13): which ingested file holds which messages, so
// that a changed file can have its messages replaced and a deleted one
// pruned. Two buckets, created on first write, hold the same claims both
// ways round:
//
//	srcmsgs   source name 0 message key → nothing (a source's messages)
//	msgsrcs   message key source name → nothing (who holds a message)
//
// A message is claimed by every tracked source that holds it; it is
// removed when the last claim goes. Messages added without a source (the
// library's Ingest, `huimem add`) carry no claim and are never removed by
// a re-ingest.
var (
	bSrcMsgs = []byte("srcmsgs")
	bMsgSrcs = []byte("msgsrcs")
)

func init() {
	// Claims are written in bulk, in random key order: hold them back
	// like the other large buckets (see buffer.go).
	buffered[string(bSrcMsgs)] = true
	buffered[string(bMsgSrcs)] = true
}

// ensureSourceBuckets creates the claim buckets in a write transaction.
func (t *Tx) ensureSourceBuckets() error {
	for _, name := range [][]byte{bSrcMsgs, bMsgSrcs} {
		if _, err := t.tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("creating bucket %s: %w", name, err)
		}
	}
	return nil
}

func srcMsgKey(src string, k core.MessageKey) []byte {
	return append(append([]byte(src), 0), k[:]...)
}

func msgSrcKey(src string, k core.MessageKey) []byte {
	return append(bytes.Clone(k[:]), src...)
}

// ClaimMessage records that source src holds the message with key k.
func (t *Tx) ClaimMessage(src string, k core.MessageKey) error {
	if err := t.ensureSourceBuckets(); err != nil {
		return err
	}
	if err := t.put(bSrcMsgs, srcMsgKey(src, k), nil); err != nil {
		return err
	}
	return t.put(bMsgSrcs, msgSrcKey(src, k), nil)
}

// UnclaimMessage drops source src's claim on message k.
func (t *Tx) UnclaimMessage(src string, k core.MessageKey) error {
	if err := t.ensureSourceBuckets(); err != nil {
		return err
	}
	if err := t.del(bSrcMsgs, srcMsgKey(src, k)); err != nil {
		return err
	}
	return t.del(bMsgSrcs, msgSrcKey(src, k))
}

// SourceMessages returns the keys of the messages source src claims, as
// committed before this transaction.
func (t *Tx) SourceMessages(src string) []core.MessageKey {
	b := t.b(bSrcMsgs)
	if b == nil {
		return nil
	}
	prefix := append([]byte(src), 0)
	var out []core.MessageKey
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) == len(prefix)+len(core.MessageKey{}) {
			var mk core.MessageKey
			copy(mk[:], k[len(prefix):])
			out = append(out, mk)
		}
	}
	return out
}

// MessageClaimers returns the sources that claim message k, as committed
// before this transaction.
func (t *Tx) MessageClaimers(k core.MessageKey) []string {
	b := t.b(bMsgSrcs)
	if b == nil {
		return nil
	}
	var out []string
	c := b.Cursor()
	for key, _ := c.Seek(k[:]); key != nil && bytes.HasPrefix(key, k[:]); key, _ = c.Next() {
		out = append(out, string(key[len(k):]))
	}
	return out
}

// StoredMessage returns the stored message with content key k, or nil.
func (t *Tx) StoredMessage(k core.MessageKey) (*Message, error) {
	mk := t.get(bMsgIDs, k[:])
	if mk == nil {
		return nil, nil
	}
	v := t.get(bMsgs, mk)
	if v == nil {
		return nil, fmt.Errorf("message %x is indexed but missing", k)
	}
	var m Message
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, fmt.Errorf("decoding message %x: %w", k, err)
	}
	return &m, nil
}

// DeleteMessage removes the message with content key k. The caller re-cuts
// the message's session in the same transaction, so that no chunk refers
// to it.
func (t *Tx) DeleteMessage(k core.MessageKey) error {
	mk := t.get(bMsgIDs, k[:])
	if mk == nil {
		return fmt.Errorf("message %x: %w", k, core.ErrNotFound)
	}
	if err := t.del(bMsgs, mk); err != nil {
		return err
	}
	if err := t.del(bMsgIDs, k[:]); err != nil {
		return err
	}
	return t.addMeta(metaMessages, -1)
}

// DeleteSession removes a session's record and its chunk list, once its
// last message and chunk are gone.
func (t *Tx) DeleteSession(ns, session string) error {
	if err := t.SetSessionChunks(ns, session, nil); err != nil {
		return err
	}
	if err := t.b(bSessions).Delete(sessionKey(ns, session)); err != nil {
		return err
	}
	return t.b(bDirty).Delete(sessionKey(ns, session))
}

// DeleteSourceHash forgets a source's recorded content hash.
func (t *Tx) DeleteSourceHash(name string) error {
	return t.b(bSources).Delete([]byte(name))
}

// Sources returns every tracked source name and its content hash.
func (t *Tx) Sources() map[string]string {
	out := map[string]string{}
	t.b(bSources).ForEach(func(k, v []byte) error {
		if !strings.HasPrefix(string(k), "sha256:") {
			out[string(k)] = string(v)
		}
		return nil
	})
	return out
}
