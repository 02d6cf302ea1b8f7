package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// hydrate turns a stored chunk into a core chunk with its messages' text.
func (e *Engine) hydrate(tx *store.Tx, c *store.Chunk) (*core.Chunk, error) {
	out, err := chunkHead(c)
	if err != nil {
		return nil, err
	}
	out.Messages = make([]core.Message, 0, len(c.Msgs))
	for _, ref := range c.Msgs {
		sm, err := tx.Message(c.NS, c.Session, ref)
		if err != nil {
			return nil, fmt.Errorf("chunk %s: %w", c.ID, err)
		}
		m, err := sm.Core()
		if err != nil {
			return nil, err
		}
		if sm.Sealed {
			if m.Text, err = e.sealedText(tx, sm); err != nil {
				return nil, fmt.Errorf("chunk %s: %w", c.ID, err)
			}
		}
		out.Messages = append(out.Messages, m)
	}
	return out, nil
}

// chunkHead turns a stored chunk into a core chunk without its messages.
func chunkHead(c *store.Chunk) (*core.Chunk, error) {
	out := &core.Chunk{
		Anchor:    core.Anchor{ID: c.ID, Prev: c.Prev, Next: c.Next},
		Namespace: c.NS, Session: c.Session, File: c.File,
		LineStart: c.LineStart, LineEnd: c.LineEnd, Section: c.Section,
		Topic: c.Topic, Memories: c.Memories, Text: c.Text,
	}
	var err error
	if out.Time, err = time.Parse(time.RFC3339Nano, c.Time); err != nil {
		return nil, fmt.Errorf("chunk %s: bad time: %w", c.ID, err)
	}
	if out.End, err = time.Parse(time.RFC3339Nano, c.End); err != nil {
		return nil, fmt.Errorf("chunk %s: bad end time: %w", c.ID, err)
	}
	return out, nil
}

// sealedText returns the text of a message whose week has been sealed: the
// lines its position spans in the session's transcript inside the week's
// archive, read through the decompressed-week cache. The positions are
// those of the session's sealed messages, in store order, as
// [transcript.Layout] places them; messages that arrived after the seal are
// not sealed and do not count. Safe for concurrent use.
func (e *Engine) sealedText(tx *store.Tx, m *store.Message) (string, error) {
	v, err := e.sealedView(tx, m.NS, m.Session)
	if err != nil {
		return "", fmt.Errorf("message %d of session %q: %w: %w", m.Seq, m.Session, errSealedRead, err)
	}
	p, ok := v.pos[m.Seq]
	if !ok {
		return "", fmt.Errorf("message %d of session %q is not in its sealed transcript", m.Seq, m.Session)
	}
	return strings.Join(v.lines[p.TextStart-1:p.TextEnd], "\n"), nil
}

// errSealedRead marks a failure to read a sealed week's text. Within one
// read transaction it may be a race with a re-seal of that week (the
// snapshot names the old archive, the file is the new one), which a fresh
// transaction resolves; see [Engine.expand].
var errSealedRead = errors.New("reading a sealed week")

// sessionsRoot is the folder that holds the transcripts.
func (e *Engine) sessionsRoot() string { return filepath.Join(e.home, sessionsDir) }

// transcriptRelease is how many transcripts are written between two
// releases of the store's map.
const transcriptRelease = 256

