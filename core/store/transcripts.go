package store

import (
	"encoding/json"
	"fmt"
)

// A store in a shared KV (OpenKV) keeps the sessions' markdown
// transcripts itself, as a home keeps them in its sessions/ folder:
//
//	transcripts   namespace 0 session → {"file": path, "data": markdown}
//
// The bucket is created on first write.
var bTranscripts = []byte(TranscriptsBucket)

type transcriptRecord struct {
	File string `json:"file"`
	Data []byte `json:"data"`
}

// PutTranscript stores a session's transcript: its path under the
// sessions folder and its markdown.
func (t *Tx) PutTranscript(ns, session, file string, data []byte) error {
	b, err := t.tx.CreateBucketIfNotExists(bTranscripts)
	if err != nil {
		return fmt.Errorf("storing transcript of session %q: %w", session, err)
	}
	v, err := json.Marshal(transcriptRecord{File: file, Data: data})
	if err != nil {
		return err
	}
	return b.Put(sessionKey(ns, session), v)
}

// Transcript returns a session's stored transcript; ok is false when
// there is none.
func (t *Tx) Transcript(ns, session string) (file string, data []byte, ok bool, err error) {
	b := t.tx.Bucket(bTranscripts)
	if b == nil {
		return "", nil, false, nil
	}
	v := b.Get(sessionKey(ns, session))
	if v == nil {
		return "", nil, false, nil
	}
	var r transcriptRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return "", nil, false, fmt.Errorf("decoding transcript of session %q: %w", session, err)
	}
	return r.File, r.Data, true, nil
}

// DeleteTranscript removes a session's stored transcript, if any.
func (t *Tx) DeleteTranscript(ns, session string) error {
	b := t.tx.Bucket(bTranscripts)
	if b == nil {
		return nil
	}
	return b.Delete(sessionKey(ns, session))
}

// A store in a shared KV keeps the sealed weeks' zstd archives too, as a
// home keeps them beside its week folders:
//
//	archives   namespace 0 week → the archive's bytes
var bArchives = []byte(ArchivesBucket)

func archiveKey(ns, week string) []byte { return append(NamespacePrefix(ns), week...) }

// PutArchive stores a sealed week's archive.
func (t *Tx) PutArchive(ns, week string, data []byte) error {
	b, err := t.tx.CreateBucketIfNotExists(bArchives)
	if err != nil {
		return fmt.Errorf("storing the archive of week %s: %w", week, err)
	}
	return b.Put(archiveKey(ns, week), data)
}

// Archive returns a sealed week's stored archive, or nil.
func (t *Tx) Archive(ns, week string) []byte {
	if b := t.tx.Bucket(bArchives); b != nil {
		return b.Get(archiveKey(ns, week))
	}
	return nil
}

// DeleteArchive removes a week's stored archive, if any.
func (t *Tx) DeleteArchive(ns, week string) error {
	if b := t.tx.Bucket(bArchives); b != nil {
		return b.Delete(archiveKey(ns, week))
	}
	return nil
}
