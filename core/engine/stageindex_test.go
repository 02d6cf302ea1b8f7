package engine

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/internal/bench/synth"
)

// TestBulkStageIsIndexedAsItGoes ingests a file large enough to be
// indexed while it is staged (stageindex.go) and checks, while its
// batches are indexed, that recalls, counts and stats see none of it,
// and afterwards that the index holds exactly the store's chunks, in
// step with it, with nothing left to catch up, and that the documents
// the indexer built from the batches in memory are those the store's
// chunks give.
func TestBulkStageIsIndexedAsItGoes(t *testing.T) {
	msgs := synth.Corpus(synth.Options{Seed: 11, Pairs: bulkMin + 500, PerSession: 20, Start: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), Span: 30 * 24 * time.Hour})
	path := writeJSONL(t, t.TempDir(), "bulk.jsonl", msgs, "")
	e := openTest(t)
	other := []core.Message{msg("other", time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), core.RoleUser, "an earlier question about the deploy budget")}
	ingest(t, e, other)
	var mu sync.Mutex
	var seen []string // the sessions of the hits of recalls during the stage
	var counts []uint64
	batches := 0
	last := map[string]*index.Doc{} // the last document sent for each chunk; nil: removed
	stageIndexedHook = func(w *writer, docs []index.Doc, removed []string) {
		mu.Lock()
		for i := range docs {
			last[docs[i].ID] = &docs[i]
		}
		for _, id := range removed {
			last[id] = nil
		}
		mu.Unlock()
		res, err := e.Recall(t.Context(), core.Query{Text: msgs[len(msgs)/2].Text, TopK: 5})
		if err != nil {
			t.Error(err)
			return
		}
		n, _ := e.ix.Count()
		mu.Lock()
		defer mu.Unlock()
		batches++
		counts = append(counts, n)
		for _, h := range res.Hits {
			seen = append(seen, h.Session)
		}
	}
	t.Cleanup(func() { stageIndexedHook = nil })
	res, err := e.IngestSource(t.Context(), path, SourceOptions{Location: time.UTC, BatchMessages: 400})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != len(msgs) {
		t.Errorf("%d messages added, want %d", res.Added, len(msgs))
	}
	mu.Lock()
	if batches < 2 {
		t.Errorf("the indexer indexed %d batches during the stage, want several", batches)
	}
	if slices.ContainsFunc(counts, func(n uint64) bool { return n != 1 }) {
		t.Errorf("index counts during the stage %v, want 1 (the chunk stored before)", counts)
	}
	if slices.ContainsFunc(seen, func(s string) bool { return s != "other" }) {
		t.Errorf("recalls during the stage returned hits of sessions %q, want only the one stored before", seen)
	}
	mu.Unlock()
	var chunks, outbox int
	var gen uint64
	e.st.View(func(tx *store.Tx) error {
		chunks, _ = tx.Counts()
		outbox, gen = tx.OutboxLen(), tx.Gen()
		return nil
	})
	n, _ := e.ix.Count()
	igen, _ := e.ix.Gen()
	if int(n) != chunks || igen != gen || outbox != 0 {
		t.Errorf("after the ingest: index %d chunks at generation %d, store %d chunks at %d with %d queued; want the same, none queued", n, igen, chunks, gen, outbox)
	}
	if len(last) < bulkMin {
		t.Errorf("the indexer sent %d chunks, want at least %d", len(last), bulkMin)
	}
	e.st.View(func(tx *store.Tx) error {
		for id, sent := range last {
			c, err := tx.Chunk(id)
			if sent == nil {
				if err == nil {
					t.Errorf("chunk %s was removed from the index but the store holds it", id)
				}
				continue
			}
			if err != nil {
				t.Errorf("chunk %s was indexed but the store lacks it: %v", id, err)
				continue
			}
			want, err := e.doc(tx, c)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, *sent); diff != "" {
				t.Errorf("chunk %s: the document built in memory differs from the stored chunk's (-store +memory):\n%s", id, diff)
			}
		}
		return nil
	})
	got, err := e.Recall(t.Context(), core.Query{Text: msgs[len(msgs)/2].Text, TopK: 5})
	if err != nil || len(got.Hits) == 0 || got.Hits[0].Session == "other" {
		t.Errorf("after the ingest, a recall of a message of the file found %v (%v), want it first", got.Hits, err)
	}
}
