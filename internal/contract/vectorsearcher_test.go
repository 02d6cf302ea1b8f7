package contract

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/postgres"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
	"github.com/huimemory/huimemory/internal/pgtest"
	"github.com/huimemory/huimemory/plugins/host"
)

// searchCall is one call of a backend's vector search.
type searchCall struct {
	NS            string
	Dim           int
	Since, Before time.Time
	K             int
	Filtered      bool
}

// recordingSearcher is a backend vector search (what pgvector's HNSW
// index is on PostgreSQL) that records its calls and answers with answer.
type recordingSearcher struct {
	mu     sync.Mutex
	calls  []searchCall
	answer func(ns string, q []float32, since, before time.Time, k int, allow func(string) bool) ([]vector.Match, error)
}

func (r *recordingSearcher) Search(_ context.Context, ns string, q []float32, since, before time.Time, k int, allow func(string) bool) ([]vector.Match, error) {
	r.mu.Lock()
	r.calls = append(r.calls, searchCall{ns, len(q), since, before, k, allow != nil})
	r.mu.Unlock()
	return r.answer(ns, q, since, before, k, allow)
}

// exactSearch answers as core/vector's exact scan does, from st.
func exactSearch(st *store.Store) func(ns string, q []float32, since, before time.Time, k int, allow func(string) bool) ([]vector.Match, error) {
	return func(ns string, q []float32, since, before time.Time, k int, allow func(string) bool) ([]vector.Match, error) {
		var all []vector.Match
		err := st.View(func(tx *store.Tx) error {
			return tx.ScanVectors(ns, since, before, func(idb []byte, tm int64, raw []byte) error {
				id := string(idb)
				if allow == nil || allow(id) {
					all = append(all, vector.Match{ID: id, Time: tm, Score: vector.Dot(q, store.DecodeVector(nil, raw))})
				}
				return nil
			})
		})
		slices.SortStableFunc(all, func(a, b vector.Match) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Time, a.Time))
		})
		return all[:min(k, len(all))], err
	}
}

// openWithSearcher opens an engine on the PostgreSQL database of cfg
// whose backend searches vectors with vs, as plugins/host does with
// storage.postgres.hnsw set.
func openWithSearcher(t *testing.T, cfg core.Config, vs func(b *postgres.Backend) engine.VectorSearcher) *engine.Engine {
	t.Helper()
	b, err := postgres.OpenBackend(t.Context(), cfg.Storage.Postgres, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	eb := host.PostgresBackend(b)
	if eb.Vectors != nil {
		t.Fatal("a backend opened without hnsw has a vector search")
	}
	eb.Vectors = vs(b)
	cfg.Plugins.Subprocess = false
	e, err := host.Open(t.Context(), cfg, engine.Options{Access: engine.AccessShared, LockWait: 10 * time.Second, Backend: eb}, host.Options{})
	if err != nil {
		b.DB.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(); b.DB.Close() })
	return e
}

// TestBackendVectorSearch: with a backend vector search, recall takes
// its vector candidates from it (with the query's namespace, window and
// filter) and ranks them as it ranks the exact scan's: an engine whose
// backend search is exact returns what an engine on its own cache does,
// on the same database.
func TestBackendVectorSearch(t *testing.T) {
	cfg := utc(core.Config{})
	cfg.Storage.Home = t.TempDir()
	cfg.Storage.Backend = core.BackendPostgres
	cfg.Storage.Postgres.DSN = pgtest.DSN(t)

	cache := open(t, cfg) // exact, over its own cache
	topics := []string{"kubernetes autoscaling", "sourdough starter", "tax filing deadline", "marathon training", "violin lessons", "garden irrigation"}
	msgs := chat("team", "s1", len(topics), func(i int) string { return topics[i] })
	ingest(t, cache, msgs)
	target := chunkHolding(t, cache, "team", "s1", "violin lessons")

	exact := &recordingSearcher{}
	viaBackend := openWithSearcher(t, cfg, func(b *postgres.Backend) engine.VectorSearcher {
		exact.answer = exactSearch(b.Store)
		return exact
	})
	windowed := core.Query{Namespace: "team", TopK: 3, NoTime: true, Text: "training lessons",
		Since: base.Add(2 * time.Minute), Before: base.Add(5 * time.Minute)}
	for _, q := range []core.Query{
		{Namespace: "team", TopK: 3, NoTime: true, Text: "sourdough starter"},
		{Namespace: "team", TopK: 6, NoTime: true, Text: "deadline for irrigation"},
		windowed,
		{Namespace: "team", TopK: 2, NoTime: true, Text: "autoscaling", Filter: "role = 'assistant'"},
		{Namespace: "other", TopK: 2, NoTime: true, Text: "sourdough"},
	} {
		want, got := recall(t, cache, q), recall(t, viaBackend, q)
		if diff := gocmp.Diff(want.Hits, got.Hits); diff != "" {
			t.Errorf("recall(%q) (-own cache +backend search):\n%s", q.Text, diff)
		}
	}
	seen := map[string]bool{}
	for _, c := range exact.calls {
		if c.NS == "team" && c.Since.Equal(windowed.Since) && c.Before.Equal(windowed.Before) && !c.Filtered {
			seen["window"] = true
		}
		if c.NS == "team" && c.Filtered {
			seen["filter"] = true
		}
		if c.NS == "other" {
			seen["other namespace"] = true
		}
		if c.Dim == 0 || c.K < 2 {
			t.Errorf("call %+v: no query vector, or k below top_k", c)
		}
	}
	if len(seen) != 3 {
		t.Errorf("the backend search saw %v of window, filter and other namespace; calls %+v", seen, exact.calls)
	}

	// Its hits are recall's: a search that finds only the violin chunk,
	// for words that no chunk holds.
	only := &recordingSearcher{answer: func(ns string, _ []float32, _, _ time.Time, _ int, _ func(string) bool) ([]vector.Match, error) {
		if ns != "team" {
			return nil, nil
		}
		return []vector.Match{{ID: target, Time: base.Add(4 * time.Minute).UnixNano(), Score: 0.9}}, nil
	}}
	fake := openWithSearcher(t, cfg, func(*postgres.Backend) engine.VectorSearcher { return only })
	res := recall(t, fake, core.Query{Namespace: "team", TopK: 3, NoTime: true, Text: "zyzzyva quokka"})
	if ids := idsOf(res.Hits); !slices.Equal(ids, []string{target}) {
		t.Errorf("recall through a search that finds %s returned %v", target, ids)
	}
	if len(only.calls) == 0 {
		t.Error("recall did not call the backend's vector search")
	}
}
