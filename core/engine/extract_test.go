package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/embedder/hash"
)

// flaky is an extractor that fails while down is set, like a model behind
// HTTP that is unreachable.
type flaky struct{ down atomic.Bool }

func (f *flaky) Extract(_ context.Context, c *core.Chunk) ([]core.Memory, error) {
	if f.down.Load() {
		return nil, errors.New("model unreachable: connection refused")
	}
	return []core.Memory{{Type: "preference", Facts: []string{c.Messages[0].Text}, Topic: "tea"}}, nil
}

// TestExtractionRetriedLater: a failing extractor does not fail the
// ingest; the failure is reported, counted as pending, and retried; once
// the extractor works, the memories are stored and filterable.
func TestExtractionRetriedLater(t *testing.T) {
	emb, err := hash.New(64)
	if err != nil {
		t.Fatal(err)
	}
	x := &flaky{}
	x.down.Store(true)
	cfg := core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}
	e, err := openWith(t, cfg, Options{Embedder: emb, Extractors: []core.Extractor{x}, ExtractorNames: []string{"llm"}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, cst)
	res, err := e.Ingest(t.Context(), []core.Message{
		msg("s", at, core.RoleUser, "I prefer oolong tea."),
		msg("s", at.Add(time.Minute), core.RoleAssistant, "Noted."),
	})
	if err != nil {
		t.Fatalf("a failing extractor failed the ingest: %v", err)
	}
	if res.Added != 2 || len(res.ExtractFailures) != 1 || res.ExtractFailures[0].Extractor != "llm" {
		t.Fatalf("result %+v", res)
	}
	st, _ := e.Stats(t.Context())
	if st.PendingExtractions != 1 {
		t.Fatalf("pending extractions %d, want 1", st.PendingExtractions)
	}
	// Still down: the retry keeps it pending.
	r, err := e.RetryExtractions(t.Context(), 0)
	if err != nil || r.Retried != 1 || r.Done != 0 || r.Left != 1 {
		t.Fatalf("retry while down: %+v %v", r, err)
	}
	x.down.Store(false)
	r, err = e.RetryExtractions(t.Context(), 0)
	if err != nil || r.Retried != 1 || r.Done != 1 || r.Left != 0 {
		t.Fatalf("retry when up: %+v %v", r, err)
	}
	got, err := e.Recall(t.Context(), core.Query{Text: "oolong", Filter: "type = 'preference'"})
	if err != nil || len(got.Hits) != 1 || got.Hits[0].Topic != "tea" || got.Hits[0].Memories[0].Extractor != "llm" {
		t.Fatalf("memories after the retry: %+v %v", got, err)
	}
	st, _ = e.Stats(t.Context())
	if st.PendingExtractions != 0 {
		t.Errorf("pending extractions %d after the retry", st.PendingExtractions)
	}
}
