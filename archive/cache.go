package archive

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// CacheOptions bound a [Cache].
type CacheOptions struct {
	// TTL is how long an unused week stays; 0 means 24 hours.
	TTL time.Duration
	// MaxBytes bounds the cache's size on disk; 0 means 1 GiB. The week
	// being read is never evicted, so a single week larger than MaxBytes
	// still works; it is evicted as soon as another week is needed.
	MaxBytes int64
	// MaxWeekBytes bounds one week's decompressed size; 0 means 4 GiB.
	MaxWeekBytes int64
}

// Cache keeps decompressed weeks on disk, one folder per week, so that
// only the first read of a sealed week pays for decompression. A week's
// folder is named after the sha256 of its archive file, so an entry never
// goes stale: a week sealed again is a new entry, and an archive replaced
// behind the cache's back fails the checksum instead of being cached under
// the old name. Before a week is decompressed, its archive file's sha256 is
// checked against the one recorded when it was sealed ([CheckFile]), so a
// damaged or replaced archive costs one read, not gigabytes written to the
// cache. A week is unpacked in full with [Extract] (checked, into a
// temporary folder renamed into place), so a reader sees a complete week or
// none. Weeks unused for longer than the TTL, and the least recently used
// weeks while the cache is over its size, are removed.
//
// A Cache is safe for concurrent use. Several processes may share one
// folder: entries are immutable, and a file that another process evicted
// is simply unpacked again. Each extraction holds a shared lock on the
// folder's lock file (.extract.lock, where the system has file locks), so
// that the first use of a Cache can tell the temporary folders of a
// process that was killed mid-extraction from live ones, and remove them.
type Cache struct {
	dir  string
	opts CacheOptions

	// opened is set once the folder was scanned; see [Cache.open].
	opened atomic.Bool

	mu        sync.Mutex
	entries   map[string]*cacheEntry
	loading   map[string]*loadCall
	size      int64
	scanned   bool
	lastSweep time.Time

	extractions atomic.Int64
}

type cacheEntry struct {
	size          int64
	used, touched time.Time
}

type loadCall struct {
	done chan struct{}
	err  error
}

// NewCache returns a cache that keeps its weeks under dir. It touches the
// disk only when first used; that first use learns what dir holds and
// removes the temporary folders left by killed processes.
func NewCache(dir string, opts CacheOptions) *Cache {
	if opts.TTL <= 0 {
		opts.TTL = 24 * time.Hour
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 1 << 30
	}
	if opts.MaxWeekBytes <= 0 {
		opts.MaxWeekBytes = 4 << 30
	}
	return &Cache{dir: dir, opts: opts, entries: map[string]*cacheEntry{}, loading: map[string]*loadCall{}}
}

// Dir returns the cache's folder.
func (c *Cache) Dir() string { return c.dir }

// Extractions returns how many weeks this Cache has decompressed.
func (c *Cache) Extractions() int64 { return c.extractions.Load() }

// validKey reports whether key can name a cache entry: a hex sha256.
func validKey(key string) bool {
	if len(key) != 64 {
		return false
	}
	_, err := hex.DecodeString(key)
	return err == nil && strings.ToLower(key) == key
}

// ReadFile returns the file rel (a path inside the week folder, such as
// "2026-04-13/chat_s1.md") of the week archive src, whose hex sha256 is
// sum. The first call for a week decompresses the whole week into the
// cache; later calls read the cached file. Concurrent first calls for the
// same week decompress it once.
func (c *Cache) ReadFile(src, sum, rel string) ([]byte, error) {
	if !ValidPath(rel) {
		return nil, fmt.Errorf("%w: %q is not a path inside a week folder", ErrUnsafePath, rel)
	}
	if !validKey(sum) {
		return nil, fmt.Errorf("archive %s: bad sha256 %q", src, sum)
	}
	for attempt := 0; ; attempt++ {
		if err := c.ensure(src, sum); err != nil {
			return nil, err
		}
		data, err := c.read(sum, rel)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return data, err
		}
		if _, serr := os.Stat(filepath.Join(c.dir, sum)); serr == nil || attempt > 0 {
			return nil, fmt.Errorf("archive %s holds no file %q: %w", src, rel, fs.ErrNotExist)
		}
		// Another process evicted the week under us; unpack it again.
		c.forget(sum)
	}
}