// writeTranscripts rewrites the transcripts of the sessions queued as
// dirty and removes files that sessions moved out of. Each file is replaced
// atomically (temporary file, rename); the files are flushed to disk
// together, and only then are the sessions taken off the queue, so a crash
// at any point leaves them queued and they are written again on open.
func (e *Engine) writeTranscripts(ctx context.Context) error {
	var list [][2]string
	var gens []uint64
	e.st.View(func(tx *store.Tx) error {
		list, gens = tx.DirtySessions()
		return nil
	})
	if len(list) == 0 {
		return nil
	}
	if e.backend != nil {
		return e.storeTranscripts(ctx, list, gens)
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
			e.st.ReleaseMapped()
		}
		if err := e.reopenFor(s[0], s[1]); err != nil {
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
					e.st.ReleaseMapped()
				}
				o := &out[i]
				o.file, o.stale, o.err = e.writeTranscript(list[i][0], list[i][1])
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
			e.logf("huimem: warning: transcripts not written (%v); the messages are stored and recallable, and the transcripts are written once %s is writable", o.err, e.sessionsRoot())
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
	if err := syncFiles(e.sessionsRoot(), written); err != nil {
		return fmt.Errorf("flushing transcripts: %w", err)
	}
	return e.st.Update(func(tx *store.Tx) error {
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
func (e *Engine) storeTranscripts(ctx context.Context, list [][2]string, gens []uint64) error {
	type rendered struct {
		file string
		data []byte
	}
	out := make([]*rendered, len(list))
	for i, s := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := e.reopenFor(s[0], s[1]); err != nil {
			return err
		}
		sess, data, _, err := e.renderTranscript(s[0], s[1])
		if err != nil {
			return fmt.Errorf("rendering transcript of session %q: %w", s[1], err)
		}
		if sess != nil {
			out[i] = &rendered{sess.File, data}
		}
	}
	return e.st.Update(func(tx *store.Tx) error {
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

// Transcript returns a session's markdown transcript and its path under
// the sessions folder, as the engine last wrote it: from the home's
// sessions/ folder, or from the backend's store. It fails with
// core.ErrNotFound when there is none.
func (e *Engine) Transcript(ctx context.Context, ns, session string) (file string, data []byte, err error) {
	err = e.st.View(func(tx *store.Tx) error {
		if e.backend != nil {
			var ok bool
			var err error
			if file, data, ok, err = tx.Transcript(ns, session); err != nil || ok {
				return err
			}
			return fmt.Errorf("transcript of session %q: %w", session, core.ErrNotFound)
		}
		sess, err := tx.Session(ns, session)
		if err != nil {
			return err
		}
		if sess == nil {
			return fmt.Errorf("transcript of session %q: %w", session, core.ErrNotFound)
		}
		file = sess.File
		return nil
	})
	if err != nil || e.backend != nil {
		return file, data, err
	}
	data, err = os.ReadFile(filepath.Join(e.sessionsRoot(), filepath.FromSlash(file)))
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("transcript of session %q: %w", session, core.ErrNotFound)
	}
	return file, data, err
}

// writeTranscript renders one session's transcript into place and removes
// the files it moved out of. It returns the file written ("" for a
// session the store no longer has) and whether stale files were removed.
// A sealed week that the change touches must be reopened first (see
// reopenFor).
func (e *Engine) writeTranscript(ns, session string) (string, bool, error) {
	sess, data, _, err := e.renderTranscript(ns, session)
	if err != nil || sess == nil {
		return "", false, err
	}
	path := filepath.Join(e.sessionsRoot(), filepath.FromSlash(sess.File))
	if err := replaceFile(path, data); err != nil {
		return "", false, err
	}
	for _, f := range sess.Stale {
		if err := os.Remove(filepath.Join(e.sessionsRoot(), filepath.FromSlash(f))); err != nil && !os.IsNotExist(err) {
			return "", false, err
		}
	}
	return path, len(sess.Stale) > 0, nil
}

// transcriptWriters is how many transcripts writeTranscripts writes at
// once.
const transcriptWriters = 2

// renderTranscript renders a session's transcript from the store. It
// returns the session record (nil if the store has no such session) and
// whether any of its messages are sealed.
func (e *Engine) renderTranscript(ns, session string) (*store.Session, []byte, bool, error) {
	var sess *store.Session
	var msgs []core.Message
	sealed := false
	err := e.st.View(func(tx *store.Tx) error {
		var err error
		if sess, err = tx.Session(ns, session); err != nil || sess == nil {
			return err
		}
		stored, _, err := tx.SessionMessages(ns, session)
		if err != nil {
			return err
		}
		for _, sm := range stored {
			m, err := sm.Core()
			if err != nil {
				return err
			}
			if sm.Sealed {
				sealed = true
				if m.Text, err = e.sealedText(tx, sm); err != nil {
					return err
				}
			}
			msgs = append(msgs, m)
		}
		return nil
	})
	if err != nil || sess == nil {
		return nil, nil, false, err
	}
	var buf bytes.Buffer
	if err := transcript.Render(&buf, ns, session, msgs); err != nil {
		return nil, nil, false, err
	}
	return sess, buf.Bytes(), sealed, nil
}

// replaceFile writes data to a temporary file beside path and renames it
// into place, so that readers see the old file or the new one, never a
// mix. It does not flush; see syncFiles.
func replaceFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
