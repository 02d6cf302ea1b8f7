package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// addMessages stores n messages of session s whose text starts with
// prefix, and returns their keys.
func addMessages(t *testing.T, s *Store, session, prefix string, n int) []core.MessageKey {
	t.Helper()
	var keys []core.MessageKey
	err := s.Update(func(tx *Tx) error {
		for i := range n {
			m := core.Message{Session: session, Time: time.Date(2026, 4, 1, 10, i, 0, 0, time.UTC), Role: core.RoleUser,
				Text: fmt.Sprintf("%s number %d, padded so that the pages fill up quickly %0200d", prefix, i, i)}
			k := m.Key()
			if _, err := tx.AddMessage(&m, k, 1); err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func fileHolds(t *testing.T, path, s string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(data, []byte(s))
}

func TestCompactRemovesFreedText(t *testing.T) {
	s := openTest(t)
	const secret = "the vault code is 7741-ZEBRA-QUARTZ"
	keep := addMessages(t, s, "keep", "an ordinary message", 50)
	gone := addMessages(t, s, "gone", secret, 50)
	err := s.Update(func(tx *Tx) error {
		for _, k := range gone {
			if err := tx.DeleteMessage(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// bbolt keeps the deleted text on free pages: this is what Compact is for.
	if !fileHolds(t, s.Path(), secret) {
		t.Fatalf("the store file no longer holds the deleted text before compaction; the test proves nothing")
	}
	stats, err := s.Compact(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if fileHolds(t, s.Path(), secret) {
		t.Errorf("the store file still holds the deleted text after Compact")
	}
	if stats.Before <= 0 || stats.After <= 0 || !stats.Scrubbed {
		t.Errorf("stats = %+v, want both sizes and a scrub", stats)
	}
	if _, err := os.Stat(s.Path() + compactSuffix); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
	// Everything kept is still there, and the store takes writes.
	more := addMessages(t, s, "after", "written after compaction", 3)
	err = s.View(func(tx *Tx) error {
		for _, k := range append(keep, more...) {
			if !tx.HasMessage(k) {
				return fmt.Errorf("message %x is missing", k)
			}
		}
		for _, k := range gone {
			if tx.HasMessage(k) {
				return fmt.Errorf("deleted message %x is back", k)
			}
		}
		if _, n := tx.Counts(); n != len(keep)+len(more) {
			return fmt.Errorf("message count %d, want %d", n, len(keep)+len(more))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// And it opens again from disk.
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	err = s2.View(func(tx *Tx) error {
		if _, n := tx.Counts(); n != len(keep)+len(more) {
			return fmt.Errorf("after reopening: message count %d, want %d", n, len(keep)+len(more))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Readers of the same Store keep working while it is compacted: they wait,
// and none fails or sees a closed database.
func TestCompactWithConcurrentReaders(t *testing.T) {
	s := openTest(t)
	keys := addMessages(t, s, "s", "message", 200)
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				err := s.View(func(tx *Tx) error {
					if !tx.HasMessage(keys[i%len(keys)]) {
						return fmt.Errorf("message %d is missing", i%len(keys))
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		}()
	}
	for range 5 {
		if _, err := s.Compact(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("reader: %v", err)
	}
	if reads.Load() == 0 {
		t.Errorf("no read ran")
	}
}

// A process that waited for the lock while another one compacted the
// store ends up on the new file, not on the old, unlinked one.
func TestOpenAfterCompactFindsTheNewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	a, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	addMessages(t, a, "s", "before", 3)
	type result struct {
		s   *Store
		err error
	}
	waiter := make(chan result, 1)
	go func() {
		b, err := Open(path, 20*time.Second)
		waiter <- result{b, err}
	}()
	// Give the waiter time to open the old file and block on its lock;
	// the test holds whether or not it got that far.
	time.Sleep(200 * time.Millisecond)
	if _, err := a.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	late := addMessages(t, a, "s", "after the compaction", 1)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	r := <-waiter
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.s.Close()
	err = r.s.View(func(tx *Tx) error {
		if !tx.HasMessage(late[0]) {
			return fmt.Errorf("the waiting opener does not see the message written after the compaction: it opened the old file")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCompactGivesUpWhenCancelled(t *testing.T) {
	s := openTest(t)
	started := make(chan struct{})
	release := make(chan struct{})
	go s.View(func(*Tx) error {
		close(started)
		<-release
		return nil
	})
	<-started
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Compact(ctx); err == nil {
		t.Errorf("Compact with a transaction open and a cancelled context: no error")
	}
	close(release)
	if _, err := s.Compact(t.Context()); err != nil {
		t.Errorf("Compact after the transaction ended: %v", err)
	}
}
