package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/huimemory/huimemory/core"
)

// Source tracking: which ingested file holds which messages, so
// that a changed file can have its messages replaced and a deleted one
// pruned. Two buckets, created on first write, hold the same claims both
// ways round:
//
//	srcmsgs   source name 0 claim number → message key (a source's messages)
//	msgsrcs   message key source name → claim number (who holds a message)
//
// A message is claimed by every tracked source that holds it; it is
// removed when the last claim goes. Messages added without a source (the
// library's Ingest, `huimem add`) carry no claim and are never removed by
// a re-ingest.
//
// Claims are numbered in the order they are made (metaClaimSeq), so that
// a source's claims are appended to srcmsgs in key order. Keyed by the
// message key instead, as before schema version 4, each batch of a large
// ingest inserted its claims all over the bucket, and its commit rewrote
// most of the bucket's pages: 11% of the time of a 108,000-message ingest.
// msgsrcs stays keyed by the message key, which is how it is read. A
// claim made before version 4 is still read: in srcmsgs it is keyed by
// the message key with no value, in msgsrcs it has no value.
var (
	bSrcMsgs = []byte("srcmsgs")
	bMsgSrcs = []byte("msgsrcs")
)

// metaClaimSeq numbers the claims (see above).
const metaClaimSeq = "claimseq"

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

func srcPrefix(src string) []byte {
	return append([]byte(src), 0)
}

// srcMsgKey is the srcmsgs key of claim number seq of source src.
func srcMsgKey(src string, seq []byte) []byte {
	return append(srcPrefix(src), seq...)
}

// oldSrcMsgKey is the srcmsgs key of a claim made before schema version 4.
func oldSrcMsgKey(src string, k core.MessageKey) []byte {
	return append(srcPrefix(src), k[:]...)
}

func msgSrcKey(src string, k core.MessageKey) []byte {
	return append(bytes.Clone(k[:]), src...)
}

// ClaimMessage records that source src holds the message with key k. A
// claim made already stays as it is.
func (t *Tx) ClaimMessage(src string, k core.MessageKey) error {
	if err := t.ensureSourceBuckets(); err != nil {
		return err
	}
	if t.get(bMsgSrcs, msgSrcKey(src, k)) != nil {
		return nil
	}
	seq := t.metaU64(metaClaimSeq) + 1
	if err := t.setMetaU64(metaClaimSeq, seq); err != nil {
		return err
	}
	n := u64(seq)
	if err := t.put(bSrcMsgs, srcMsgKey(src, n), k[:]); err != nil {
		return err
	}
	return t.put(bMsgSrcs, msgSrcKey(src, k), n)
}

// UnclaimMessage drops source src's claim on message k.
func (t *Tx) UnclaimMessage(src string, k core.MessageKey) error {
	if err := t.ensureSourceBuckets(); err != nil {
		return err
	}
	key := msgSrcKey(src, k)
	if n := t.get(bMsgSrcs, key); len(n) == 8 {
		if err := t.del(bSrcMsgs, srcMsgKey(src, n)); err != nil {
			return err
		}
	} else if err := t.del(bSrcMsgs, oldSrcMsgKey(src, k)); err != nil {
		return err
	}
	return t.del(bMsgSrcs, key)
}

// dropClaims removes up to limit of source src's claims, found by their
// srcmsgs keys: unlike [Tx.UnclaimMessage], it does not need a claim's
// msgsrcs record to find its number, so a claim whose record is missing
// goes too. more reports that claims are left.
func (t *Tx) dropClaims(src string, limit int) (more bool, err error) {
	b := t.b(bSrcMsgs)
	if b == nil {
		return false, nil
	}
	prefix := srcPrefix(src)
	type claim struct {
		key []byte
		msg core.MessageKey
	}
	var claims []claim
	c := b.Cursor()
	for key, v := c.Seek(prefix); key != nil && bytes.HasPrefix(key, prefix); key, v = c.Next() {
		if len(claims) == limit {
			more = true
			break
		}
		cl := claim{key: bytes.Clone(key)}
		switch {
		case len(v) == len(cl.msg) && len(key) == len(prefix)+8:
			copy(cl.msg[:], v)
		case len(v) == 0 && len(key) == len(prefix)+len(cl.msg):
			copy(cl.msg[:], key[len(prefix):])
		}
		claims = append(claims, cl)
	}
	for _, cl := range claims {
		if err := t.del(bSrcMsgs, cl.key); err != nil {
			return false, err
		}
		if err := t.del(bMsgSrcs, msgSrcKey(src, cl.msg)); err != nil {
			return false, err
		}
	}
	return more, nil
}

// SourceMessages returns the keys of the messages source src claims, as
// committed before this transaction, in the order they were claimed
// (claims made before schema version 4 first, in key order).
func (t *Tx) SourceMessages(src string) []core.MessageKey {
	b := t.b(bSrcMsgs)
	if b == nil {
		return nil
	}
	prefix := srcPrefix(src)
	var out, numbered []core.MessageKey
	c := b.Cursor()
	for key, v := c.Seek(prefix); key != nil && bytes.HasPrefix(key, prefix); key, v = c.Next() {
		var mk core.MessageKey
		switch {
		case len(v) == len(mk) && len(key) == len(prefix)+8:
			copy(mk[:], v)
			numbered = append(numbered, mk)
		case len(v) == 0 && len(key) == len(prefix)+len(mk):
			copy(mk[:], key[len(prefix):])
			out = append(out, mk)
		}
	}
	return append(out, numbered...)
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