func (c *Cache) read(sum, rel string) ([]byte, error) {
	f, err := os.OpenInRoot(filepath.Join(c.dir, sum), rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ensure makes sure the week is unpacked in the cache.
func (c *Cache) ensure(src, sum string) error {
	c.open()
	now := time.Now()
	c.mu.Lock()
	c.scanLocked()
	if e := c.entries[sum]; e != nil {
		e.used = now
		touch := now.Sub(e.touched) > time.Minute
		if touch {
			e.touched = now
		}
		var victims []string
		if now.Sub(c.lastSweep) > time.Minute {
			victims = c.evictLocked(sum, now)
		}
		c.mu.Unlock()
		if touch {
			// Record the use on disk for other processes and restarts.
			os.Chtimes(filepath.Join(c.dir, sum), now, now)
		}
		c.remove(victims)
		return nil
	}
	if call := c.loading[sum]; call != nil {
		c.mu.Unlock()
		<-call.done
		return call.err
	}
	call := &loadCall{done: make(chan struct{})}
	c.loading[sum] = call
	c.mu.Unlock()

	dst := filepath.Join(c.dir, sum)
	var size int64
	info, err := c.extract(src, dst, sum)
	switch {
	case err == nil:
		c.extractions.Add(1)
		size = info.Manifest.Size()
	case errors.Is(err, fs.ErrExist) && isDir(dst):
		// Another process unpacked it first.
		err, size = nil, treeSize(dst)
	}
	c.mu.Lock()
	delete(c.loading, sum)
	var victims []string
	if err == nil {
		c.entries[sum] = &cacheEntry{size: size, used: now, touched: now}
		c.size += size
		victims = c.evictLocked(sum, now)
	}
	c.mu.Unlock()
	c.remove(victims)
	call.err = err
	close(call.done)
	return err
}

// extract checks the archive src against sum, then unpacks it into dst,
// holding the shared extraction lock.
func (c *Cache) extract(src, dst, sum string) (*Info, error) {
	if err := CheckFile(src, sum); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, err
	}
	unlock := lockShared(filepath.Join(c.dir, lockName))
	defer unlock()
	return Extract(src, dst, ExtractOptions{MaxBytes: c.opts.MaxWeekBytes, SHA256: sum})
}

// lockName is the cache folder's lock file: every extraction holds a
// shared lock on it.
const lockName = ".extract.lock"

// staleAge is the age after which a temporary folder is taken for one left
// by a killed process even when no lock says so.
const staleAge = time.Hour

// open removes, on the first use of the cache, the temporary folders that
// killed processes left in its folder: the half-unpacked weeks, when no
// extraction holds the lock (or, where the system has no file locks, when
// they are older than an hour), and half-removed evicted weeks. They are
// renamed away and removed outside the cache's mutex.
func (c *Cache) open() {
	if c.opened.Swap(true) {
		return
	}
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	var unpacking, junk []string
	for _, d := range ents {
		name := d.Name()
		switch {
		case strings.HasPrefix(name, ".tmp-evict-"):
			// Renamed away by an eviction that did not finish: nobody
			// reads it.
			junk = append(junk, filepath.Join(c.dir, name))
		case strings.HasPrefix(name, ".tmp-"):
			unpacking = append(unpacking, name)
		}
	}
	if len(unpacking) > 0 {
		unlock, free := tryLockExclusive(filepath.Join(c.dir, lockName))
		for _, name := range unpacking {
			p := filepath.Join(c.dir, name)
			if !free {
				fi, err := os.Stat(p)
				if err != nil || time.Since(fi.ModTime()) <= staleAge {
					continue // perhaps a live extraction
				}
			}
			gone := filepath.Join(c.dir, ".tmp-evict-"+rand.Text())
			if os.Rename(p, gone) == nil {
				junk = append(junk, gone)
			}
		}
		if free {
			unlock()
		}
	}
	for _, p := range junk {
		os.RemoveAll(p)
	}
}

// scanLocked learns what an earlier process left in the cache folder.
func (c *Cache) scanLocked() {
	if c.scanned {
		return
	}
	c.scanned = true
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, d := range ents {
		fi, err := d.Info()
		if err != nil {
			continue
		}
		name := d.Name()
		switch {
		case d.IsDir() && validKey(name):
			size := treeSize(filepath.Join(c.dir, name))
			c.entries[name] = &cacheEntry{size: size, used: fi.ModTime(), touched: fi.ModTime()}
			c.size += size
		}
	}
}

// evictLocked drops the entries unused for longer than the TTL, then the
// least recently used ones while the cache is too big; never keep. It
// returns the folders to remove.
func (c *Cache) evictLocked(keep string, now time.Time) []string {
	c.lastSweep = now
	type kv struct {
		key string
		e   *cacheEntry
	}
	var all []kv
	for k, e := range c.entries {
		if k != keep {
			all = append(all, kv{k, e})
		}
	}
	slices.SortFunc(all, func(a, b kv) int { return cmp.Or(a.e.used.Compare(b.e.used), strings.Compare(a.key, b.key)) })
	var victims []string
	for _, x := range all {
		if now.Sub(x.e.used) <= c.opts.TTL && c.size <= c.opts.MaxBytes {
			break
		}
		victims = append(victims, x.key)
		c.size -= x.e.size
		delete(c.entries, x.key)
	}
	return victims
}

// remove deletes evicted folders. Each is first renamed away, so that no
// reader can open a file of a half-removed week.
func (c *Cache) remove(keys []string) {
	for _, k := range keys {
		dir := filepath.Join(c.dir, k)
		gone := filepath.Join(c.dir, ".tmp-evict-"+k+"-"+rand.Text())
		if err := os.Rename(dir, gone); err == nil {
			os.RemoveAll(gone)
		}
	}
}

// forget drops an entry that vanished from disk.
func (c *Cache) forget(sum string) {
	c.mu.Lock()
	if e := c.entries[sum]; e != nil {
		c.size -= e.size
		delete(c.entries, sum)
	}
	c.mu.Unlock()
}

// Size returns the bytes the cache holds, as far as it knows.
func (c *Cache) Size() int64 {
	c.open()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scanLocked()
	return c.size
}

// Clear removes every cached week.
func (c *Cache) Clear() {
	c.open()
	c.mu.Lock()
	c.scanLocked()
	var keys []string
	for k := range c.entries {
		keys = append(keys, k)
	}
	c.entries = map[string]*cacheEntry{}
	c.size = 0
	c.mu.Unlock()
	c.remove(keys)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func treeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
