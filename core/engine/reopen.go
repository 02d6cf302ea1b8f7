package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core/store"
)

// reopenFor re-opens the sealed weeks that writing a session's transcript
// would change: the week of its file, the weeks of the files it moved out
// of, and the week that holds its sealed messages. An archive left beside
// an open week (by a crash after a re-open's transaction, or before a
// seal's) is removed: the store and the loose files hold everything in it,
// and the transcript is about to change.
func (w *writer) reopenFor(ns, session string) error {
	var weeks, open []string
	err := w.st.View(func(tx *store.Tx) error {
		sess, err := tx.Session(ns, session)
		if err != nil || sess == nil {
			return err
		}
		add := func(week string) error {
			if slices.Contains(weeks, week) || slices.Contains(open, week) {
				return nil
			}
			wk, err := tx.Week(ns, week)
			if wk != nil {
				weeks = append(weeks, week)
			} else {
				open = append(open, week)
			}
			return err
		}
		for _, f := range append([]string{sess.File}, sess.Stale...) {
			if wk, ok := fileWeek(ns, f); ok {
				if err := add(wk.week); err != nil {
					return err
				}
			}
		}
		rec, err := tx.SealedSession(ns, session)
		if rec != nil {
			err = add(rec.Week)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, wk := range open {
		if w.backend != nil {
			break // no archive files beside open weeks
		}
		arch := filepath.Join(w.sessionsRoot(), filepath.FromSlash(archive.ArchiveFile(ns, wk)))
		if err := os.Remove(arch); err == nil {
			w.logf("huimem: removed %s, left by an interrupted seal; week %s is open", arch, wk)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, wk := range weeks {
		if err := w.reopenWeek(weekRef{ns, wk}); err != nil {
			return fmt.Errorf("re-opening sealed week %s%s: %wk", wk, nsSuffix(ns), err)
		}
	}
	return nil
}

// unsealWeekTx gives a sealed week's messages their text back from the
// archive and forgets the seal, in tx; with dirty, it queues the week's
// sessions for their transcripts (a backend stores them, a home has them
// unpacked already).
func (w *writer) unsealWeekTx(tx *store.Tx, wk weekRef, dirty bool) error {
	recs, err := tx.SealedSessions(wk.ns, wk.week)
	if err != nil {
		return err
	}
	for _, r := range recs {
		err := tx.UnsealSession(wk.ns, r.Session, func(m *store.Message) (string, error) { return w.sealedText(tx, m) })
		if err != nil {
			return err
		}
		if dirty {
			if err := tx.MarkSessionDirty(wk.ns, r.Session); err != nil {
				return err
			}
		}
	}
	return tx.DeleteWeek(wk.ns, wk.week)
}

// reopenWeek turns a sealed week back into loose files and stored text.
// The caller holds writeMu (or is Open).
func (w *writer) reopenWeek(ref weekRef) error {
	if w.backend != nil {
		return w.reopenWeekBackend(ref)
	}
	var wk *store.Week
	if err := w.st.View(func(tx *store.Tx) (err error) { wk, err = tx.Week(ref.ns, ref.week); return err }); err != nil || wk == nil {
		return err
	}
	root := w.sessionsRoot()
	arch := filepath.Join(root, filepath.FromSlash(wk.Archive))
	dir := filepath.Join(root, filepath.FromSlash(ref.dir()))
	w.cleanTemps(ref)
	// Step 1: unpack, checked, beside the folder, and move the files in.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), tmpPrefix+"reopen-"+ref.week+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	info, err := archive.Extract(arch, filepath.Join(tmp, "ref"), archive.ExtractOptions{MaxBytes: w.maxWeekBytes(), SHA256: wk.SHA256, Sync: true})
	if err != nil {
		return err
	}
	var moved []string
	for _, f := range info.Manifest.Files {
		dst := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(tmp, "ref", filepath.FromSlash(f.Path)), dst); err != nil {
			return err
		}
		moved = append(moved, dst)
	}
	if err := syncFiles(root, moved); err != nil {
		return err
	}
	if err := fault(stepReExtracted); err != nil {
		return err
	}
	// Step 2: the text goes back into the store.
	err = w.st.Update(func(tx *store.Tx) error { return w.unsealWeekTx(tx, ref, false) })
	if err != nil {
		return fmt.Errorf("restoring the text: %ref", err)
	}
	if err := fault(stepReCommitted); err != nil {
		return err
	}
	// Step 3.
	if err := os.Remove(arch); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return archive.SyncDir(filepath.Dir(arch))
}

// reopenWeekBackend is reopenWeek on a backend. The caller holds writeMu.
func (w *writer) reopenWeekBackend(ref weekRef) error {
	return w.st.Update(func(tx *store.Tx) error {
		wk, err := tx.Week(ref.ns, ref.week)
		if err != nil || wk == nil {
			return err
		}
		if err := w.unsealWeekTx(tx, ref, true); err != nil {
			return err
		}
		return tx.DeleteArchive(ref.ns, ref.week)
	})
}
