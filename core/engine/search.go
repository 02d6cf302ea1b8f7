package engine

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// The hybrid search of one time window: BM25 and vector candidates in one
// pool, each given the signal its list lacked.

// search runs the hybrid search for one window and returns the fused
// candidates, best first. The caller holds ixMu for reading.
func (e *Engine) search(ctx context.Context, ix Lexical, p params) ([]cand, error) {
	r := e.cfg.Retriever
	// Neighbours count at query time (addContext), not through the index's
	// ctx field, which ingest no longer fills.
	bq := index.Search{Text: p.text, ReplyBoost: *r.ReplyBoost, NS: p.ns, Since: p.since, Before: p.before, Size: p.pool}
	if p.filter != nil {
		bq.Filter = p.filter.expr
	}
	pl := &candPool{byID: map[string]*cand{}}
	if err := pl.addBM25(ctx, ix, bq); err != nil {
		return nil, err
	}
	// Neighbour context (neighbours.go): the in-scope neighbours of the
	// BM25 candidates join the pool, and the neighbours of every candidate
	// are scored with the candidates that lack a BM25 score.
	boost := *r.ContextBoost
	var hs map[string]store.ChunkHead
	if boost > 0 && p.text != "" {
		var err error
		if hs, err = e.addNeighbours(p, pl); err != nil {
			return nil, err
		}
	}
	qv, err := e.addVectors(ctx, ix, p, pl)
	if err != nil {
		return nil, err
	}
	var around []string
	if hs != nil {
		if around, err = e.contextIDs(pl, hs); err != nil {
			return nil, err
		}
	}
	own, err := e.fillSignals(ctx, ix, bq, qv, pl, around)
	if err != nil {
		return nil, err
	}
	if hs != nil {
		addContext(pl, hs, own, boost)
	}
	// A candidate with no shared term and no positive similarity is no
	// evidence at all.
	order := pl.order[:0]
	for _, c := range pl.order {
		if c.bm25 > 0 || c.cos > 0 || p.text == "" {
			order = append(order, c)
		}
	}
	if err := e.fuse(ctx, ix, p.ns, order); err != nil {
		return nil, err
	}
	slices.SortFunc(order, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.time, a.time), cmp.Compare(a.id, b.id))
	})
	out := make([]cand, len(order))
	for i, c := range order {
		out[i] = *c
	}
	return out, nil
}

// candPool gathers the candidates of one search, each once, in the order
// they were first found.
type candPool struct {
	byID  map[string]*cand
	order []*cand
}

func (pl *candPool) get(id string) *cand {
	c := pl.byID[id]
	if c == nil {
		c = &cand{id: id, bm25: -1, cos: -2}
		pl.byID[id] = c
		pl.order = append(pl.order, c)
	}
	return c
}

// addBM25 adds the BM25 search's candidates, with their scores and ranks.
func (pl *candPool) addBM25(ctx context.Context, ix Lexical, bq index.Search) error {
	bm, err := ix.Search(ctx, bq)
	if err != nil {
		return err
	}
	for i, m := range bm {
		c := pl.get(m.ID)
		c.bm25, c.bmRank, c.session = m.Score, i+1, m.Session
	}
	return nil
}

// addVectors embeds the query and adds the cosine scan's candidates (the
// backend's vector search when it has one), with their similarities and
// ranks. It returns the query vector, or nil when the vector signal is off
// or there is no text.
func (e *Engine) addVectors(ctx context.Context, ix Lexical, p params, pl *candPool) ([]float32, error) {
	if p.text == "" || e.cfg.Retriever.VectorWeight <= 0 {
		return nil, nil
	}
	vecs, err := e.embed(ctx, []string{p.text})
	if err != nil {
		return nil, err
	}
	qv := vecs[0]
	var allow func(string) bool
	if p.filter != nil {
		if allow, err = e.filterAllow(ctx, ix, p); err != nil {
			return nil, err
		}
	}
	var vm []vector.Match
	if e.backend != nil && e.backend.Vectors != nil {
		vm, err = e.backend.Vectors.Search(ctx, p.ns, qv, p.since, p.before, p.pool, allow)
	} else {
		vm, err = e.vx.Search(p.ns, qv, p.since, p.before, p.pool, allow)
	}
	if err != nil {
		return nil, err
	}
	for i, m := range vm {
		c := pl.get(m.ID)
		c.cos, c.time, c.vRank = float64(m.Score), m.Time, i+1
	}
	return qv, nil
}

// fillSignals gives every candidate the signal that its list did not,
// exactly: the BM25 score of those only the vectors (or the neighbour
// context) found, and the cosine (and time) of those only BM25 found. It
// returns the BM25 scores of the chunks in also, which are not
// candidates (see neighbours.go); those that share no term are absent.
func (e *Engine) fillSignals(ctx context.Context, ix Lexical, bq index.Search, qv []float32, pl *candPool, also []string) (map[string]float64, error) {
	var needBM []string
	for _, c := range pl.order {
		if c.bm25 < 0 {
			needBM = append(needBM, c.id)
		}
	}
	var own map[string]float64
	if len(also) > 0 {
		own = make(map[string]float64, len(also))
	}
	if len(needBM)+len(also) > 0 && bq.Text != "" {
		// Every candidate is in the search's scope already, and scores do
		// not depend on it: the chunks of also need not be.
		ids := append(needBM, also...)
		bq.IDs, bq.Size, bq.Since, bq.Before, bq.Filter = ids, len(ids), time.Time{}, time.Time{}, nil
		more, err := ix.Search(ctx, bq)
		if err != nil {
			return nil, err
		}
		for _, m := range more {
			if c := pl.byID[m.ID]; c != nil {
				c.bm25, c.session = m.Score, m.Session
			} else {
				own[m.ID] = m.Score
			}
		}
	}
	return own, e.st.View(func(tx *store.Tx) error {
		for _, c := range pl.order {
			if c.bm25 < 0 {
				c.bm25 = 0
			}
			if c.cos > -2 {
				continue
			}
			raw, t := tx.RawVector(c.id)
			c.time, c.cos = t, 0
			if raw != nil && qv != nil {
				c.cos = float64(vector.Dot(qv, store.DecodeVector(nil, raw)))
			}
		}
		return nil
	})
}
