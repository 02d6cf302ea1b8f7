package engine

import (
	"bytes"
	"container/list"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/huimemory/huimemory/timeparse"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
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

// Seal packs finished weeks into archives (see the comment at the top of
// this file for the steps) and returns what it sealed. It is a write: it
// waits for other writes, and recalls run on meanwhile, reading the week
// from the store or from its archive, never half of each.
func (e *Engine) Seal(ctx context.Context, opts SealOptions) ([]WeekInfo, error) {
	if opts.Week != "" {
		if _, err := timeparse.ParseWeek(opts.Week); err != nil {
			return nil, fmt.Errorf("%w: %w", core.ErrInvalid, err)
		}
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if e.closed {
		return nil, core.ErrClosed
	}
	return e.sealLocked(ctx, opts, false)
}

// autoSeal seals the finished weeks after an ingest when archive.auto_seal
// is set. The caller holds writeMu.
func (e *Engine) autoSeal(ctx context.Context) error {
	if !e.cfg.Archive.AutoSeal {
		return nil
	}
	if _, err := e.sealLocked(ctx, SealOptions{}, true); err != nil {
		return fmt.Errorf("the messages are stored, but sealing the finished weeks failed (run `huimem archive seal` to retry): %w", err)
	}
	return nil
}

// weekRef names one namespace's week.
type weekRef struct{ ns, week string }

func (w weekRef) dir() string { return transcript.SessionDir(w.ns, w.week) }

func (e *Engine) sealLocked(ctx context.Context, opts SealOptions, auto bool) ([]WeekInfo, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	current := timeparse.WeekOf(now).String()
	if opts.Week != "" && opts.Week >= current {
		return nil, fmt.Errorf("%w: week %s has not ended yet (this is %s)", core.ErrInvalid, opts.Week, current)
	}
	want := func(w weekRef) bool { return w.week < current && (opts.Week == "" || w.week == opts.Week) }
	onDisk, err := e.looseWeeks()
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
	if err := e.writeTranscripts(ctx); err != nil {
		return nil, err
	}
	// The sessions of each week, and weeks that have unsealed sessions
	// but no folder (someone removed it): they are sealed from the store.
	byWeek := map[weekRef][]*store.Session{}
	err = e.st.View(func(tx *store.Tx) error {
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
		info, err := e.sealWeek(w, byWeek[w])
		if err != nil {
			return out, fmt.Errorf("sealing week %s%s: %w", w.week, nsSuffix(w.ns), err)
		}
		if info != nil {
			out = append(out, *info)
		}
	}
	return out, nil
}

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
func (e *Engine) looseWeeks() ([]weekRef, error) {
	var out []weekRef
	root := e.sessionsRoot()
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

func (e *Engine) maxWeekBytes() int64 { return int64(e.cfg.Archive.MaxWeekMB) << 20 }

// sealWeek seals one week whose sessions are given. It returns nil when
// there was nothing to seal.
func (e *Engine) sealWeek(w weekRef, sessions []*store.Session) (*WeekInfo, error) {
	root := e.sessionsRoot()
	dir := filepath.Join(root, filepath.FromSlash(w.dir()))
	archRel := archive.ArchiveFile(w.ns, w.week)
	arch := filepath.Join(root, filepath.FromSlash(archRel))
	var wk *store.Week
	if err := e.st.View(func(tx *store.Tx) (err error) { wk, err = tx.Week(w.ns, w.week); return err }); err != nil {
		return nil, err
	}
	e.cleanTemps(w)
	if wk != nil {
		return e.finishSeal(w, wk, dir)
	}
	// Step 1: the loose transcripts are what the store renders.
	if err := removeTemps(dir); err != nil {
		return nil, err
	}
	rendered := map[string]string{} // path in the week folder → sha256
	var written []string
	for _, s := range sessions {
		rel := strings.TrimPrefix(s.File, w.dir()+"/")
		_, data, sealed, err := e.renderTranscript(s.NS, s.Session)
		if err != nil {
			return nil, err
		}
		if sealed {
			return nil, fmt.Errorf("session %q still has messages sealed in another week", s.Session)
		}
		sum := sha256.Sum256(data)
		rendered[rel] = hex.EncodeToString(sum[:])
		p := filepath.Join(dir, filepath.FromSlash(rel))
		cur, err := os.ReadFile(p)
		if err == nil && bytes.Equal(cur, data) {
			continue
		}
		if err == nil {
			e.logf("huimem: %s differed from the store; sealing the store's version", filepath.Join(sessionsDir, filepath.FromSlash(s.File)))
		}
		if err := replaceFile(p, data); err != nil {
			return nil, err
		}
		written = append(written, p)
	}
	if !hasFiles(dir) {
		return nil, nil
	}
	if err := syncFiles(root, written); err != nil {
		return nil, fmt.Errorf("flushing transcripts: %w", err)
	}
	// Step 2: write the archive beside its place, then rename it there.
	parent := filepath.Dir(arch)
	tmp, err := os.CreateTemp(parent, tmpPrefix+filepath.Base(arch)+"-*")
	if err != nil {
		return nil, err
	}
	info, err := archive.Write(tmp, dir, archive.WriteOptions{Namespace: w.ns, Week: w.week, Level: e.cfg.Archive.Level, MaxBytes: e.maxWeekBytes()})
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
		return nil, err
	}
	if err := os.Rename(tmp.Name(), arch); err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	if err := archive.SyncDir(parent); err != nil {
		return nil, err
	}
	if err := fault(stepRenamed); err != nil {
		return nil, err
	}
	// Step 3: read it back.
	check, err := archive.Verify(arch, e.maxWeekBytes())
	if err != nil {
		return nil, err
	}
	if check.SHA256 != info.SHA256 || check.Bytes != info.Bytes {
		return nil, fmt.Errorf("archive %s changed after it was written", arch)
	}
	for rel, sum := range rendered {
		if f := check.Manifest.File(rel); f == nil || f.SHA256 != sum {
			return nil, fmt.Errorf("archive %s: %s does not hold the transcript rendered from the store", arch, rel)
		}
	}
	if err := fault(stepVerified); err != nil {
		return nil, err
	}
	// Step 4: one transaction moves the text out of the store.
	var b [8]byte
	rand.Read(b[:])
	wk = &store.Week{
		NS: w.ns, Week: w.week, Seal: binary.LittleEndian.Uint64(b[:]),
		Archive: archRel, SHA256: info.SHA256, ArchiveBytes: info.Bytes,
		RawBytes: info.Manifest.Size(), Files: len(info.Manifest.Files), Sessions: len(sessions),
		SealedAt: time.Now().Format(time.RFC3339Nano),
	}
	err = e.st.Update(func(tx *store.Tx) error {
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
	if err := fault(stepCommitted); err != nil {
		return nil, err
	}
	// Step 5.
	if err := e.removeLoose(dir, check.Manifest); err != nil {
		return nil, err
	}
	return weekInfo(wk), nil
}

// finishSeal completes a seal whose loose files were not all removed: the
// files left must be copies of the archive's.
func (e *Engine) finishSeal(w weekRef, wk *store.Week, dir string) (*WeekInfo, error) {
	if !hasFiles(dir) {
		return nil, nil
	}
	arch := filepath.Join(e.sessionsRoot(), filepath.FromSlash(wk.Archive))
	check, err := archive.Verify(arch, e.maxWeekBytes())
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
	if err := e.removeLoose(dir, check.Manifest); err != nil {
		return nil, err
	}
	return weekInfo(wk), nil
}

// removeLoose removes a sealed week's loose files, then its empty folders.
// It does not flush the removals: files a crash brings back are copies of
// the archive's, which the next seal checks and removes (finishSeal).
func (e *Engine) removeLoose(dir string, m *archive.Manifest) error {
	for i, f := range m.Files {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f.Path))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if i == 0 {
			if err := fault(stepRemoving); err != nil {
				return err
			}
		}
	}
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
	return nil
}

// cleanTemps removes what a crash while sealing or re-opening a week left
// beside its folder: a temporary archive, a temporary unpacked copy.
func (e *Engine) cleanTemps(w weekRef) {
	parent := filepath.Dir(filepath.Join(e.sessionsRoot(), filepath.FromSlash(w.dir())))
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

// reopenFor re-opens the sealed weeks that writing a session's transcript
// would change: the week of its file, the weeks of the files it moved out
// of, and the week that holds its sealed messages. An archive left beside
// an open week (by a crash after a re-open's transaction, or before a
// seal's) is removed: the store and the loose files hold everything in it,
// and the transcript is about to change.
func (e *Engine) reopenFor(ns, session string) error {
	var weeks, open []string
	err := e.st.View(func(tx *store.Tx) error {
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
			if w, ok := fileWeek(ns, f); ok {
				if err := add(w.week); err != nil {
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
	for _, w := range open {
		arch := filepath.Join(e.sessionsRoot(), filepath.FromSlash(archive.ArchiveFile(ns, w)))
		if err := os.Remove(arch); err == nil {
			e.logf("huimem: removed %s, left by an interrupted seal; week %s is open", arch, w)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, w := range weeks {
		if err := e.reopenWeek(weekRef{ns, w}); err != nil {
			return fmt.Errorf("re-opening sealed week %s%s: %w", w, nsSuffix(ns), err)
		}
	}
	return nil
}

// reopenWeek turns a sealed week back into loose files and stored text.
// The caller holds writeMu (or is Open).
func (e *Engine) reopenWeek(w weekRef) error {
	var wk *store.Week
	if err := e.st.View(func(tx *store.Tx) (err error) { wk, err = tx.Week(w.ns, w.week); return err }); err != nil || wk == nil {
		return err
	}
	root := e.sessionsRoot()
	arch := filepath.Join(root, filepath.FromSlash(wk.Archive))
	dir := filepath.Join(root, filepath.FromSlash(w.dir()))
	e.cleanTemps(w)
	// Step 1: unpack, checked, beside the folder, and move the files in.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), tmpPrefix+"reopen-"+w.week+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	info, err := archive.Extract(arch, filepath.Join(tmp, "w"), archive.ExtractOptions{MaxBytes: e.maxWeekBytes(), SHA256: wk.SHA256, Sync: true})
	if err != nil {
		return err
	}
	var moved []string
	for _, f := range info.Manifest.Files {
		dst := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(tmp, "w", filepath.FromSlash(f.Path)), dst); err != nil {
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
	err = e.st.Update(func(tx *store.Tx) error {
		recs, err := tx.SealedSessions(w.ns, w.week)
		if err != nil {
			return err
		}
		for _, r := range recs {
			err := tx.UnsealSession(w.ns, r.Session, func(m *store.Message) (string, error) { return e.sealedText(tx, m) })
			if err != nil {
				return err
			}
		}
		return tx.DeleteWeek(w.ns, w.week)
	})
	if err != nil {
		return fmt.Errorf("restoring the text: %w", err)
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

// Reading sealed text.

// caches holds one decompressed-week cache per cache folder, shared by the
// engines of this process.
var (
	cachesMu sync.Mutex
	caches   = map[string]*archive.Cache{}
)

// weekCache returns the cache of decompressed weeks
// (storage.cache_dir, default <home>/cache).
func (e *Engine) weekCache() *archive.Cache {
	dir := e.cfg.Storage.CacheDir
	if dir == "" {
		dir = filepath.Join(e.home, "cache")
	}
	dir, _ = filepath.Abs(dir)
	cachesMu.Lock()
	defer cachesMu.Unlock()
	c := caches[dir]
	if c == nil {
		c = archive.NewCache(dir, archive.CacheOptions{
			TTL:          time.Duration(e.cfg.Storage.CacheTTLHours) * time.Hour,
			MaxBytes:     int64(e.cfg.Storage.CacheMaxMB) << 20,
			MaxWeekBytes: e.maxWeekBytes(),
		})
		caches[dir] = c
	}
	return c
}

// sealedView is a sealed session's transcript, split into lines, with the
// position of each sealed message.
type sealedView struct {
	lines []string
	pos   map[uint64]transcript.Position
	size  int
}

// views keeps recently used sealed views in memory, bounded by size. Keys
// carry the home and the week's random seal id, so a view never outlives
// the sealing it was made from.
var views = newViewLRU(64 << 20)

// sealedView returns a sealed session's transcript and the positions of its
// sealed messages; see sealedText.
func (e *Engine) sealedView(tx *store.Tx, ns, session string) (*sealedView, error) {
	rec, err := tx.SealedSession(ns, session)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("sealed, but no week records it")
	}
	key := fmt.Sprintf("%s\x00%d\x00%s\x00%s", e.home, rec.Seal, ns, session)
	if v := views.get(key); v != nil {
		return v, nil
	}
	wk, err := tx.Week(ns, rec.Week)
	if err != nil {
		return nil, err
	}
	if wk == nil || wk.Seal != rec.Seal {
		return nil, fmt.Errorf("sealed in week %s, which is not sealed", rec.Week)
	}
	stored, _, err := tx.SessionMessages(ns, session)
	if err != nil {
		return nil, err
	}
	var counts []int
	var seqs []uint64
	for _, sm := range stored {
		if sm.Sealed {
			counts = append(counts, sm.Lines)
			seqs = append(seqs, sm.Seq)
		}
	}
	arch := filepath.Join(e.sessionsRoot(), filepath.FromSlash(wk.Archive))
	data, err := e.weekCache().ReadFile(arch, wk.SHA256, rec.File)
	if err != nil {
		return nil, err
	}
	v := &sealedView{lines: strings.Split(string(data), "\n"), pos: make(map[uint64]transcript.Position, len(seqs))}
	for i, p := range transcript.Layout(counts) {
		if p.TextEnd > len(v.lines) || !strings.HasPrefix(v.lines[p.Header-1], "### ") {
			return nil, fmt.Errorf("%s in %s does not match the store", rec.File, arch)
		}
		v.pos[seqs[i]] = p
	}
	v.size = len(data) + 16*len(v.lines) + 64*len(seqs)
	views.put(key, v)
	return v, nil
}

// viewLRU is a size-bounded least-recently-used map of sealed views.
type viewLRU struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // of *viewItem, most recent first
	items map[string]*list.Element
}

type viewItem struct {
	key string
	v   *sealedView
}

func newViewLRU(max int) *viewLRU {
	return &viewLRU{max: max, order: list.New(), items: map[string]*list.Element{}}
}

func (l *viewLRU) get(key string) *sealedView {
	l.mu.Lock()
	defer l.mu.Unlock()
	el := l.items[key]
	if el == nil {
		return nil
	}
	l.order.MoveToFront(el)
	return el.Value.(*viewItem).v
}

func (l *viewLRU) put(key string, v *sealedView) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if el := l.items[key]; el != nil {
		return
	}
	l.items[key] = l.order.PushFront(&viewItem{key, v})
	l.size += v.size
	for l.size > l.max && l.order.Len() > 1 {
		el := l.order.Back()
		it := el.Value.(*viewItem)
		l.order.Remove(el)
		delete(l.items, it.key)
		l.size -= it.v.size
	}
}

func (l *viewLRU) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.order.Init()
	l.items = map[string]*list.Element{}
	l.size = 0
}

// Listing and verifying.

// Weeks lists every week that has transcripts, sealed or not, by
// namespace then week.
func (e *Engine) Weeks(ctx context.Context) ([]WeekInfo, error) {
	byKey := map[weekRef]*WeekInfo{}
	get := func(w weekRef) *WeekInfo {
		if byKey[w] == nil {
			byKey[w] = &WeekInfo{Namespace: w.ns, Week: w.week, State: "open"}
		}
		return byKey[w]
	}
	err := e.st.View(func(tx *store.Tx) error {
		return tx.ForEachWeek(func(wk *store.Week) error {
			byKey[weekRef{wk.NS, wk.Week}] = weekInfo(wk)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	loose, err := e.looseWeeks()
	if err != nil {
		return nil, err
	}
	for _, w := range loose {
		info := get(w)
		info.LooseFiles, info.LooseBytes = treeFiles(filepath.Join(e.sessionsRoot(), filepath.FromSlash(w.dir())))
		if info.Sealed {
			info.State = "sealed, loose files left"
		} else {
			info.Files, info.RawBytes = info.LooseFiles, info.LooseBytes
		}
	}
	archives, err := e.archiveFiles()
	if err != nil {
		return nil, err
	}
	for _, w := range archives {
		if info := get(w); !info.Sealed {
			info.State = "open, stale archive"
			info.Archive = archive.ArchiveFile(w.ns, w.week)
			if fi, err := os.Stat(filepath.Join(e.sessionsRoot(), filepath.FromSlash(info.Archive))); err == nil {
				info.ArchiveBytes = fi.Size()
			}
		}
	}
	out := make([]WeekInfo, 0, len(byKey))
	for _, info := range byKey {
		out = append(out, *info)
	}
	slices.SortFunc(out, func(a, b WeekInfo) int {
		return strings.Compare(a.Namespace+"\x00"+a.Week, b.Namespace+"\x00"+b.Week)
	})
	return out, ctx.Err()
}

// archiveFiles lists the week archives on disk.
func (e *Engine) archiveFiles() ([]weekRef, error) {
	var out []weekRef
	root := e.sessionsRoot()
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

// VerifyArchives reads every week archive on disk to its end, checks each
// file against the manifest, and checks that each sealed week's archive is
// there and is the one recorded when it was sealed. It returns one check
// per archive and, if any failed, an error naming the bad files.
func (e *Engine) VerifyArchives(ctx context.Context) ([]ArchiveCheck, error) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if e.closed {
		return nil, core.ErrClosed
	}
	sealed := map[weekRef]*store.Week{}
	err := e.st.View(func(tx *store.Tx) error {
		return tx.ForEachWeek(func(wk *store.Week) error {
			sealed[weekRef{wk.NS, wk.Week}] = wk
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	onDisk, err := e.archiveFiles()
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
		c.Err = e.verifyOne(w, rel, sealed[w], &c)
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

func (e *Engine) verifyOne(w weekRef, rel string, wk *store.Week, c *ArchiveCheck) error {
	p := filepath.Join(e.sessionsRoot(), filepath.FromSlash(rel))
	info, err := archive.Verify(p, e.maxWeekBytes())
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

// dropArchiveCaches empties the decompressed-week cache and the in-memory
// views, for benchmarks that measure a cold read.
func (e *Engine) dropArchiveCaches() {
	e.weekCache().Clear()
	views.clear()
}

// isWeekName reports whether s names an ISO week exactly as folders do
// ("2026-W47").
func isWeekName(s string) bool {
	w, err := timeparse.ParseWeek(s)
	return err == nil && w.String() == s
}
