package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// SessionInfo describes one session.
type SessionInfo struct {
	Namespace string    `json:"namespace,omitempty"`
	Session   string    `json:"session"`
	First     time.Time `json:"first"`
	Last      time.Time `json:"last"`
	Messages  int       `json:"messages"`
	Chunks    int       `json:"chunks"`
	// File is the session's transcript under <home>/sessions/.
	File string `json:"file"`
	// Closed is set once [Engine.CloseSession] closed the session.
	Closed bool `json:"closed,omitempty"`
}

// closedKey is the meta key that marks a session closed.
func closedKey(ns, session string) string { return "closed\x00" + ns + "\x00" + session }

// Sessions lists the sessions of namespace ns, newest first (by their last
// message). It reads the store only; safe for concurrent use.
func (e *Engine) Sessions(ctx context.Context, ns string) ([]SessionInfo, error) {
	var out []SessionInfo
	err := e.st.View(func(tx *store.Tx) error {
		return tx.ForEachSession(func(s *store.Session) error {
			if s.NS != ns {
				return nil
			}
			info := SessionInfo{Namespace: s.NS, Session: s.Session, Messages: s.Count, Chunks: s.Chunks, File: s.File,
				Closed: tx.Meta(closedKey(s.NS, s.Session)) != nil}
			info.First, _ = time.Parse(time.RFC3339Nano, s.First)
			info.Last, _ = time.Parse(time.RFC3339Nano, s.Last)
			out = append(out, info)
			return ctx.Err()
		})
	})
	slices.SortFunc(out, func(a, b SessionInfo) int {
		if c := b.Last.Compare(a.Last); c != 0 {
			return c
		}
		return cmp.Compare(a.Session, b.Session)
	})
	return out, err
}

// Session returns one session's description, or an error wrapping
// core.ErrNotFound.
func (e *Engine) Session(ctx context.Context, ns, session string) (SessionInfo, error) {
	var info SessionInfo
	err := e.st.View(func(tx *store.Tx) error {
		s, err := tx.Session(ns, session)
		if err != nil {
			return err
		}
		if s == nil {
			return fmt.Errorf("session %q: %w in %s", session, core.ErrNotFound, nsName(ns))
		}
		info = SessionInfo{Namespace: s.NS, Session: s.Session, Messages: s.Count, Chunks: s.Chunks, File: s.File,
			Closed: tx.Meta(closedKey(ns, session)) != nil}
		info.First, _ = time.Parse(time.RFC3339Nano, s.First)
		info.Last, _ = time.Parse(time.RFC3339Nano, s.Last)
		return nil
	})
	return info, err
}

// SessionTurns returns the last n turn chunks of a session, oldest first
// (all of them when n <= 0), with their messages verbatim. An unknown
// session gives an error wrapping core.ErrNotFound. Safe for concurrent
// use.
func (e *Engine) SessionTurns(ctx context.Context, ns, session string, n int) ([]core.Chunk, error) {
	var out []core.Chunk
	err := e.st.View(func(tx *store.Tx) error {
		ids := tx.SessionChunkIDs(ns, session)
		if len(ids) == 0 {
			if s, err := tx.Session(ns, session); err != nil || s == nil {
				return fmt.Errorf("session %q: %w in %s", session, core.ErrNotFound, nsName(ns))
			}
		}
		if n > 0 && len(ids) > n {
			ids = ids[len(ids)-n:]
		}
		out = make([]core.Chunk, 0, len(ids))
		for _, id := range ids {
			c, err := tx.Chunk(id)
			if err != nil {
				return err
			}
			chunk, err := e.hydrate(tx, c)
			if err != nil {
				return err
			}
			out = append(out, *chunk)
		}
		return ctx.Err()
	})
	return out, err
}

// CloseSession marks a session closed: its turns stay stored and
// recallable, and [Engine.SessionClosed] reports it, so that a host (the
// takeover kernel) refuses further appends to it. Closing twice is not an
// error. An unknown session gives an error wrapping core.ErrNotFound.
func (e *Engine) CloseSession(ctx context.Context, ns, session string) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if err := e.writable(); err != nil {
		return err
	}
	return e.st.Update(func(tx *store.Tx) error {
		s, err := tx.Session(ns, session)
		if err != nil {
			return err
		}
		if s == nil {
			return fmt.Errorf("session %q: %w in %s", session, core.ErrNotFound, nsName(ns))
		}
		return tx.SetMeta(closedKey(ns, session), []byte(time.Now().UTC().Format(time.RFC3339)))
	})
}

// SessionClosed reports whether a session was closed.
func (e *Engine) SessionClosed(ctx context.Context, ns, session string) (bool, error) {
	closed := false
	err := e.st.View(func(tx *store.Tx) error {
		closed = tx.Meta(closedKey(ns, session)) != nil
		return nil
	})
	return closed, err
}
