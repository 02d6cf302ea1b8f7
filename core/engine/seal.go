package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/timeparse"
)

// Sealing weeks.
//
// A finished week's folder, sessions/<week>/ (sessions/@<ns>/<week>/ for a
// namespace), is packed into sessions/<week>.tar.zst (see archive). Sealing
// a week, under writeMu, goes:
//
//  1. Bring the loose transcripts in line with the store: each session of
//     the week is rendered from the store, and a file that differs is
//     rewritten (the store is the source of truth).
//  2. Pack the folder into a temporary file beside the archive's place,
//     fsync it, rename it into place and fsync the folder.
//  3. Read the archive back from disk and check every file against the
//     manifest, and every transcript against the rendering of step 1.
//  4. In one store transaction, drop the text of the week's messages and
//     mark them Sealed, record where each session's transcript lives in the
//     archive, and record the week as sealed.
//  5. Remove the loose files.
//
// A crash before 4 leaves the loose files and an unsealed store (an archive
// left on disk is overwritten by the next seal); a crash after 4 leaves a
// verified archive, and the next seal removes what is left of the loose
// files. Readers never see a half-sealed week: until 4 commits they read
// text from the store, after it from the archive, which exists by then.
//
// A sealed week is re-opened when a transcript in it has to change (a late
// message, or a session that moves into or out of it): the archive's files
// are unpacked back into the folder (checked, fsynced), then one
// transaction gives the messages their text back and forgets the seal, and
// only then is the archive removed. A crash before the transaction leaves
// the week sealed with loose copies of its files; the transcript is still
// queued, so the next open re-opens the week again. The week is sealed
// again later, by auto_seal or `huimem archive seal`.

// sealFault, when a test sets it, is called at each step of sealing and
// re-opening; an error from it stops the work right there, as a crash
// would, without any clean-up.
var sealFault func(step string) error

func fault(step string) error {
	if sealFault != nil {
		return sealFault(step)
	}
	return nil
}

// The steps sealFault sees.
const (
	stepWritten     = "seal: archive written to a temporary file"
	stepRenamed     = "seal: archive renamed into place"
	stepVerified    = "seal: archive verified"
	stepCommitted   = "seal: store marked sealed"
	stepRemoving    = "seal: removing loose files"
	stepReExtracted = "reopen: files unpacked"
	stepReCommitted = "reopen: store unsealed"
)

// tmpPrefix starts the names of temporary files and folders.
const tmpPrefix = ".tmp-"

// stateSealed is the State of a sealed week with nothing left over.
const stateSealed = "sealed"

// SealOptions choose the weeks [Engine.Seal] packs.
type SealOptions struct {
	// Week names one ISO week, such as "2026-W47", sealed in every
	// namespace that has it. Empty means every finished week that has
	// transcripts to seal.
	Week string
	// Now is the current time, whose ISO week (in Now's location) is not
	// finished and is never sealed; zero means time.Now().
	Now time.Time
}

// seal is [Engine.Seal].
func (m *maintainer) seal(ctx context.Context, opts SealOptions) ([]WeekInfo, error) {
	if opts.Week != "" {
		if _, err := timeparse.ParseWeek(opts.Week); err != nil {
			return nil, fmt.Errorf("%w: %w", core.ErrInvalid, err)
		}
	}
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	if m.closed {
		return nil, core.ErrClosed
	}
	return m.sealLocked(ctx, opts, false)
}

// autoSeal seals the finished weeks after an ingest when archive.auto_seal
// is set. The caller holds writeMu.
func (m *maintainer) autoSeal(ctx context.Context) error {
	if !m.cfg.Archive.AutoSeal {
		return nil
	}
	if _, err := m.sealLocked(ctx, SealOptions{}, true); err != nil {
		return fmt.Errorf("the messages are stored, but sealing the finished weeks failed (run `huimem archive seal` to retry): %w", err)
	}
	return nil
}

