package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/archive/transcript"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/timeparse"
)

// WeekInfo describes one week of one namespace's transcripts.
type WeekInfo struct {
	Namespace string `json:"namespace"`
	Week      string `json:"week"`
	// State is "sealed", "open", or, after an interrupted seal or
	// re-open, "sealed, loose files left" or "open, stale archive"; the
	// next seal tidies both.
	State  string `json:"state"`
	Sealed bool   `json:"sealed"`
	// Archive is the archive's path relative to the sessions folder.
	Archive string `json:"archive,omitempty"`
	// Files and RawBytes count the week's files and their size;
	// ArchiveBytes is the archive's size and Ratio RawBytes/ArchiveBytes.
	Files        int     `json:"files"`
	RawBytes     int64   `json:"raw_bytes"`
	ArchiveBytes int64   `json:"archive_bytes,omitempty"`
	Ratio        float64 `json:"ratio,omitempty"`
	// LooseFiles and LooseBytes count the files in the week's folder.
	LooseFiles int       `json:"loose_files"`
	LooseBytes int64     `json:"loose_bytes"`
	SealedAt   time.Time `json:"sealed_at,omitzero"`
}

// weekRef names one namespace's week.
type weekRef struct{ ns, week string }

func (w weekRef) dir() string { return transcript.SessionDir(w.ns, w.week) }

func nsSuffix(ns string) string {
	if ns == "" {
		return ""
	}
	return fmt.Sprintf(" of namespace %q", ns)
}

// fileWeek returns the week whose folder holds a transcript path.
func fileWeek(ns, file string) (weekRef, bool) {
	dir := path.Dir(path.Dir(file))
	w := weekRef{ns: ns, week: path.Base(dir)}
	if !isWeekName(w.week) || dir != w.dir() {
		return weekRef{}, false
	}
	return w, true
}

// looseWeeks lists the week folders on disk that hold files.
func (s *shared) looseWeeks() ([]weekRef, error) {
	if s.backend != nil {
		loose, err := s.storedLoose()
		var out []weekRef
		for w := range loose {
			out = append(out, w)
		}
		return out, err
	}
	var out []weekRef
	root := s.sessionsRoot()
	scan := func(ns, dir string) error {
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, d := range ents {
			if !d.IsDir() {
				continue
			}
			if isWeekName(d.Name()) && hasFiles(filepath.Join(dir, d.Name())) {
				out = append(out, weekRef{ns, d.Name()})
			}
		}
		return nil
	}
	if err := scan("", root); err != nil {
		return nil, err
	}
	ents, _ := os.ReadDir(root)
	for _, d := range ents {
		if ns, ok := strings.CutPrefix(d.Name(), "@"); ok && d.IsDir() && ns != "" && core.ValidateNamespace(ns) == nil {
			if err := scan(ns, filepath.Join(root, d.Name())); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// storedLoose is looseWeeks on a backend: the weeks whose transcripts
// the store holds (those of sealed sessions are in the archives), with
// their count and size.
func (s *shared) storedLoose() (map[weekRef][2]int64, error) {
	out := map[weekRef][2]int64{}
	err := s.st.View(func(tx *store.Tx) error {
		return tx.ForEachSession(func(sess *store.Session) error {
			_, data, ok, err := tx.Transcript(sess.NS, sess.Session)
			if err != nil || !ok {
				return err
			}
			if w, ok := fileWeek(sess.NS, sess.File); ok {
				c := out[w]
				out[w] = [2]int64{c[0] + 1, c[1] + int64(len(data))}
			}
			return nil
		})
	})
	return out, err
}

// hasFiles reports whether there is anything but folders under dir.
func hasFiles(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// treeFiles counts the regular files under dir and their size.
func treeFiles(dir string) (int, int64) {
	n, size := 0, int64(0)
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n++
				size += fi.Size()
			}
		}
		return nil
	})
	return n, size
}

func (s *shared) maxWeekBytes() int64 { return int64(s.cfg.Archive.MaxWeekMB) << 20 }

// cleanTemps removes what a crash while sealing or re-opening a week left
// beside its folder: a temporary archive, a temporary unpacked copy.
func (s *shared) cleanTemps(w weekRef) {
	parent := filepath.Dir(filepath.Join(s.sessionsRoot(), filepath.FromSlash(w.dir())))
	for _, pattern := range []string{tmpPrefix + w.week + archive.Ext + "-*", tmpPrefix + "reopen-" + w.week + "-*"} {
		matches, _ := filepath.Glob(filepath.Join(parent, pattern))
		for _, m := range matches {
			os.RemoveAll(m)
		}
	}
}

// removeTemps removes the temporary files a crash left in a week folder
// (replaceFile writes ".tmp-*" beside its target).
func removeTemps(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), tmpPrefix) {
			return os.Remove(p)
		}
		return nil
	})
}

func weekInfo(wk *store.Week) *WeekInfo {
	info := &WeekInfo{
		Namespace: wk.NS, Week: wk.Week, State: stateSealed, Sealed: true, Archive: wk.Archive,
		Files: wk.Files, RawBytes: wk.RawBytes, ArchiveBytes: wk.ArchiveBytes, SealedAt: wk.SealedAtTime(),
	}
	if wk.ArchiveBytes > 0 {
		info.Ratio = float64(wk.RawBytes) / float64(wk.ArchiveBytes)
	}
	return info
}

// archiveFiles lists the week archives on disk.
func (s *shared) archiveFiles() ([]weekRef, error) {
	var out []weekRef
	root := s.sessionsRoot()
	scan := func(ns, dir string) {
		ents, _ := os.ReadDir(dir)
		for _, d := range ents {
			week, ok := strings.CutSuffix(d.Name(), archive.Ext)
			if ok && isWeekName(week) && d.Type().IsRegular() {
				out = append(out, weekRef{ns, week})
			}
		}
	}
	scan("", root)
	ents, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, d := range ents {
		if ns, ok := strings.CutPrefix(d.Name(), "@"); ok && d.IsDir() && core.ValidateNamespace(ns) == nil {
			scan(ns, filepath.Join(root, d.Name()))
		}
	}
	return out, nil
}

// isWeekName reports whether s names an ISO week exactly as folders do
// ("2026-W47").
func isWeekName(s string) bool {
	w, err := timeparse.ParseWeek(s)
	return err == nil && w.String() == s
}
