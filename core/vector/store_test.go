package vector_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// TestCodesOfStore checks that core/store writes the codes this package
// reads.
func TestCodesOfStore(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, dim := range []int{0, 1, 7, 256, 1536} {
		for range 20 {
			v := make([]float32, dim)
			for i := range v {
				v[i] = float32(r.NormFloat64() * 3)
			}
			if got, want := store.EncodeVectorCode(v), vector.AppendCode(nil, v); !bytes.Equal(got, want) {
				t.Fatalf("dim %d: store code %v, vector code %v", dim, got, want)
			}
		}
	}
}

// TestSearchOfStore searches a real store by codes and by float32s, wired
// as core/engine wires them, and finds the same matches and scores.
func TestSearchOfStore(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const dim, n = 64, 3000
	r := rand.New(rand.NewPCG(19, 20))
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	var vecs [][]float32
	err = st.Update(func(tx *store.Tx) error {
		for i := range n {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(r.NormFloat64())
			}
			vecs = append(vecs, vector.Normalize(v))
			ns := []string{"a", "b"}[i%2]
			if err := tx.PutVector(ns, start.Add(time.Duration(i)*time.Hour), fmt.Sprintf("c%05d", i), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	load := func(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
		return st.View(func(tx *store.Tx) error { return tx.ScanVectors(ns, from, to, fn) })
	}
	codes := &vector.Codes{
		Ready: func() (ok bool, err error) {
			err = st.View(func(tx *store.Tx) error { ok = tx.VectorCodesReady(); return nil })
			return ok, err
		},
		Load: func(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
			return st.View(func(tx *store.Tx) error { return tx.ScanVectorCodes(ns, from, to, fn) })
		},
		Fetch: func(ns string, keys []vector.Key, fn func(int, []byte) error) error {
			return st.View(func(tx *store.Tx) error {
				for i, k := range keys {
					if raw := tx.VectorAt(ns, k.Time, k.ID); raw != nil {
						if err := fn(i, raw); err != nil {
							return err
						}
					}
				}
				return nil
			})
		},
	}
	exact := vector.NewWithOptions(dim, load, vector.Options{CacheBytes: -1})
	x := vector.NewWithOptions(dim, load, vector.Options{Codes: codes})
	for i := range 40 {
		q := vecs[r.IntN(n)]
		since, before := time.Time{}, time.Time{}
		if i%3 == 1 {
			since, before = start.Add(200*time.Hour), start.Add(900*time.Hour)
		}
		for _, ns := range []string{"a", "b"} {
			for _, k := range []int{1, 20, 100} {
				want, err := exact.Search(ns, q, since, before, k, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := x.Search(ns, q, since, before, k, nil)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("query %d, namespace %s, k=%d (-float32s +codes):\n%s", i, ns, k, diff)
				}
			}
		}
	}
}
