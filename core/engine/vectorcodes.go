package engine

import (
	"time"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// Vector codes, for a smaller footprint: the vector index scans the int8
// codes the store keeps beside the vectors and rescores its candidates
// with their float32s (core/vector's codesearch.go, core/store's
// vecq.go).

// vectorCodes returns what the vector index reads codes and candidates
// through.
func (s *shared) vectorCodes() *vector.Codes {
	return &vector.Codes{Ready: s.vectorCodesReady, Load: s.loadVectorCodes, Fetch: s.fetchVectors}
}

func (s *shared) vectorCodesReady() (bool, error) {
	var ok bool
	err := s.st.View(func(tx *store.Tx) error { ok = tx.VectorCodesReady(); return nil })
	return ok, err
}

func (s *shared) loadVectorCodes(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
	return s.st.View(func(tx *store.Tx) error { return tx.ScanVectorCodes(ns, from, to, fn) })
}

func (s *shared) fetchVectors(ns string, keys []vector.Key, fn func(int, []byte) error) error {
	return s.st.View(func(tx *store.Tx) error {
		// The candidates lie scattered over the store, and each would
		// keep 64 KiB of its map resident: let them go in batches,
		// unless the process keeps them (Options.LongLived).
		var done [][]byte
		defer func() { tx.ReleaseVectors(done) }()
		release := !s.longLived
		tx.PrefetchVectorsAt(ns, keys)
		for i, k := range keys {
			raw := tx.VectorAt(ns, k.Time, k.ID)
			if raw == nil {
				continue
			}
			if err := fn(i, raw); err != nil {
				return err
			}
			if !release {
				continue
			}
			if done = append(done, raw); len(done) == releaseBatch {
				tx.ReleaseVectors(done)
				done = done[:0]
			}
		}
		return nil
	})
}