func (m *maintainer) sealLocked(ctx context.Context, opts SealOptions, auto bool) ([]WeekInfo, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	current := timeparse.WeekOf(now).String()
	if opts.Week != "" && opts.Week >= current {
		return nil, fmt.Errorf("%w: week %s has not ended yet (this is %s)", core.ErrInvalid, opts.Week, current)
	}
	want := func(w weekRef) bool { return w.week < current && (opts.Week == "" || w.week == opts.Week) }
	onDisk, err := m.looseWeeks()
	if err != nil {
		return nil, err
	}
	var todo []weekRef
	for _, w := range onDisk {
		if want(w) {
			todo = append(todo, w)
		}
	}
	if auto && len(todo) == 0 {
		return nil, nil
	}
	// Late messages re-open their weeks here; the transcripts must be on
	// disk before their week is packed.
	if err := m.w.writeTranscripts(ctx); err != nil {
		return nil, err
	}
	// The sessions of each week, and weeks that have unsealed sessions
	// but no folder (someone removed it): they are sealed from the store.
	byWeek := map[weekRef][]*store.Session{}
	err = m.st.View(func(tx *store.Tx) error {
		return tx.ForEachSession(func(s *store.Session) error {
			w, ok := fileWeek(s.NS, s.File)
			if !ok {
				return fmt.Errorf("session %q has a transcript path %q outside any week folder", s.Session, s.File)
			}
			byWeek[w] = append(byWeek[w], s)
			if !want(w) || slices.Contains(todo, w) {
				return nil
			}
			if rec, err := tx.SealedSession(s.NS, s.Session); err != nil || rec != nil {
				return err
			}
			todo = append(todo, w)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(todo, func(a, b weekRef) int { return strings.Compare(a.ns+"\x00"+a.week, b.ns+"\x00"+b.week) })
	var out []WeekInfo
	for _, w := range todo {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		info, err := m.sealWeek(w, byWeek[w])
		if err != nil {
			return out, fmt.Errorf("sealing week %s%s: %w", w.week, nsSuffix(w.ns), err)
		}
		if info != nil {
			out = append(out, *info)
		}
	}
	return out, nil
}

// sealWeek seals one week whose sessions are given, in the five steps at
// the top of this file. It returns nil when there was nothing to seal. A
// week the store already records as sealed has only its leftover loose
// files checked and removed (finishSeal).
func (m *maintainer) sealWeek(w weekRef, sessions []*store.Session) (*WeekInfo, error) {
	if m.backend != nil {
		return m.sealWeekBackend(w, sessions)
	}
	wk, err := m.storedWeek(w)
	if err != nil {
		return nil, err
	}
	m.cleanTemps(w)
	p := m.sealPaths(w)
	if wk != nil {
		return m.finishSeal(w, wk, p.dir)
	}
	rendered, err := m.renderLoose(w, p, sessions)
	if err != nil || !hasFiles(p.dir) {
		return nil, err
	}
	info, err := m.writeArchive(w, p)
	if err != nil {
		return nil, err
	}
	check, err := m.verifySealed(p, info, rendered)
	if err != nil {
		return nil, err
	}
	if wk, err = m.commitSeal(w, p, info, sessions); err != nil {
		return nil, err
	}
	// Step 5.
	if err := m.removeLoose(p.dir, check.Manifest); err != nil {
		return nil, err
	}
	return weekInfo(wk), nil
}

// storedWeek returns the store's record of a sealed week, or nil if the
// week is not sealed.
func (m *maintainer) storedWeek(w weekRef) (*store.Week, error) {
	var wk *store.Week
	err := m.st.View(func(tx *store.Tx) (err error) { wk, err = tx.Week(w.ns, w.week); return err })
	return wk, err
}

// sealPaths are the places one week's seal works in.
type sealPaths struct {
	root    string // the sessions folder
	dir     string // the week's folder of loose transcripts
	archRel string // the archive, relative to root, slash-separated
	arch    string // the archive
}

func (m *maintainer) sealPaths(w weekRef) sealPaths {
	root := m.sessionsRoot()
	rel := archive.ArchiveFile(w.ns, w.week)
	return sealPaths{
		root: root, dir: filepath.Join(root, filepath.FromSlash(w.dir())),
		archRel: rel, arch: filepath.Join(root, filepath.FromSlash(rel)),
	}
}

// renderLoose is step 1: it makes the week's loose transcripts what the
// store renders, rewriting (and flushing) the files that differ. It
// returns each transcript's SHA-256, by path in the week folder.
func (m *maintainer) renderLoose(w weekRef, p sealPaths, sessions []*store.Session) (map[string]string, error) {
	if err := removeTemps(p.dir); err != nil {
		return nil, err
	}
	var written []string
	rendered, err := m.renderWeek(w, sessions, func(rel string, data []byte) error {
		file := filepath.Join(p.dir, filepath.FromSlash(rel))
		cur, err := os.ReadFile(file)
		if err == nil && bytes.Equal(cur, data) {
			return nil
		}
		if err == nil {
			m.logf("huimem: %s differed from the store; sealing the store's version", filepath.Join(sessionsDir, filepath.FromSlash(w.dir()+"/"+rel)))
		}
		if err := replaceFile(file, data); err != nil {
			return err
		}
		written = append(written, file)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := syncFiles(p.root, written); err != nil {
		return nil, fmt.Errorf("flushing transcripts: %w", err)
	}
	return rendered, nil
}

// renderWeek renders the transcript of each of a week's sessions from the
// store and hands it to each with its path in the week folder; it returns
// each transcript's SHA-256 by that path. A session with messages sealed
// in another week cannot be packed.
func (m *maintainer) renderWeek(w weekRef, sessions []*store.Session, each func(rel string, data []byte) error) (map[string]string, error) {
	rendered := map[string]string{}
	for _, s := range sessions {
		rel := strings.TrimPrefix(s.File, w.dir()+"/")
		_, data, sealed, err := m.renderTranscript(s.NS, s.Session)
		if err != nil {
			return nil, err
		}
		if sealed {
			return nil, fmt.Errorf("session %q still has messages sealed in another week", s.Session)
		}
		sum := sha256.Sum256(data)
		rendered[rel] = hex.EncodeToString(sum[:])
		if err := each(rel, data); err != nil {
			return nil, err
		}
	}
	return rendered, nil
}

// writeArchive is step 2: it packs the week folder into a temporary file
// beside the archive's place, flushes it, renames it into place and
// flushes the folder.
func (m *maintainer) writeArchive(w weekRef, p sealPaths) (*archive.Info, error) {
	parent := filepath.Dir(p.arch)
	tmp, err := os.CreateTemp(parent, tmpPrefix+filepath.Base(p.arch)+"-*")
	if err != nil {
		return nil, err
	}
	info, err := archive.Write(tmp, p.dir, archive.WriteOptions{Namespace: w.ns, Week: w.week, Level: m.cfg.Archive.Level, MaxBytes: m.maxWeekBytes()})
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	if err := fault(stepWritten); err != nil {
		return nil, err // as a crash would: the next seal removes the file
	}
	if err := os.Rename(tmp.Name(), p.arch); err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	if err := archive.SyncDir(parent); err != nil {
		return nil, err
	}
	return info, fault(stepRenamed)
}

// verifySealed is step 3: it reads the archive back from disk and checks
// it is the one written, holding the transcripts step 1 rendered.
func (m *maintainer) verifySealed(p sealPaths, info *archive.Info, rendered map[string]string) (*archive.Info, error) {
	check, err := archive.Verify(p.arch, m.maxWeekBytes())
	if err != nil {
		return nil, err
	}
	if check.SHA256 != info.SHA256 || check.Bytes != info.Bytes {
		return nil, fmt.Errorf("archive %s changed after it was written", p.arch)
	}
	for rel, sum := range rendered {
		if f := check.Manifest.File(rel); f == nil || f.SHA256 != sum {
			return nil, fmt.Errorf("archive %s: %s does not hold the transcript rendered from the store", p.arch, rel)
		}
	}
	return check, fault(stepVerified)
}

// newWeek is the record of a week sealed into the archive info
// describes, under a new random seal id.
func newWeek(w weekRef, archRel string, info *archive.Info, sessions int) *store.Week {
	var b [8]byte
	rand.Read(b[:])
	return &store.Week{
		NS: w.ns, Week: w.week, Seal: binary.LittleEndian.Uint64(b[:]),
		Archive: archRel, SHA256: info.SHA256, ArchiveBytes: info.Bytes,
		RawBytes: info.Manifest.Size(), Files: len(info.Manifest.Files), Sessions: sessions,
		SealedAt: time.Now().Format(time.RFC3339Nano),
	}
}

// commitSeal is step 4: one store transaction drops the text of the
// week's messages, records where each session's transcript lives in the
// archive, and records the week as sealed under a new random seal id.
func (m *maintainer) commitSeal(w weekRef, p sealPaths, info *archive.Info, sessions []*store.Session) (*store.Week, error) {
	wk := newWeek(w, p.archRel, info, len(sessions))
	err := m.st.Update(func(tx *store.Tx) error {
		for _, s := range sessions {
			rec := &store.SealedSession{NS: w.ns, Session: s.Session, Week: w.week, Seal: wk.Seal, File: strings.TrimPrefix(s.File, w.dir()+"/")}
			if err := tx.SealSession(rec); err != nil {
				return err
			}
		}
		return tx.PutWeek(wk)
	})
	if err != nil {
		return nil, fmt.Errorf("recording the seal: %w", err)
	}
	return wk, fault(stepCommitted)
}

// finishSeal completes a seal whose loose files were not all removed: the
// files left must be copies of the archive's.
func (m *maintainer) finishSeal(w weekRef, wk *store.Week, dir string) (*WeekInfo, error) {
	if !hasFiles(dir) {
		return nil, nil
	}
	arch := filepath.Join(m.sessionsRoot(), filepath.FromSlash(wk.Archive))
	check, err := archive.Verify(arch, m.maxWeekBytes())
	if err != nil {
		return nil, err
	}
	if check.SHA256 != wk.SHA256 {
		return nil, fmt.Errorf("archive %s is not the one recorded when the week was sealed", arch)
	}
	if err := removeTemps(dir); err != nil {
		return nil, err
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		f := check.Manifest.File(rel)
		if !d.Type().IsRegular() || f == nil {
			return fmt.Errorf("%s is in sealed week %s but not in its archive; move it away and seal again", p, w.week)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != f.SHA256 {
			return fmt.Errorf("%s differs from its copy in the archive of sealed week %s; move it away and seal again", p, w.week)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := m.removeLoose(dir, check.Manifest); err != nil {
		return nil, err
	}
	return weekInfo(wk), nil
}

// removeLoose removes a sealed week's loose files, then its empty folders.
// It does not flush the removals: files a crash brings back are copies of
// the archive's, which the next seal checks and removes (finishSeal).
func (m *maintainer) removeLoose(dir string, man *archive.Manifest) error {
	for i, f := range man.Files {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f.Path))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if i == 0 {
			if err := fault(stepRemoving); err != nil {
				return err
			}
		}
	}
	removeEmptyDirs(dir)
	return nil
}
