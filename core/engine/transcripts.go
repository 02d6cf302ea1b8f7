package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/huimemory/huimemory/core/store"
)

// transcriptRelease is how many transcripts are written between two
// releases of the store's map.
const transcriptRelease = 256

// writeTranscripts rewrites the transcripts of the sessions queued as
// dirty and removes files that sessions moved out of. Each file is replaced
// atomically (temporary file, rename); the files are flushed to disk
// together, and only then are the sessions taken off the queue, so a crash
// at any point leaves them queued and they are written again on open.
func (w *writer) writeTranscripts(ctx context.Context) error {
	var list [][2]string
	var gens []uint64
	w.st.View(func(tx *store.Tx) error {
		list, gens = tx.DirtySessions()
		return nil
	})
	if len(list) == 0 {
		return nil
	}
	if w.backend != nil {
		return w.storeTranscripts(ctx, list, gens)
	}
	// Sealed weeks are reopened one session at a time (a reopen writes),
	// then the transcripts are rendered and written by transcriptWriters
	// goroutines: most of a transcript's cost is its file's creation,
	// kernel time (0.4–0.9 ms on this machine's ext4) that two writers
	// spread over two cores.
	for i, s := range list {
		if i > 0 && i%transcriptRelease == 0 {
			// Each session's records are read from the store's
			// map; 39,400 sessions after 300 MB of JSONL held 280 MiB of it.
			w.st.ReleaseMapped()
		}
		if err := w.reopenFor(s[0], s[1]); err != nil {
			return fmt.Errorf("writing transcript of session %q: %w", s[1], err)
		}
	}
	type outcome struct {
		file  string
		stale bool
		err   error
	}
	out := make([]outcome, len(list))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(transcriptWriters, len(list)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(list) || ctx.Err() != nil {
					return
				}
				if i > 0 && i%transcriptRelease == 0 {
					// Each session's messages are read from the
					// store's map, and after a large ingest the sessions
					// cover the whole store (702 MiB of it resident
					// after 9,900 sessions).
					w.st.ReleaseMapped()
				}
				o := &out[i]
				o.file, o.stale, o.err = w.writeTranscript(list[i][0], list[i][1])
				if o.err != nil && !store.IsReadOnly(o.err) {
					next.Store(int64(len(list))) // stop the others at their next file
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	var written []string
	var unstale [][2]string
	for i, o := range out {
		if o.err != nil && store.IsReadOnly(o.err) {
			// The store has the messages, and the transcripts
			// stay queued; a folder that cannot be written fails no
			// ingest and no read.
			w.logf("huimem: warning: transcripts not written (%v); the messages are stored and recallable, and the transcripts are written once %s is writable", o.err, w.sessionsRoot())
			return nil
		}
		if o.err != nil {
			return fmt.Errorf("writing transcript of session %q: %w", list[i][1], o.err)
		}
		if o.file != "" {
			written = append(written, o.file)
		}
		if o.stale {
			unstale = append(unstale, list[i])
		}
	}
	if err := syncFiles(w.sessionsRoot(), written); err != nil {
		return fmt.Errorf("flushing transcripts: %w", err)
	}
	return w.st.Update(func(tx *store.Tx) error {
		for _, s := range unstale {
			cur, err := tx.Session(s[0], s[1])
			if err != nil {
				return err
			}
			if cur != nil {
				cur.Stale = nil
				if err := tx.PutSession(cur); err != nil {
					return err
				}
			}
		}
		for i, s := range list {
			if err := tx.ClearDirtySession(s[0], s[1], gens[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// storeTranscripts is writeTranscripts on a backend: the transcripts of
// the dirty sessions are rendered and stored in the store, in the
// transaction that takes the sessions off the queue. A session that no
// longer exists (forgotten, or emptied by a replace) loses its
// transcript.
func (w *writer) storeTranscripts(ctx context.Context, list [][2]string, gens []uint64) error {
	type rendered struct {
		file string
		data []byte
	}
	out := make([]*rendered, len(list))
	for i, s := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.reopenFor(s[0], s[1]); err != nil {
			return err
		}
		sess, data, _, err := w.renderTranscript(s[0], s[1])
		if err != nil {
			return fmt.Errorf("rendering transcript of session %q: %w", s[1], err)
		}
		if sess != nil {
			out[i] = &rendered{sess.File, data}
		}
	}
	return w.st.Update(func(tx *store.Tx) error {
		for i, s := range list {
			var err error
			if r := out[i]; r != nil {
				err = tx.PutTranscript(s[0], s[1], r.file, r.data)
			} else {
				err = tx.DeleteTranscript(s[0], s[1])
			}
			if err != nil {
				return err
			}
			if err := tx.ClearDirtySession(s[0], s[1], gens[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeTranscript renders one session's transcript into place and removes
// the files it moved out of. It returns the file written ("" for a
// session the store no longer has) and whether stale files were removed.
// A sealed week that the change touches must be reopened first (see
// reopenFor).
func (w *writer) writeTranscript(ns, session string) (string, bool, error) {
	sess, data, _, err := w.renderTranscript(ns, session)
	if err != nil || sess == nil {
		return "", false, err
	}
	path := filepath.Join(w.sessionsRoot(), filepath.FromSlash(sess.File))
	if err := replaceFile(path, data); err != nil {
		return "", false, err
	}
	for _, f := range sess.Stale {
		if err := os.Remove(filepath.Join(w.sessionsRoot(), filepath.FromSlash(f))); err != nil && !os.IsNotExist(err) {
			return "", false, err
		}
	}
	return path, len(sess.Stale) > 0, nil
}

// transcriptWriters is how many transcripts writeTranscripts writes at
// once.
const transcriptWriters = 2

// removeTranscripts deletes the transcript files of sessions that a
// replace or prune emptied. A failure leaves a stray file, not a wrong
// store, so it is ignored.
func removeTranscripts(root string, plans []*sessionPlan) {
	for _, p := range plans {
		if len(p.msgs) > 0 || p.oldSession == nil {
			continue
		}
		for _, f := range append([]string{p.oldSession.File}, p.oldSession.Stale...) {
			if f == "" {
				continue
			}
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				continue
			}
		}
	}
}
