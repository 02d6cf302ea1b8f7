package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/huimemory/huimemory/core/store"
)

// The crash-safe half of forgetting: the pending-forget marker (step 2 in
// forget.go) and finishing a forget (step 4), also at Open.

// forgetPendingKey is the meta key of the pending-forget marker.
const forgetPendingKey = "forget_pending"

// forgetPending is the marker: the weeks of a namespace that were sealed
// when the forget began.
type forgetPending struct {
	NS    string   `json:"ns,omitempty"`
	Weeks []string `json:"weeks,omitempty"`
}

// markForget records the pending-forget marker with the sealed weeks of
// namespace ns.
func (m *maintainer) markForget(ns string) error {
	return m.st.Update(func(tx *store.Tx) error {
		p := forgetPending{NS: ns}
		err := tx.ForEachWeek(func(wk *store.Week) error {
			if wk.NS == ns {
				p.Weeks = append(p.Weeks, wk.Week)
			}
			return nil
		})
		if err != nil {
			return err
		}
		data, err := json.Marshal(p)
		if err != nil {
			return err
		}
		return tx.SetMeta(forgetPendingKey, data)
	})
}

// tidyForgotten forgets the closed marks of the sessions a forget emptied,
// and returns how many it emptied.
func (m *maintainer) tidyForgotten(sessions [][2]string) (int, error) {
	n := 0
	err := m.st.Update(func(tx *store.Tx) error {
		for _, sk := range sessions {
			s, err := tx.Session(sk[0], sk[1])
			if err != nil {
				return err
			}
			if s != nil {
				continue
			}
			n++
			if tx.Meta(closedKey(sk[0], sk[1])) != nil {
				if err := tx.DeleteMeta(closedKey(sk[0], sk[1])); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return n, err
}

// finishForget completes a forget whose messages are gone from the store
// (see step 4 at the top of this file), if the marker says one is
// pending. It returns the weeks it re-sealed and what compacting the store
// did. The caller holds writeMu.
func (m *maintainer) finishForget(ctx context.Context) ([]string, store.CompactStats, error) {
	var cs store.CompactStats
	var raw []byte
	m.st.View(func(tx *store.Tx) error { raw = tx.Meta(forgetPendingKey); return nil })
	if raw == nil {
		return nil, cs, nil
	}
	var p forgetPending
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, cs, fmt.Errorf("reading the pending forget: %w", err)
	}
	// Transcripts first: a week is sealed from the files on disk.
	if err := m.w.writeTranscripts(ctx); err != nil {
		return nil, cs, err
	}
	var resealed []string
	for _, week := range p.Weeks {
		w := weekRef{ns: p.NS, week: week}
		var sessions []*store.Session
		sealed := false
		err := m.st.View(func(tx *store.Tx) error {
			wk, err := tx.Week(w.ns, w.week)
			if err != nil || wk != nil {
				sealed = wk != nil
				return err
			}
			return tx.ForEachSession(func(s *store.Session) error {
				if fw, ok := fileWeek(s.NS, s.File); ok && fw == w {
					sessions = append(sessions, s)
				}
				return nil
			})
		})
		if err != nil {
			return resealed, cs, err
		}
		if sealed {
			continue
		}
		info, err := m.sealWeek(w, sessions)
		if err != nil {
			return resealed, cs, fmt.Errorf("re-sealing week %s%s: %w", w.week, nsSuffix(w.ns), err)
		}
		if info != nil {
			resealed = append(resealed, w.week)
		}
	}
	m.removeEmptyWeeks(p.NS)
	if m.backend != nil {
		// Nothing lingers in the backend's index; this server and the
		// others drop their caches of vectors and their copies of sealed
		// weeks.
		m.dropArchiveCopies()
		return resealed, cs, m.st.Update(func(tx *store.Tx) error {
			if err := tx.Notify(store.VectorChannel, `"reset"`); err != nil {
				return err
			}
			return tx.DeleteMeta(forgetPendingKey)
		})
	}
	// The index: deleted documents linger in its segments.
	m.ixMu.Lock()
	if m.ix != nil {
		m.ix.Close()
		m.ix = nil
	}
	err := m.w.rebuildIndex(ctx)
	m.stale = err
	m.ixMu.Unlock()
	if err != nil {
		return resealed, cs, err
	}
	// The caches of decompressed weeks.
	views.clear()
	m.weekCache().Clear()
	if err := m.st.Update(func(tx *store.Tx) error { return tx.DeleteMeta(forgetPendingKey) }); err != nil {
		return resealed, cs, err
	}
	// The store file's free pages.
	cs, err = m.st.Compact(ctx)
	return resealed, cs, err
}

// removeEmptyWeeks removes the week folders of namespace ns that a forget
// left empty, and the namespace's folder if nothing is left in it.
func (m *maintainer) removeEmptyWeeks(ns string) {
	root := m.sessionsRoot()
	dir := root
	if ns != "" {
		dir = filepath.Join(root, "@"+ns)
	}
	ents, _ := os.ReadDir(dir)
	for _, d := range ents {
		if d.IsDir() && isWeekName(d.Name()) {
			removeEmptyDirs(filepath.Join(dir, d.Name()))
		}
	}
	if ns != "" {
		os.Remove(dir) // fails, harmlessly, if not empty
	}
}

// removeEmptyDirs removes dir and the folders under it that hold nothing.
func removeEmptyDirs(dir string) {
	var dirs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	slices.Reverse(dirs)
	for _, d := range dirs {
		os.Remove(d) // fails, harmlessly, if not empty
	}
}
