package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// TestSearchSlots: a long-lived engine runs at most searchSlots recalls
// at once. A recall that finds every slot taken waits for one, and gives
// up with its context's error when the context ends first; once a slot
// is free it runs. A one-shot engine does not queue recalls.
func TestSearchSlots(t *testing.T) {
	cfg := core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}
	e, err := openWith(t, cfg, Options{LongLived: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, cst)
	if _, err := e.Ingest(t.Context(), []core.Message{msg("s", at, core.RoleUser, "the staging proxy listens on port 8443")}); err != nil {
		t.Fatal(err)
	}
	if got, want := cap(e.read.searches), searchSlots(); got != want || want < 2 {
		t.Fatalf("a long-lived engine has %d search slots, want %d (at least 2)", got, want)
	}
	var releases []func()
	for range searchSlots() {
		r, err := e.read.searchSlot(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.Recall(ctx, core.Query{Text: "staging proxy"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a recall with every slot taken returned %v, want it to wait until its context ended", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.Recall(t.Context(), core.Query{Text: "staging proxy"})
		done <- err
	}()
	releases[0]()
	if err := <-done; err != nil {
		t.Fatalf("a recall after a slot was freed: %v", err)
	}
	for _, r := range releases[1:] {
		r()
	}
	if n := len(e.read.searches); n != 0 {
		t.Errorf("%d slots still held after every recall returned", n)
	}

	one, err := openWith(t, core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if one.read.searches != nil {
		t.Errorf("a one-shot engine has %d search slots, want none (no queue)", cap(one.read.searches))
	}
}
