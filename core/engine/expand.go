package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// Hits become chunks with their text, and the neighbours around them.

// expand loads the hits and, with window > 0, the window chunks before and
// after each one, found through the anchors. No chunk appears twice; a hit
// met as another hit's neighbour keeps its role and score.
func (r *reader) expand(ns string, hits []cand, window int) ([]core.Hit, error) {
	// A read transaction sees the store as it was when it began, but a
	// sealed week's archive is a file: when the week is re-sealed (a late
	// message re-opened it) between the two, the snapshot's hash names
	// the old archive and the file is the new one. A fresh transaction
	// sees the new seal; real corruption fails every attempt.
	var out []core.Hit
	var err error
	for range 3 {
		out, err = r.expandOnce(ns, hits, window)
		if !errors.Is(err, errSealedRead) {
			break
		}
	}
	return out, err
}

func (r *reader) expandOnce(ns string, hits []cand, window int) ([]core.Hit, error) {
	byID := map[string]*cand{}
	for i := range hits {
		byID[hits[i].id] = &hits[i]
	}
	out := []core.Hit{}
	emitted := map[string]bool{}
	err := r.st.View(func(tx *store.Tx) error {
		load := func(id string) (*store.Chunk, error) {
			c, err := tx.Chunk(id)
			if err != nil {
				return nil, err
			}
			if c.NS != ns {
				return nil, fmt.Errorf("chunk %q: %w", id, core.ErrNotFound)
			}
			return c, nil
		}
		emit := func(c *store.Chunk) error {
			if emitted[c.ID] {
				return nil
			}
			emitted[c.ID] = true
			chunk, err := r.hydrate(tx, c)
			if err != nil {
				return err
			}
			h := core.Hit{Chunk: *chunk, ContextRole: core.RoleNeighbor}
			if hc := byID[c.ID]; hc != nil {
				h.ContextRole = core.RoleHit
				h.Score = round(hc.score)
				h.Scores = core.Scores{Vector: round(hc.nv), BM25: round(hc.nb)}
				h.Relevance = round(hc.rel)
			}
			out = append(out, h)
			return nil
		}
		// The chunks first, then their messages: behind a database each
		// step is one round trip (store.Tx.PrefetchChunks).
		ids := make([]string, len(hits))
		for i := range hits {
			ids[i] = hits[i].id
		}
		tx.PrefetchChunks(ids)
		var all []*store.Chunk
		grouped := map[string]bool{}
		for _, h := range hits {
			if grouped[h.id] {
				continue
			}
			c, err := load(h.id)
			if err != nil {
				return err
			}
			group, err := neighbours(load, c, window)
			if err != nil {
				return err
			}
			for _, g := range group {
				grouped[g.ID] = true
			}
			all = append(all, group...)
		}
		tx.PrefetchMessages(all)
		for _, c := range all {
			if err := emit(c); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// neighbours returns the window chunks before c, c, and the window chunks
// after it, in conversation order.
func neighbours(load func(string) (*store.Chunk, error), c *store.Chunk, window int) ([]*store.Chunk, error) {
	var before []*store.Chunk
	cur := c
	for i := 0; i < window && cur.Prev != ""; i++ {
		p, err := load(cur.Prev)
		if err != nil {
			return nil, fmt.Errorf("following prev of %s: %w", cur.ID, err)
		}
		before = append(before, p)
		cur = p
	}
	slices.Reverse(before)
	group := append(before, c)
	cur = c
	for i := 0; i < window && cur.Next != ""; i++ {
		n, err := load(cur.Next)
		if err != nil {
			return nil, fmt.Errorf("following next of %s: %w", cur.ID, err)
		}
		group = append(group, n)
		cur = n
	}
	return group, nil
}

func round(f float64) float64 {
	const p = 1e6
	return float64(int64(f*p+0.5)) / p
}
