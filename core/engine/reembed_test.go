package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// TestOtherProcessReembeds: an engine that opened a home with one
// embedder refuses to recall or write once another process has
// re-embedded the home with another model, rather than compare its
// queries with the other model's vectors or mix two models' vectors.
func TestOtherProcessReembeds(t *testing.T) {
	var cfg core.Config
	cfg.Storage.Home = t.TempDir()
	opts := Options{Access: AccessShared, LockWait: 5 * time.Second}
	a, err := openWith(t, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	msg := core.Message{Session: "s", Time: time.Date(2026, 4, 13, 9, 0, 0, 0, time.UTC), Role: core.RoleUser, Text: "sourdough starter"}
	if _, err := a.Ingest(t.Context(), []core.Message{msg}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Recall(t.Context(), core.Query{Text: "sourdough", NoTime: true}); err != nil {
		t.Fatalf("recall before the re-embed: %v", err)
	}
	other := cfg
	other.Embedding.Dim = 128
	opts.AllowEmbedderChange = true
	b, err := openWith(t, other, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Reindex(t.Context(), ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	msg.Text = "rye bread"
	for _, tc := range []struct {
		name string
		do   func() error
	}{
		{"recall", func() error { _, err := a.Recall(t.Context(), core.Query{Text: "sourdough", NoTime: true}); return err }},
		{"ingest", func() error { _, err := a.Ingest(t.Context(), []core.Message{msg}); return err }},
	} {
		if err := tc.do(); !errors.Is(err, core.ErrEmbedderChanged) {
			t.Errorf("%s after another process re-embedded the home: %v; want ErrEmbedderChanged", tc.name, err)
		}
	}
}
