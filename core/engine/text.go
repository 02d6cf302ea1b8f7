package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
)

// hydrate turns a stored chunk into a core chunk with its messages' text.
func (s *shared) hydrate(tx *store.Tx, c *store.Chunk) (*core.Chunk, error) {
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
			if m.Text, err = s.sealedText(tx, sm); err != nil {
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
func (s *shared) sealedText(tx *store.Tx, m *store.Message) (string, error) {
	v, err := s.sealedView(tx, m.NS, m.Session)
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
// transaction resolves; see [reader.expand].
var errSealedRead = errors.New("reading a sealed week")

// sessionsRoot is the folder that holds the transcripts.
func (s *shared) sessionsRoot() string { return filepath.Join(s.home, sessionsDir) }

// renderTranscript renders a session's transcript from the store. It
// returns the session record (nil if the store has no such session) and
// whether any of its messages are sealed.
func (s *shared) renderTranscript(ns, session string) (*store.Session, []byte, bool, error) {
	var sess *store.Session
	var msgs []core.Message
	sealed := false
	err := s.st.View(func(tx *store.Tx) error {
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
				if m.Text, err = s.sealedText(tx, sm); err != nil {
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

// doc builds the index document of a stored chunk: its own text and
// reply. Its neighbours count at query time (see neighbours.go).
func (s *shared) doc(tx *store.Tx, c *store.Chunk) (index.Doc, error) {
	chunk, err := s.hydrate(tx, c)
	if err != nil {
		return index.Doc{}, err
	}
	return docOf(c, chunk), nil
}

// docOf builds the index document of stored chunk c from chunk, c with
// its messages.
func docOf(c *store.Chunk, chunk *core.Chunk) index.Doc {
	text, reply := splitRoles(chunk)
	return index.Doc{
		ID: c.ID, NS: c.NS, Session: c.Session, Time: chunk.Time, Text: text, Reply: reply,
		Roles: c.Roles, Speakers: c.Speakers, Topic: c.Topic, Types: chunk.MemoryTypes(),
	}
}

// splitRoles returns a chunk's content without its assistant messages, and
// the assistant messages' text: the index keeps them in separate fields
// (see [index.Doc]). A chunk without messages, or without assistant
// messages, is all text.
func splitRoles(c *core.Chunk) (text, reply string) {
	if c.Text != "" {
		return c.Text, ""
	}
	var t, r strings.Builder
	for i := range c.Messages {
		m := &c.Messages[i]
		b := &t
		if m.Role == core.RoleAssistant {
			b = &r
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if w := m.Who(); w != "" {
			b.WriteString(w)
			b.WriteString(": ")
		}
		b.WriteString(m.Text)
	}
	return t.String(), r.String()
}
