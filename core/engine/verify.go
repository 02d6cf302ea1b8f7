package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// ArchiveCheck is the result of verifying one week archive.
type ArchiveCheck struct {
	Namespace string `json:"namespace"`
	Week      string `json:"week"`
	// Archive is the archive's path relative to the sessions folder.
	Archive  string `json:"archive"`
	Files    int    `json:"files"`
	RawBytes int64  `json:"raw_bytes"`
	// Err is why the archive is bad, or nil.
	Err   error  `json:"-"`
	Error string `json:"error,omitempty"`
}

// verifyArchives is [Engine.VerifyArchives].
func (m *maintainer) verifyArchives(ctx context.Context) ([]ArchiveCheck, error) {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	if m.closed {
		return nil, core.ErrClosed
	}
	sealed := map[weekRef]*store.Week{}
	err := m.st.View(func(tx *store.Tx) error {
		return tx.ForEachWeek(func(wk *store.Week) error {
			sealed[weekRef{wk.NS, wk.Week}] = wk
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	onDisk, err := m.archiveFiles()
	if err != nil {
		return nil, err
	}
	for w := range sealed {
		if !slices.Contains(onDisk, w) {
			onDisk = append(onDisk, w)
		}
	}
	slices.SortFunc(onDisk, func(a, b weekRef) int { return strings.Compare(a.ns+"\x00"+a.week, b.ns+"\x00"+b.week) })
	var checks []ArchiveCheck
	var bad []string
	for _, w := range onDisk {
		if err := ctx.Err(); err != nil {
			return checks, err
		}
		rel := archive.ArchiveFile(w.ns, w.week)
		c := ArchiveCheck{Namespace: w.ns, Week: w.week, Archive: rel}
		c.Err = m.verifyOne(w, rel, sealed[w], &c)
		if c.Err != nil {
			c.Error = c.Err.Error()
			bad = append(bad, c.Error)
		}
		checks = append(checks, c)
	}
	if len(bad) > 0 {
		return checks, fmt.Errorf("%d of %d archives failed verification: %s", len(bad), len(checks), strings.Join(bad, "; "))
	}
	return checks, nil
}

func (m *maintainer) verifyOne(w weekRef, rel string, wk *store.Week, c *ArchiveCheck) error {
	p := filepath.Join(m.sessionsRoot(), filepath.FromSlash(rel))
	if m.backend != nil && wk != nil {
		// The stored archive, through a checked local copy.
		if err := m.st.View(func(tx *store.Tx) (err error) { p, err = m.archivePath(tx, wk); return err }); err != nil {
			return err
		}
	}
	info, err := archive.Verify(p, m.maxWeekBytes())
	if err != nil {
		return err
	}
	c.Files, c.RawBytes = len(info.Manifest.Files), info.Manifest.Size()
	if info.Manifest.Namespace != w.ns || info.Manifest.Week != w.week {
		return fmt.Errorf("archive %s: its manifest is for week %s of namespace %q", p, info.Manifest.Week, info.Manifest.Namespace)
	}
	if wk != nil && (info.SHA256 != wk.SHA256 || info.Bytes != wk.ArchiveBytes) {
		return fmt.Errorf("archive %s: %w: it is not the archive recorded when the week was sealed (sha256 %s, want %s)", p, archive.ErrCorrupt, info.SHA256, wk.SHA256)
	}
	return nil
}
