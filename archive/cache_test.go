package archive

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A replaced or damaged archive is refused by its checksum before it is
// decompressed: with the right checksum, this week is too large for the
// cache and decompressing it fails with ErrTooLarge; with another
// checksum, the same file fails with ErrCorrupt, so it was never unpacked.
func TestCacheChecksSumBeforeDecompressing(t *testing.T) {
	src, info := pack(t, map[string]string{"2026-04-13/chat_big.md": strings.Repeat("x", 64<<10)})
	_, other := pack(t, weekFiles)
	dir := filepath.Join(t.TempDir(), "cache")
	c := NewCache(dir, CacheOptions{MaxWeekBytes: 1 << 10})
	if _, err := c.ReadFile(src, info.SHA256, "2026-04-13/chat_big.md"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("right checksum: %v, want ErrTooLarge from decompressing", err)
	}
	_, err := c.ReadFile(src, other.SHA256, "2026-04-13/chat_big.md")
	if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), other.SHA256+" was recorded") {
		t.Fatalf("wrong checksum: %v, want ErrCorrupt before decompressing", err)
	}
	if c.Extractions() != 0 {
		t.Errorf("%d extractions", c.Extractions())
	}
	assertNoTemp(t, dir)
}

func TestCheckFile(t *testing.T) {
	src, info := pack(t, weekFiles)
	if err := CheckFile(src, info.SHA256); err != nil {
		t.Errorf("good archive: %v", err)
	}
	data, _ := os.ReadFile(src)
	data[len(data)/2] ^= 1
	os.WriteFile(src, data, 0o600)
	if err := CheckFile(src, info.SHA256); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), src) {
		t.Errorf("flipped bit: %v", err)
	}
	if err := CheckFile(filepath.Join(t.TempDir(), "nope"+Ext), info.SHA256); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// The first use of a cache removes the temporary folders of processes
// killed while unpacking or evicting, and keeps those of a live
// extraction (one that holds the lock) until they are an hour old.
func TestCacheRemovesTempsOfKilledProcesses(t *testing.T) {
	src, info := pack(t, weekFiles)
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		writeTree(t, p, map[string]string{"2026-04-13/chat_s1.md": strings.Repeat("half a week\n", 100)})
		return p
	}
	killed := mk(".tmp-" + info.SHA256 + "-123")
	evicted := mk(".tmp-evict-" + info.SHA256 + "-abc")
	c := NewCache(dir, CacheOptions{})
	if n := c.Size(); n != 0 {
		t.Errorf("size %d, want 0", n)
	}
	assertNoTemp(t, dir)
	for _, p := range []string{killed, evicted} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", filepath.Base(p), err)
		}
	}
	// The cache still works, and leaves no temporary folder.
	if _, err := c.ReadFile(src, info.SHA256, "2026-04-13/chat_s1.md"); err != nil {
		t.Fatal(err)
	}
	assertNoTemp(t, dir)

	// Another process is unpacking: it holds the lock.
	if _, ok := tryLockExclusive(filepath.Join(t.TempDir(), "probe")); !ok {
		t.Logf("no file locks on this system: only the age rule applies")
		return
	}
	unlock := lockShared(filepath.Join(dir, lockName))
	live := mk(".tmp-" + info.SHA256 + "-456")
	NewCache(dir, CacheOptions{}).Size()
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("a live extraction's folder was removed: %v", err)
	}
	// Unless the folder is older than any extraction takes.
	old := time.Now().Add(-2 * staleAge)
	os.Chtimes(live, old, old)
	NewCache(dir, CacheOptions{}).Size()
	if _, err := os.Stat(live); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an hours-old temporary folder was kept: %v", err)
	}
	unlock()
	// Once the lock is free, even a fresh one goes.
	fresh := mk(".tmp-" + info.SHA256 + "-789")
	NewCache(dir, CacheOptions{}).Size()
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a killed extraction's folder was kept: %v", err)
	}
}
