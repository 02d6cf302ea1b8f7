package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/plugins/embedder/hash"
	"github.com/huimemory/huimemory/plugins/host"
)

// countingEmbedder counts the texts it embeds, and cancels a context once
// it has embedded stopAfter texts (0: never).
type countingEmbedder struct {
	core.Embedder
	texts     atomic.Int64
	stopAfter int64
	cancel    context.CancelFunc
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out, err := c.Embedder.Embed(ctx, texts)
	if n := c.texts.Add(int64(len(texts))); c.stopAfter > 0 && n >= c.stopAfter {
		c.cancel()
	}
	return out, err
}

// TestReindexResumes: a re-embedding stopped half-way leaves the home on
// its old embedder and keeps what it made in reembed.partial; the next
// reindex embeds only the rest, and the result is the same as one
// uninterrupted re-embedding. A write to the store in between makes the
// next reindex start over.
func TestReindexResumes(t *testing.T) {
	const batch = 8
	open := func(t *testing.T, home string, dim int, emb *countingEmbedder) *engine.Engine {
		t.Helper()
		var cfg core.Config
		cfg.Storage.Home = home
		cfg.Embedding.BatchSize = batch
		cfg.SetDefaults()
		h, err := hash.New(dim)
		if err != nil {
			t.Fatal(err)
		}
		opts := engine.Options{AllowEmbedderChange: true, Embedder: h}
		if emb != nil {
			emb.Embedder = h
			opts.Embedder = emb
		}
		e, err := host.Open(t.Context(), cfg, opts, host.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	msgs := make([]core.Message, 0, 100)
	for i := range 50 {
		msgs = append(msgs,
			core.Message{Session: "s", Time: testTimeAt(i), Role: core.RoleUser, Text: "question number " + words(i)},
			core.Message{Session: "s", Time: testTimeAt(i).Add(1), Role: core.RoleAssistant, Text: "answer about " + words(i+7)})
	}
	fill := func(t *testing.T, home string) int {
		e := open(t, home, 32, nil)
		defer e.Close()
		if _, err := e.Ingest(t.Context(), msgs); err != nil {
			t.Fatal(err)
		}
		s, _ := e.Stats(t.Context())
		return s.Chunks
	}
	tests := []struct {
		name        string
		writeBefore bool // ingest something between the two reindexes
	}{
		{"resumes", false},
		{"starts over after a write", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			chunks := fill(t, home)
			ctx, cancel := context.WithCancel(t.Context())
			first := &countingEmbedder{stopAfter: 3 * batch, cancel: cancel}
			e := open(t, home, 64, first)
			_, err := e.Reindex(ctx, engine.ReindexOptions{})
			e.Close()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("stopped reindex: %v, want context.Canceled", err)
			}
			if _, err := os.Stat(filepath.Join(home, "reembed.partial")); err != nil {
				t.Fatalf("no reembed.partial after a stopped reindex: %v", err)
			}
			// The home still runs the old embedder.
			old := open(t, home, 32, nil)
			if tt.writeBefore {
				if _, err := old.Ingest(t.Context(), []core.Message{{Session: "t", Time: testTimeAt(99), Role: core.RoleUser, Text: "one more"}}); err != nil {
					t.Fatal(err)
				}
				chunks++
			}
			if res, err := old.Recall(t.Context(), core.Query{Text: "answer about", TopK: 3}); err != nil || len(res.Hits) == 0 {
				t.Fatalf("recall on the old embedder after a stopped reindex: %+v, %v", res, err)
			}
			old.Close()

			second := &countingEmbedder{}
			var calls, lastDone, lastTotal int
			e = open(t, home, 64, second)
			res, err := e.Reindex(t.Context(), engine.ReindexOptions{Progress: func(done, total int) { calls++; lastDone, lastTotal = done, total }})
			e.Close()
			if err != nil {
				t.Fatal(err)
			}
			wantResumed := int(first.texts.Load())
			if tt.writeBefore {
				wantResumed = 0
			}
			if res.Chunks != chunks || !res.Embedded || res.Resumed != wantResumed {
				t.Errorf("result %+v, want %d chunks, embedded, %d resumed", res, chunks, wantResumed)
			}
			if got := int(second.texts.Load()); got != chunks-wantResumed {
				t.Errorf("the second reindex embedded %d texts, want %d", got, chunks-wantResumed)
			}
			if lastDone != chunks || lastTotal != chunks || calls < 2 {
				t.Errorf("progress: %d calls, last %d of %d; want it to end at %d of %d", calls, lastDone, lastTotal, chunks, chunks)
			}
			if _, err := os.Stat(filepath.Join(home, "reembed.partial")); !os.IsNotExist(err) {
				t.Errorf("reembed.partial left after the reindex: %v", err)
			}

			// Same vectors as an uninterrupted re-embedding: the same hits
			// and scores.
			ref := t.TempDir()
			fill(t, ref)
			if tt.writeBefore {
				e := open(t, ref, 32, nil)
				e.Ingest(t.Context(), []core.Message{{Session: "t", Time: testTimeAt(99), Role: core.RoleUser, Text: "one more"}})
				e.Close()
			}
			e = open(t, ref, 64, nil)
			if _, err := e.Reindex(t.Context(), engine.ReindexOptions{}); err != nil {
				t.Fatal(err)
			}
			want := hitScores(t, e, "question number")
			e.Close()
			e = open(t, home, 64, nil)
			got := hitScores(t, e, "question number")
			e.Close()
			if len(want) == 0 {
				t.Fatal("no hits")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("hits after a resumed reindex differ from an uninterrupted one (-want +got):\n%s", diff)
			}
		})
	}
}

// hitScores returns the ids and scores of the hits of query.
func hitScores(t *testing.T, e *engine.Engine, query string) []string {
	t.Helper()
	res, err := e.Recall(t.Context(), core.Query{Text: query, TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, fmt.Sprintf("%s %.6f %.6f %.6f", h.ID, h.Score, h.Scores.Vector, h.Scores.BM25))
	}
	return out
}

var testEpoch = time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC)

// testTimeAt is the time of the i-th test exchange, an hour apart.
func testTimeAt(i int) time.Time { return testEpoch.Add(time.Duration(i) * time.Hour) }

// words returns a few words that differ with i.
func words(i int) string {
	vocab := []string{"kyoto", "budget", "deploy", "river", "coffee", "museum", "garden", "report", "server", "ticket", "train", "temple", "python"}
	return vocab[i%len(vocab)] + " " + vocab[(i*5+3)%len(vocab)] + " " + vocab[(i*7+1)%len(vocab)]
}
