//go:build unix

package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// TestSharedStores: two shared stores on one file read at once; a write
// waits for the other's read handle, which WriterWaiting reveals and Yield
// lets go; afterwards the reader sees the write; a second writer times out
// with ErrLocked naming the first.
func TestSharedStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	open := func(owner string) *Store {
		s, err := OpenWith(path, Options{Shared: true, LockWait: 2 * time.Second, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	w, r := open("writer one"), open("reader")
	if w.Exclusive() || r.Exclusive() {
		t.Fatal("a shared store opened exclusive")
	}
	if _, err := w.LockWriter(t.Context()); err != nil {
		t.Fatal(err)
	}
	// A second writer gives up after its wait and names the first.
	w2, err := OpenWith(path, Options{Shared: true, LockWait: 100 * time.Millisecond, Owner: "writer two"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w2.LockWriter(t.Context()); !errors.Is(err, core.ErrLocked) || !strings.Contains(err.Error(), "writer one") {
		t.Errorf("second writer: %v, want ErrLocked naming writer one", err)
	}
	w2.Close()
	upgraded := make(chan error, 1)
	go func() { upgraded <- w.Upgrade(t.Context(), nil) }()
	deadline := time.Now().Add(2 * time.Second)
	for !r.WriterWaiting() {
		if time.Now().After(deadline) {
			t.Fatal("the reader never saw the writer waiting")
		}
		time.Sleep(time.Millisecond)
	}
	yielded := make(chan error, 1)
	go func() { yielded <- r.Yield(t.Context(), nil, nil) }()
	if err := <-upgraded; err != nil {
		t.Fatal(err)
	}
	if err := w.Update(func(tx *Tx) error { return tx.SetMeta("k", []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if err := w.Downgrade(nil); err != nil {
		t.Fatal(err)
	}
	w.UnlockWriter()
	if err := <-yielded; err != nil {
		t.Fatal(err)
	}
	var got string
	r.View(func(tx *Tx) error { got = string(tx.Meta("k")); return nil })
	if got != "v" {
		t.Errorf("reader after the write: %q, want %q", got, "v")
	}
}
