package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/archive/transcript"
	"github.com/huimemory/huimemory/core/store"
)

// caches holds one decompressed-week cache per cache folder, shared by the
// engines of this process.
var (
	cachesMu sync.Mutex
	caches   = map[string]*archive.Cache{}
)

// weekCache returns the cache of decompressed weeks
// (storage.cache_dir, default <home>/cache).
func (s *shared) weekCache() *archive.Cache {
	dir := s.cacheDir()
	cachesMu.Lock()
	defer cachesMu.Unlock()
	c := caches[dir]
	if c == nil {
		c = archive.NewCache(dir, archive.CacheOptions{
			TTL:          time.Duration(s.cfg.Storage.CacheTTLHours) * time.Hour,
			MaxBytes:     int64(s.cfg.Storage.CacheMaxMB) << 20,
			MaxWeekBytes: s.maxWeekBytes(),
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
func (s *shared) sealedView(tx *store.Tx, ns, session string) (*sealedView, error) {
	rec, err := tx.SealedSession(ns, session)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("sealed, but no week records it")
	}
	key := fmt.Sprintf("%s\x00%d\x00%s\x00%s", s.home, rec.Seal, ns, session)
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
	arch, err := s.archivePath(tx, wk)
	if err != nil {
		return nil, err
	}
	data, err := s.weekCache().ReadFile(arch, wk.SHA256, rec.File)
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

// viewLRU is a least-recently-used map of sealed views bounded by their
// total size: golang-lru's simplelru, with the sizes added up here. It is
// safe for concurrent use.
type viewLRU struct {
	mu   sync.Mutex
	max  int
	size int
	lru  *simplelru.LRU[string, *sealedView]
}

func newViewLRU(max int) *viewLRU {
	l := &viewLRU{max: max}
	// The count bound is never reached first: the size bound evicts.
	l.lru, _ = simplelru.NewLRU(math.MaxInt, func(_ string, v *sealedView) { l.size -= v.size })
	return l
}

func (l *viewLRU) get(key string) *sealedView {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, _ := l.lru.Get(key)
	return v
}

// put adds v under key, unless key is there already, then evicts the
// least recently used views until the total size fits (always keeping the
// newest).
func (l *viewLRU) put(key string, v *sealedView) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lru.Contains(key) {
		return
	}
	l.lru.Add(key, v)
	l.size += v.size
	for l.size > l.max && l.lru.Len() > 1 {
		l.lru.RemoveOldest()
	}
}

func (l *viewLRU) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lru.Purge()
}

// dropArchiveCaches empties the decompressed-week cache and the in-memory
// views, for benchmarks that measure a cold read.
func (s *shared) dropArchiveCaches() {
	s.weekCache().Clear()
	views.clear()
}

// archivePath returns a sealed week's archive as a local file: in a home,
// its place in the sessions folder; on a backend, a copy of the stored
// archive in the cache folder, written (and checked) on first use.
func (s *shared) archivePath(tx *store.Tx, wk *store.Week) (string, error) {
	if s.backend == nil {
		return filepath.Join(s.sessionsRoot(), filepath.FromSlash(wk.Archive)), nil
	}
	p := filepath.Join(s.cacheDir(), "archives", wk.SHA256+archive.Ext)
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
func (s *shared) cacheDir() string {
	dir := s.cfg.Storage.CacheDir
	if dir == "" {
		dir = filepath.Join(s.home, "cache")
	}
	dir, _ = filepath.Abs(dir)
	return dir
}

// cacheInvalidator is what a backend's notifications reach: the vector
// cache, and on a reset (a forget, say) the caches of sealed weeks too;
// and the generation each notification brings the caches up to.
type cacheInvalidator struct{ s *shared }

func (c cacheInvalidator) Invalidate(ns string, t time.Time) { c.s.vx.Invalidate(ns, t) }

func (c cacheInvalidator) Reset() {
	// Everything is dropped: the caches are as fresh as the store now.
	gen := c.s.storeGen()
	c.s.vx.Reset()
	c.s.dropArchiveCopies()
	c.Heard(gen)
}

// Heard records that every change up to generation gen has reached the
// caches.
func (c cacheInvalidator) Heard(gen uint64) {
	for {
		old := c.s.acc.heard.Load()
		if gen <= old || c.s.acc.heard.CompareAndSwap(old, gen) {
			return
		}
	}
}

// dropArchiveCopies removes this server's copies of sealed weeks: the
// decompressed weeks, the views made of them and the archive files, so
// that text a forget removed from the store leaves this disk too. A
// read of a sealed week meanwhile fetches the archive again.
func (s *shared) dropArchiveCopies() {
	views.clear()
	s.weekCache().Clear()
	if s.backend != nil {
		os.RemoveAll(filepath.Join(s.cacheDir(), "archives"))
	}
}
