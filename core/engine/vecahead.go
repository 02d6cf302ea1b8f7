package engine

import (
	"bytes"
	"sync"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
	"golang.org/x/sync/errgroup"
)

// vecAhead reads the vectors of a search's candidates as soon as their
// heads give their keys (a chunk's vector is stored under its namespace
// and time), each read beside the next read of heads, so that the
// cosines need no read of their own when the pool is complete. Only
// behind a backend, where each read is a round trip; in a home the
// vectors are read where they are needed.
type vecAhead struct {
	g   errgroup.Group
	mu  sync.Mutex
	raw map[string]aheadVec
}

// aheadVec is a vector read ahead: a copy of its stored bytes and its
// time in Unix nanoseconds.
type aheadVec struct {
	raw  []byte
	time int64
}

// read starts reading the vectors of the chunks ids of namespace ns that
// have a head in hs (and are not read already).
func (a *vecAhead) read(st *store.Store, ns string, ids []string, hs map[string]store.ChunkHead) {
	if a == nil {
		return
	}
	var keys []vector.Key
	for _, id := range ids {
		if h, ok := hs[id]; ok && h.NS == ns {
			keys = append(keys, vector.Key{ID: id, Time: h.Time.UnixNano()})
		}
	}
	if len(keys) == 0 {
		return
	}
	a.g.Go(func() error {
		got := make(map[string]aheadVec, len(keys))
		err := st.View(func(tx *store.Tx) error {
			tx.PrefetchVectorsAt(ns, keys)
			for _, k := range keys {
				if raw := tx.VectorAt(ns, k.Time, k.ID); raw != nil {
					got[k.ID] = aheadVec{bytes.Clone(raw), k.Time}
				}
			}
			return nil
		})
		a.mu.Lock()
		defer a.mu.Unlock()
		for id, v := range got {
			a.raw[id] = v
		}
		return err
	})
}

// wait waits for the reads under way and returns what they found (nil
// for a nil vecAhead).
func (a *vecAhead) wait() (map[string]aheadVec, error) {
	if a == nil {
		return nil, nil
	}
	err := a.g.Wait()
	return a.raw, err
}
