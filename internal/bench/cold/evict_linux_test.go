package cold

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident counts the pages of the file at path that are in the page
// cache.
func resident(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	n := 0
	for _, b := range vec {
		n += int(b & 1)
	}
	return n
}

func TestInstallEvicted(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "tool")
	script := append([]byte("#!/bin/sh\necho evicted-copy-runs\n#"), bytes.Repeat([]byte("x"), 1<<20)...)
	if err := os.WriteFile(src, append(script, '\n'), 0o755); err != nil {
		t.Fatal(err)
	}
	dst, err := installEvicted(src, filepath.Join(dir, "work"))
	if err != nil {
		t.Fatal(err)
	}
	if dst == src || filepath.Dir(dst) != filepath.Join(dir, "work", "bin") {
		t.Fatalf("installEvicted = %s; want a copy in work/bin", dst)
	}
	// The copy is dropped from the page cache (its 257 pages were all
	// written a moment ago), and is the same executable.
	if n := resident(t, dst); n > 8 {
		t.Errorf("%d pages of the copy are still in the page cache", n)
	}
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, append(script, '\n')) {
		t.Fatalf("the copy differs from the original (%v)", err)
	}
	out, err := exec.Command(dst).Output()
	if err != nil || string(out) != "evicted-copy-runs\n" {
		t.Errorf("running the copy: %q, %v", out, err)
	}
	if _, err := installEvicted(filepath.Join(dir, "missing"), filepath.Join(dir, "work2")); err == nil {
		t.Errorf("a missing binary was installed")
	}
}

func TestEvictTree(t *testing.T) {
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b"), filepath.Join(dir, "sub", "deeper", "c")}
	for _, p := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte("y"), 256<<10), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(files[0], filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := evictTree(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if n := resident(t, p); n > 2 {
			t.Errorf("%d of the 64 pages of %s are still in the page cache", n, p)
		}
	}
	if err := evictTree(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("a missing folder was evicted")
	}
}
