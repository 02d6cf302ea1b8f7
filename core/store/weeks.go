package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Sealed weeks. Two more buckets, created on first write (a store that has
// never sealed a week does not have them):
//
//	weeks       ns 0 week → week record (sealed weeks)
//	sealedsess  ns 0 sess → sealed-session record (where a sealed session's
//	            transcript lives inside its week's archive)
//
// Sealing a week is one transaction: its messages lose their text and are
// marked Sealed, each of its sessions gets a sealed-session record, and the
// week gets its record. Re-opening a week undoes all three at once.
var (
	bWeeks      = []byte("weeks")
	bSealedSess = []byte("sealedsess")
)

// Week is what the store knows of a sealed week of one namespace.
type Week struct {
	NS   string `json:"n,omitempty"`
	Week string `json:"w"`
	// Seal identifies this sealing: a random number, new each time the
	// week is sealed, so that anything cached from an earlier sealing of
	// the same week is never taken for this one.
	Seal uint64 `json:"seal"`
	// Archive is the archive's path relative to the sessions root; SHA256
	// and ArchiveBytes are its checksum and size.
	Archive      string `json:"archive"`
	SHA256       string `json:"sha256"`
	ArchiveBytes int64  `json:"archive_bytes"`
	// RawBytes and Files are the decompressed size and the file count.
	RawBytes int64 `json:"raw_bytes"`
	Files    int   `json:"files"`
	// Sessions is how many of the store's sessions the week holds.
	Sessions int `json:"sessions"`
	// SealedAt is when the week was sealed, RFC 3339.
	SealedAt string `json:"sealed_at"`
}

// SealedAtTime parses SealedAt.
func (w *Week) SealedAtTime() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, w.SealedAt)
	return t
}

// SealedSession says where a session's sealed messages live: the week
// whose archive holds them and the transcript's path inside that archive
// (relative to the week folder). Its sealed messages are laid out in that
// transcript exactly as [archive.Layout] places them, in store order.
type SealedSession struct {
	NS      string `json:"n,omitempty"`
	Session string `json:"s"`
	Week    string `json:"w"`
	Seal    uint64 `json:"seal"`
	File    string `json:"f"`
}

func weekKey(ns, week string) []byte {
	b := make([]byte, 0, len(ns)+1+len(week))
	b = append(b, ns...)
	b = append(b, 0)
	return append(b, week...)
}

// bucket returns a bucket of the sealed-week family, creating it in a
// write transaction; nil in a read transaction that predates it.
func (t *Tx) bucket(name []byte) (Bucket, error) {
	if b := t.tx.Bucket(name); b != nil || !t.tx.Writable() {
		return b, nil
	}
	return t.tx.CreateBucket(name)
}

// Week returns a sealed week's record, or nil if the week is not sealed.
func (t *Tx) Week(ns, week string) (*Week, error) {
	b, err := t.bucket(bWeeks)
	if b == nil || err != nil {
		return nil, err
	}
	v := b.Get(weekKey(ns, week))
	if v == nil {
		return nil, nil
	}
	var w Week
	if err := json.Unmarshal(v, &w); err != nil {
		return nil, fmt.Errorf("decoding week %s: %w", week, err)
	}
	return &w, nil
}

// PutWeek records a sealed week.
func (t *Tx) PutWeek(w *Week) error {
	b, err := t.bucket(bWeeks)
	if err != nil {
		return err
	}
	data, err := json.Marshal(w)
	if err != nil {
		return err
	}
	return b.Put(weekKey(w.NS, w.Week), data)
}

// DeleteWeek forgets a sealed week's record.
func (t *Tx) DeleteWeek(ns, week string) error {
	b, err := t.bucket(bWeeks)
	if err != nil {
		return err
	}
	return b.Delete(weekKey(ns, week))
}

// ForEachWeek calls fn for every sealed week, by namespace then week.
func (t *Tx) ForEachWeek(fn func(*Week) error) error {
	b, err := t.bucket(bWeeks)
	if b == nil || err != nil {
		return err
	}
	return b.ForEach(func(k, v []byte) error {
		var w Week
		if err := json.Unmarshal(v, &w); err != nil {
			return fmt.Errorf("decoding week %q: %w", k, err)
		}
		return fn(&w)
	})
}

// SealedSession returns where a session's sealed messages live, or nil.
func (t *Tx) SealedSession(ns, session string) (*SealedSession, error) {
	b, err := t.bucket(bSealedSess)
	if b == nil || err != nil {
		return nil, err
	}
	v := b.Get(sessionKey(ns, session))
	if v == nil {
		return nil, nil
	}
	var s SealedSession
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("decoding sealed session %q: %w", session, err)
	}
	return &s, nil
}

// SealedSessions returns the sealed-session records of one week of a
// namespace.
func (t *Tx) SealedSessions(ns, week string) ([]*SealedSession, error) {
	b, err := t.bucket(bSealedSess)
	if b == nil || err != nil {
		return nil, err
	}
	prefix := NamespacePrefix(ns)
	var out []*SealedSession
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var s SealedSession
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("decoding sealed session %q: %w", k, err)
		}
		if s.Week == week {
			out = append(out, &s)
		}
	}
	return out, nil
}

// SealSession marks every message of a session sealed and drops its text,
// and records where the text now lives. The caller must have checked that
// the archive holds the session's transcript as rendered from exactly
// these messages.
func (t *Tx) SealSession(rec *SealedSession) error {
	msgs, _, err := t.SessionMessages(rec.NS, rec.Session)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Sealed {
			return fmt.Errorf("message %d of session %q is sealed already", m.Seq, rec.Session)
		}
		m.Sealed, m.Text = true, ""
		if err := t.PutMessage(m); err != nil {
			return err
		}
	}
	b, err := t.bucket(bSealedSess)
	if err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return b.Put(sessionKey(rec.NS, rec.Session), data)
}

// UnsealSession gives a session's sealed messages their text back and
// forgets its sealed-session record. text returns a sealed message's
// text; it is called for every sealed message before any is changed.
func (t *Tx) UnsealSession(ns, session string, text func(*Message) (string, error)) error {
	msgs, _, err := t.SessionMessages(ns, session)
	if err != nil {
		return err
	}
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		if m.Sealed {
			if texts[i], err = text(m); err != nil {
				return err
			}
		}
	}
	for i, m := range msgs {
		if !m.Sealed {
			continue
		}
		m.Sealed, m.Text = false, texts[i]
		if err := t.PutMessage(m); err != nil {
			return err
		}
	}
	b, err := t.bucket(bSealedSess)
	if err != nil {
		return err
	}
	return b.Delete(sessionKey(ns, session))
}
