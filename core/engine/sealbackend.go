package engine

// Sealing on a backend. The week is packed from the store's
// rendering of its transcripts in a temporary folder, and one store
// transaction records the seal, drops the messages' text, stores the
// archive's bytes and drops the stored transcripts the archive now holds:
// there are no loose files, so a crash leaves the week sealed or not,
// never half of each. A server reads a sealed week from a copy of the
// stored archive in its cache folder (archivePath), written on first use
// and named by the archive's SHA-256, so a copy is never stale.
// Re-opening is one transaction too: the text goes back into the store,
// the week's records and archive go, and the sessions are queued for
// their transcripts.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core/store"
)

// sealWeekBackend is sealWeek on a backend.
func (m *maintainer) sealWeekBackend(w weekRef, sessions []*store.Session) (*WeekInfo, error) {
	if wk, err := m.storedWeek(w); err != nil || wk != nil || len(sessions) == 0 {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "huimem-seal-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "week")
	rendered, err := m.renderWeek(w, sessions, func(rel string, data []byte) error {
		file := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return err
		}
		return os.WriteFile(file, data, 0o600)
	})
	if err != nil {
		return nil, err
	}
	arch := filepath.Join(tmp, w.week+archive.Ext)
	f, err := os.Create(arch)
	if err != nil {
		return nil, err
	}
	info, err := archive.Write(f, dir, archive.WriteOptions{Namespace: w.ns, Week: w.week, Level: m.cfg.Archive.Level, MaxBytes: m.maxWeekBytes()})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	p := sealPaths{archRel: archive.ArchiveFile(w.ns, w.week), arch: arch}
	if _, err := m.verifySealed(p, info, rendered); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(arch)
	if err != nil {
		return nil, err
	}
	wk := newWeek(w, p.archRel, info, len(sessions))
	err = m.st.Update(func(tx *store.Tx) error {
		for _, s := range sessions {
			rec := &store.SealedSession{NS: w.ns, Session: s.Session, Week: w.week, Seal: wk.Seal, File: strings.TrimPrefix(s.File, w.dir()+"/")}
			if err := tx.SealSession(rec); err != nil {
				return err
			}
			if err := tx.DeleteTranscript(s.NS, s.Session); err != nil {
				return err
			}
		}
		if err := tx.PutArchive(w.ns, w.week, data); err != nil {
			return err
		}
		return tx.PutWeek(wk)
	})
	if err != nil {
		return nil, fmt.Errorf("recording the seal: %w", err)
	}
	return weekInfo(wk), nil
}
