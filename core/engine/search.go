package engine

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
	"golang.org/x/sync/errgroup"
)

// The hybrid search of one time window: BM25 and vector candidates in one
// pool, each given the signal its list lacked.

// search runs the hybrid search for one window and returns the fused
// candidates, best first. The caller holds ixMu for reading.
func (r *reader) search(ctx context.Context, ix Lexical, p params) ([]cand, error) {
	rc := r.cfg.Retriever
	// Neighbours count at query time (addContext), not through the index's
	// ctx field, which ingest no longer fills.
	bq := index.Search{Text: p.text, ReplyBoost: *rc.ReplyBoost, NS: p.ns, Since: p.since, Before: p.before, Size: p.pool}
	if p.filter != nil {
		bq.Filter = p.filter.expr
	}
	// With the neighbour context on, contextIDs reads every candidate's
	// head from the store, and a head names the chunk's session: the BM25
	// searches need not read each match's stored fields for it.
	bq.NoSession = *rc.ContextBoost > 0 && p.text != ""
	// The vector side (the query's embedding, the scan, the rescoring)
	// needs nothing of the BM25 side, so it runs beside it, on the other
	// core; its candidates join the pool after the neighbours, as they
	// would one after the other.
	var vg errgroup.Group
	var qv []float32
	var vm []vector.Match
	// Behind a backend the vector side also reads its candidates' heads,
	// which contextIDs needs, as soon as it has them: beside the BM25
	// side's reads instead of after them.
	var vhs map[string]store.ChunkHead
	vg.Go(func() (err error) {
		qv, vm, err = r.searchVectors(ctx, ix, p)
		if err != nil || r.backend == nil || !bq.NoSession || len(vm) == 0 {
			return err
		}
		ids := make([]string, len(vm))
		for i, m := range vm {
			ids[i] = m.ID
		}
		vhs = make(map[string]store.ChunkHead, len(ids))
		return r.heads(vhs, ids)
	})
	pl := &candPool{byID: map[string]*cand{}}
	if r.backend != nil && bq.NoSession && rc.VectorWeight > 0 {
		pl.ahead = &vecAhead{raw: map[string]aheadVec{}}
	}
	defer func() {
		pl.ahead.wait()
		pl.all.Close()
	}()
	hs, err := r.lexicalCandidates(ctx, ix, p, bq, pl)
	if verr := vg.Wait(); err == nil {
		err = verr
	}
	if err != nil {
		return nil, err
	}
	pl.addVectors(vm)
	if hs != nil {
		for id, h := range vhs {
			if _, ok := hs[id]; !ok {
				hs[id] = h
			}
		}
	}
	// The pool is complete: the cosines of the candidates the vectors did
	// not find are read beside the context's heads and the missing BM25
	// scores (a backend's store answers each read in a round trip).
	var cg errgroup.Group
	if need := pl.needCosines(); len(need) > 0 {
		at := make(map[string]int64, len(need))
		for _, c := range need {
			if h, ok := hs[c.id]; ok {
				at[c.id] = h.Time.UnixNano()
			}
		}
		cg.Go(func() error {
			ahead, err := pl.ahead.wait()
			if err != nil {
				return err
			}
			return r.fillCosines(qv, p.ns, need, at, ahead)
		})
	}
	own, err := r.contextAndBM25(ctx, ix, bq, pl, hs)
	if cerr := cg.Wait(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if hs != nil {
		addContext(pl, hs, own, *rc.ContextBoost)
		for _, c := range pl.order {
			c.head, c.hasHead = hs[c.id]
		}
	}
	// A candidate with no shared term and no positive similarity is no
	// evidence at all.
	order := pl.order[:0]
	for _, c := range pl.order {
		if c.bm25 > 0 || c.cos > 0 || p.text == "" {
			order = append(order, c)
		}
	}
	if err := r.fuse(ctx, ix, p.ns, order); err != nil {
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
	// ahead, when set, reads the candidates' vectors as their heads come
	// (vecahead.go).
	ahead *vecAhead
	// all holds the BM25 score of every chunk the BM25 search matched
	// when the search could keep them (see addBM25); nil otherwise. The
	// search closes it.
	all *index.Scores
}

// allScorer is a Lexical whose search can return the score of every
// match besides the top ones (core/index; see [index.Index.SearchAll]).
type allScorer interface {
	SearchAll(ctx context.Context, s index.Search, limit int) ([]index.Match, *index.Scores, error)
}

// allScoresLimit bounds the matches whose scores a BM25 search keeps (16
// bytes each); a query that matches more falls back to the second,
// ID-restricted search of fillBM25.
const allScoresLimit = 1 << 16

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
// When the search's scope is the namespace alone and sessions come from
// the chunk heads (bq.NoSession), it also keeps the score of every match
// in pl.all, so that fillBM25 needs no second search: a chunk of the
// namespace that the search did not match shares no term with the query.
func (pl *candPool) addBM25(ctx context.Context, ix Lexical, bq index.Search) error {
	var bm []index.Match
	var err error
	if as, ok := ix.(allScorer); ok && bq.NoSession && bq.Text != "" && bq.Since.IsZero() && bq.Before.IsZero() && bq.Filter == nil && len(bq.IDs) == 0 {
		bm, pl.all, err = as.SearchAll(ctx, bq, allScoresLimit)
	} else {
		bm, err = ix.Search(ctx, bq)
	}
	if err != nil {
		return err
	}
	for i, m := range bm {
		c := pl.get(m.ID)
		c.bm25, c.bmRank, c.session = m.Score, i+1, m.Session
	}
	return nil
}

// lexicalCandidates adds the BM25 search's candidates to pl and, with
// the neighbour context on (neighbours.go), the in-scope neighbours of
// those candidates, returning the chunk heads it read for them (nil with
// the context off or no text).
func (r *reader) lexicalCandidates(ctx context.Context, ix Lexical, p params, bq index.Search, pl *candPool) (map[string]store.ChunkHead, error) {
	if err := pl.addBM25(ctx, ix, bq); err != nil {
		return nil, err
	}
	if *r.cfg.Retriever.ContextBoost <= 0 || p.text == "" {
		return nil, nil
	}
	return r.addNeighbours(p, pl)
}

// searchVectors embeds the query and runs the cosine scan (the backend's
// vector search when it has one). It returns the query vector and the
// scan's matches, best first, or nothing when the vector signal is off or
// there is no text. It touches no candidate pool, so that it can run
// beside the BM25 search.
func (r *reader) searchVectors(ctx context.Context, ix Lexical, p params) ([]float32, []vector.Match, error) {
	if p.text == "" || r.cfg.Retriever.VectorWeight <= 0 {
		return nil, nil, nil
	}
	vecs, err := r.embed(ctx, []string{p.text})
	if err != nil {
		return nil, nil, err
	}
	qv := vecs[0]
	if !slices.ContainsFunc(qv, func(f float32) bool { return f != 0 }) {
		// The embedder gives the query no meaning (use-lite, for Chinese
		// text): the search is by words alone.
		return nil, nil, nil
	}
	var allow func(string) bool
	if p.filter != nil {
		if allow, err = r.filterAllow(ctx, ix, p); err != nil {
			return nil, nil, err
		}
	}
	var vm []vector.Match
	if r.backend != nil && r.backend.Vectors != nil {
		vm, err = r.backend.Vectors.Search(ctx, p.ns, qv, p.since, p.before, p.pool, allow)
	} else {
		vm, err = r.vx.Search(p.ns, qv, p.since, p.before, p.pool, allow)
	}
	if err != nil {
		return nil, nil, err
	}
	return qv, vm, nil
}

// addVectors adds the cosine scan's candidates, with their similarities
// and ranks.
func (pl *candPool) addVectors(vm []vector.Match) {
	for i, m := range vm {
		c := pl.get(m.ID)
		c.cos, c.time, c.vRank = float64(m.Score), m.Time, i+1
	}
}

// needCosines returns the candidates without a cosine: those the vector
// search did not return.
func (pl *candPool) needCosines() []*cand {
	var need []*cand
	for _, c := range pl.order {
		if c.cos <= -2 {
			need = append(need, c)
		}
	}
	return need
}

// contextAndBM25 reads the heads the neighbour context needs (with hs,
// the heads lexicalCandidates read; nil with the context off), gives the
// candidates without a BM25 score theirs, and returns the own scores of
// the neighbours outside the pool (see fillBM25).
func (r *reader) contextAndBM25(ctx context.Context, ix Lexical, bq index.Search, pl *candPool, hs map[string]store.ChunkHead) (map[string]float64, error) {
	var around []string
	if hs != nil {
		var err error
		if around, err = r.contextIDs(pl, hs); err != nil {
			return nil, err
		}
	}
	var need []*cand
	for _, c := range pl.order {
		if c.bm25 < 0 {
			need = append(need, c)
		}
	}
	return fillBM25(ctx, ix, bq, pl, need, around)
}

// fillBM25 gives the candidates in need their BM25 scores (0 for those
// that share no term) and returns those of the chunks in also: from the
// scores the first search kept (pl.all), or else from a second search
// restricted to them.
func fillBM25(ctx context.Context, ix Lexical, bq index.Search, pl *candPool, need []*cand, also []string) (map[string]float64, error) {
	var own map[string]float64
	if len(also) > 0 {
		own = make(map[string]float64, len(also))
	}
	ids := make([]string, 0, len(need)+len(also))
	for _, c := range need {
		ids = append(ids, c.id)
	}
	ids = append(ids, also...)
	var scores map[string]float64
	switch {
	case len(ids) == 0 || bq.Text == "":
	case pl.all != nil:
		var err error
		if scores, err = pl.all.Of(ids); err != nil {
			return nil, err
		}
	default:
		// Every candidate is in the search's scope already, and scores do
		// not depend on it: the chunks of also need not be.
		bq.IDs, bq.Size, bq.Since, bq.Before, bq.Filter = ids, len(ids), time.Time{}, time.Time{}, nil
		more, err := ix.Search(ctx, bq)
		if err != nil {
			return nil, err
		}
		scores = make(map[string]float64, len(more))
		for _, m := range more {
			scores[m.ID] = m.Score
			if c := pl.byID[m.ID]; c != nil && m.Session != "" {
				c.session = m.Session
			}
		}
	}
	for _, c := range need {
		c.bm25 = scores[c.id] // 0 for a chunk that shares no term
	}
	for _, id := range also {
		if s, ok := scores[id]; ok && pl.byID[id] == nil {
			own[id] = s
		}
	}
	return own, nil
}

// fillCosines gives the candidates their times and their cosines with
// the query vector qv (0 without one, or for a chunk with no vector).
// ahead holds the vectors read ahead (vecahead.go). at holds the chunk
// times of candidates whose heads were read: a chunk's vector is stored
// under its namespace ns and time, so that it is read in one lookup,
// where finding it by id alone takes two (on a backend, two round trips).
// A candidate whose vector is not under its time (or not in at) is looked
// up by id.
func (r *reader) fillCosines(qv []float32, ns string, need []*cand, at map[string]int64, ahead map[string]aheadVec) error {
	var v []float32
	cosine := func(c *cand, raw []byte) {
		c.cos = 0
		if raw != nil && qv != nil {
			v = store.DecodeVector(v[:0], raw)
			c.cos = float64(vector.Dot(qv, v))
		}
	}
	var left []*cand
	for _, c := range need {
		if a, ok := ahead[c.id]; ok {
			c.time = a.time
			cosine(c, a.raw)
		} else {
			left = append(left, c)
		}
	}
	if len(left) == 0 {
		return nil
	}
	need = left
	return r.st.View(func(tx *store.Tx) error {
		var keys []vector.Key
		for _, c := range need {
			if t, ok := at[c.id]; ok {
				keys = append(keys, vector.Key{ID: c.id, Time: t})
			}
		}
		tx.PrefetchVectorsAt(ns, keys)
		var byID []*cand
		for _, c := range need {
			t, ok := at[c.id]
			var raw []byte
			if ok {
				raw = tx.VectorAt(ns, t, c.id)
			}
			if raw == nil {
				byID = append(byID, c)
				continue
			}
			c.time = t
			cosine(c, raw)
		}
		ids := make([]string, len(byID))
		for i, c := range byID {
			ids[i] = c.id
		}
		tx.PrefetchRawVectors(ids)
		for _, c := range byID {
			raw, t := tx.RawVector(c.id)
			c.time = t
			cosine(c, raw)
		}
		return nil
	})
}
