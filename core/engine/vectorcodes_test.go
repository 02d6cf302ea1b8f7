package engine

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// recallAll returns the hits of each query, ids and scores.
func recallAll(t *testing.T, e *Engine, queries []string) [][]core.Hit {
	t.Helper()
	var out [][]core.Hit
	for _, q := range queries {
		res, err := e.Recall(t.Context(), core.Query{Text: q, TopK: 10})
		if err != nil {
			t.Fatalf("Recall %q: %v", q, err)
		}
		out = append(out, res.Hits)
	}
	return out
}

func codesReady(t *testing.T, e *Engine) bool {
	t.Helper()
	ok, err := e.vectorCodesReady()
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

// TestVectorCodesOfAnOldHome takes a home back to before codes (no vecq
// bucket, no flag, schema 2) and checks that its recalls, from a shared
// read-only engine, find what they found with codes and write nothing;
// that the next ingest writes the codes; and that searches of the codes
// then find what the float32s find.
func TestVectorCodesOfAnOldHome(t *testing.T) {
	home := t.TempDir()
	start := time.Date(2026, 2, 2, 9, 0, 0, 0, time.UTC)
	queries := []string{"deploy the model", "kyoto temple budget", "咖啡 旅行", "guitar concert ticket", "vector search latency"}
	e := openHome(t, home)
	ingest(t, e, corpus(7, 600, 20, start))
	if !codesReady(t, e) {
		t.Fatalf("a new home's codes are not ready")
	}
	want := recallAll(t, e, queries)
	e.Close()

	path := filepath.Join(home, store.FileName)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket([]byte("vecq")); err != nil {
			return err
		}
		if err := tx.Bucket([]byte("meta")).Delete([]byte("vecq_complete")); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte("2"))
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	before := sum(t, path)
	cfg := core.Config{}
	cfg.Storage.Home = home
	ro, err := openWith(t, cfg, Options{Logf: t.Logf, Access: AccessShared})
	if err != nil {
		t.Fatal(err)
	}
	if codesReady(t, ro) {
		t.Errorf("codes ready in a home without them")
	}
	if diff := cmp.Diff(want, recallAll(t, ro, queries)); diff != "" {
		t.Errorf("recalls without codes (-with codes +without):\n%s", diff)
	}
	ro.Close()
	if sum(t, path) != before {
		t.Errorf("a shared engine's recalls changed the store file")
	}

	e = openHome(t, home)
	if diff := cmp.Diff(want, recallAll(t, e, queries)); diff != "" {
		t.Errorf("recalls without codes, exclusive (-with codes +without):\n%s", diff)
	}
	if codesReady(t, e) {
		t.Errorf("codes ready before an ingest")
	}
	ingest(t, e, []core.Message{msg("other", start, core.RoleUser, "an unrelated note")})
	if !codesReady(t, e) {
		t.Fatalf("codes not ready after an ingest")
	}
	// The backfilled codes find what the float32s find.
	exact := vector.NewWithOptions(e.info.Dim, e.loadVectors, vector.Options{CacheBytes: -1})
	for _, q := range queries {
		vs, err := e.emb.Embed(t.Context(), []string{q})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{10, 100} {
			w, err := exact.Search("", vs[0], time.Time{}, time.Time{}, k, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.vx.Search("", vs[0], time.Time{}, time.Time{}, k, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("%q, k=%d (-float32s +codes):\n%s", q, k, diff)
			}
		}
	}
}
