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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core/store"
)

// sealWeekBackend is sealWeek on a backend.
func (e *Engine) sealWeekBackend(w weekRef, sessions []*store.Session) (*WeekInfo, error) {
	if wk, err := e.storedWeek(w); err != nil || wk != nil || len(sessions) == 0 {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "huimem-seal-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "week")
	rendered, err := e.renderWeek(w, sessions, func(rel string, data []byte) error {
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
	info, err := archive.Write(f, dir, archive.WriteOptions{Namespace: w.ns, Week: w.week, Level: e.cfg.Archive.Level, MaxBytes: e.maxWeekBytes()})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	p := sealPaths{archRel: archive.ArchiveFile(w.ns, w.week), arch: arch}
	if _, err := e.verifySealed(p, info, rendered); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(arch)
	if err != nil {
		return nil, err
	}
	wk := newWeek(w, p.archRel, info, len(sessions))
	err = e.st.Update(func(tx *store.Tx) error {
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

// reopenWeekBackend is reopenWeek on a backend. The caller holds writeMu.
func (e *Engine) reopenWeekBackend(w weekRef) error {
	return e.st.Update(func(tx *store.Tx) error {
		wk, err := tx.Week(w.ns, w.week)
		if err != nil || wk == nil {
			return err
		}
		if err := e.unsealWeekTx(tx, w, true); err != nil {
			return err
		}
		return tx.DeleteArchive(w.ns, w.week)
	})
}

// archivePath returns a sealed week's archive as a local file: in a home,
// its place in the sessions folder; on a backend, a copy of the stored
// archive in the cache folder, written (and checked) on first use.
func (e *Engine) archivePath(tx *store.Tx, wk *store.Week) (string, error) {
	if e.backend == nil {
		return filepath.Join(e.sessionsRoot(), filepath.FromSlash(wk.Archive)), nil
	}
	p := filepath.Join(e.cacheDir(), "archives", wk.SHA256+archive.Ext)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	data := tx.Archive(wk.NS, wk.Week)
	if data == nil {
		return "", fmt.Errorf("the archive of sealed week %s%s is missing from the store", wk.Week, nsSuffix(wk.NS))
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != wk.SHA256 {
		return "", fmt.Errorf("the stored archive of sealed week %s%s does not match its record", wk.Week, nsSuffix(wk.NS))
	}
	if err := replaceFile(p, data); err != nil {
		return "", fmt.Errorf("caching the archive of week %s: %w", wk.Week, err)
	}
	return p, nil
}

// cacheDir is storage.cache_dir, by default <home>/cache.
func (e *Engine) cacheDir() string {
	dir := e.cfg.Storage.CacheDir
	if dir == "" {
		dir = filepath.Join(e.home, "cache")
	}
	dir, _ = filepath.Abs(dir)
	return dir
}

// cacheInvalidator is what a backend's notifications reach: the vector
// cache, and on a reset (a forget, say) the caches of sealed weeks too;
// and the generation each notification brings the caches up to.
type cacheInvalidator struct{ e *Engine }

func (c cacheInvalidator) Invalidate(ns string, t time.Time) { c.e.vx.Invalidate(ns, t) }

func (c cacheInvalidator) Reset() {
	// Everything is dropped: the caches are as fresh as the store now.
	gen := c.e.storeGen()
	c.e.vx.Reset()
	c.e.dropArchiveCopies()
	c.Heard(gen)
}

// dropArchiveCopies removes this server's copies of sealed weeks: the
// decompressed weeks, the views made of them and the archive files, so
// that text a forget removed from the store leaves this disk too. A
// read of a sealed week meanwhile fetches the archive again.
func (e *Engine) dropArchiveCopies() {
	views.clear()
	e.weekCache().Clear()
	if e.backend != nil {
		os.RemoveAll(filepath.Join(e.cacheDir(), "archives"))
	}
}

// Heard records that every change up to generation gen has reached the
// caches.
func (c cacheInvalidator) Heard(gen uint64) {
	for {
		old := c.e.acc.heard.Load()
		if gen <= old || c.e.acc.heard.CompareAndSwap(old, gen) {
			return
		}
	}
}
