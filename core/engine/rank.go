package engine

import (
	"cmp"
	"context"
	"os"
	"slices"
	"strconv"

	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
)

// relevance scores chunks against one query on an absolute scale, the
// same for every query: the IDF-weighted share of the query's distinct
// terms that the chunk's own text holds, a term found only in its
// neighbours' text counting at the context weight. It reads the index's
// document frequencies once and analyses each chunk's text at most once.
type relevance struct {
	ix    *index.Index
	terms []string
	idf   []float64
	total float64
	ctxW  float64
	n     uint64 // chunks in the index
	cache map[string]map[string]bool
}

// newRelevance prepares the relevance of chunks to text.
func (e *Engine) newRelevance(ctx context.Context, ix *index.Index, text string) (*relevance, error) {
	r := &relevance{ix: ix, ctxW: min(*e.cfg.Retriever.ContextBoost, 1), cache: map[string]map[string]bool{}}
	seen := map[string]bool{}
	for _, t := range ix.Analyze(text) {
		if !seen[t] {
			seen[t] = true
			r.terms = append(r.terms, t)
		}
	}
	var err error
	if r.idf, r.n, err = ix.IDF(ctx, r.terms); err != nil {
		return nil, err
	}
	// Squared weights: a query's rarest terms name its subject, and a
	// chunk that lacks them does not answer it however many of the
	// question's common words it shares.
	for i, w := range r.idf {
		r.idf[i] = w * w
	}
	for _, w := range r.idf {
		r.total += w
	}
	return r, nil
}

// termsOf returns the set of terms in chunk id's text, cached.
func (r *relevance) termsOf(e *Engine, tx *store.Tx, id string) (map[string]bool, error) {
	if set, ok := r.cache[id]; ok {
		return set, nil
	}
	c, err := tx.Chunk(id)
	if err != nil {
		return nil, err
	}
	chunk, err := e.hydrate(tx, c)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, t := range r.ix.Analyze(chunk.Content()) {
		set[t] = true
	}
	r.cache[id] = set
	return set, nil
}

// of returns the relevance of chunk c in [0, 1].
func (r *relevance) of(e *Engine, tx *store.Tx, c *store.Chunk) (float64, error) {
	if r.total == 0 {
		return 0, nil
	}
	own, err := r.termsOf(e, tx, c.ID)
	if err != nil {
		return 0, err
	}
	var nb []map[string]bool
	if r.ctxW > 0 {
		for _, id := range []string{c.Prev, c.Next} {
			if id == "" {
				continue
			}
			set, err := r.termsOf(e, tx, id)
			if err != nil {
				return 0, err
			}
			nb = append(nb, set)
		}
	}
	var sum float64
	for i, t := range r.terms {
		switch {
		case own[t]:
			sum += r.idf[i]
		case len(nb) > 0 && (nb[0][t] || len(nb) > 1 && nb[1][t]):
			sum += r.ctxW * r.idf[i]
		}
	}
	return min(sum/r.total, 1), nil
}

// hitFloorShare is the share of the floor that each hit must reach once the
// query's best hit has reached the whole floor: the floor decides whether a
// query found anything at all, and a lower bar then admits the weaker hits
// that multi-part questions need.
var hitFloorShare = 0.0 // measured: 0.5 costs 0.6 (LoCoMo) and 1.4 (BEAM) points of R@10 more

// minFloorChunks is the smallest index on which the relevance floor
// applies: document frequencies over a few hundred chunks say little about
// how rare a word is, and an ordinary word that such a memory happens to
// lack would sink a good question.
const minFloorChunks = 500

// withRelevance sets the relevance of the candidates, best first, and
// keeps the first k whose relevance reaches the floor. Without query text
// every candidate has relevance 1.
func (e *Engine) withRelevance(ctx context.Context, ix *index.Index, text string, cands []cand, k int, floor float64) ([]cand, error) {
	if text == "" {
		for i := range cands {
			cands[i].rel = 1
		}
		return cands[:min(k, len(cands))], nil
	}
	r, err := e.newRelevance(ctx, ix, text)
	if err != nil {
		return nil, err
	}
	if r.n < minFloorChunks {
		floor = 0
	}
	kept := cands[:0]
	best := 0.0
	hitFloor := floor * hitFloorShare
	err = e.st.View(func(tx *store.Tx) error {
		for _, c := range cands {
			if len(kept) == k {
				break
			}
			sc, err := tx.Chunk(c.id)
			if err != nil {
				return err
			}
			if c.rel, err = r.of(e, tx, sc); err != nil {
				return err
			}
			best = max(best, c.rel)
			if c.rel >= hitFloor {
				kept = append(kept, c)
			}
		}
		return nil
	})
	if best < floor {
		return nil, err
	}
	return kept, err
}

// sessionEvidence adds session-level evidence to the normalised BM25
// signal, before fusion: each candidate's signal becomes (nb + boost·s) /
// (1 + boost), where s is its session's share of the pool's BM25 evidence
// (the sum of the normalised BM25 of the session's candidates, divided by
// the largest such sum), so that it stays in [0, 1]. A session that matches the query in
// many turns lifts all of them, which helps questions whose answer is
// spread over a conversation.
func (e *Engine) sessionEvidence(pool []*cand, boost float64) error {
	if len(pool) == 0 {
		return nil
	}
	sess := make([]string, len(pool))
	err := e.st.View(func(tx *store.Tx) error {
		for i, c := range pool {
			sc, err := tx.Chunk(c.id)
			if err != nil {
				return err
			}
			sess[i] = sc.NS + "\x00" + sc.Session
		}
		return nil
	})
	if err != nil {
		return err
	}
	sum := map[string]float64{}
	var top float64
	for i, c := range pool {
		sum[sess[i]] += c.nb
		top = max(top, sum[sess[i]])
	}
	if top == 0 {
		return nil
	}
	for i, c := range pool {
		c.nb = (c.nb + boost*sum[sess[i]]/top) / (1 + boost)
	}
	return nil
}

// feedback returns expansion terms for text from the first matches of a
// BM25 search (RM3-style pseudo-relevance feedback): each feedback chunk
// votes for its terms in proportion to their frequency in it and to its
// share of the feedback chunks' scores; a term's vote is multiplied by
// its IDF, and the best terms not in the query are kept, weighted
// relative to the best one.
func (e *Engine) feedback(ctx context.Context, ix *index.Index, text string, bm []index.Match, docs, terms int, weight float64) ([]index.Term, error) {
	if docs <= 0 || terms <= 0 || weight <= 0 || len(bm) == 0 {
		return nil, nil
	}
	bm = bm[:min(docs, len(bm))]
	inQuery := map[string]bool{}
	for _, t := range ix.Analyze(text) {
		inQuery[t] = true
	}
	var total float64
	for _, m := range bm {
		total += m.Score
	}
	if total <= 0 {
		return nil, nil
	}
	votes := map[string]float64{}
	err := e.st.View(func(tx *store.Tx) error {
		for _, m := range bm {
			c, err := tx.Chunk(m.ID)
			if err != nil {
				return err
			}
			chunk, err := e.hydrate(tx, c)
			if err != nil {
				return err
			}
			own, reply := splitRoles(chunk)
			src := own
			if prfReply {
				src = chunk.Content()
			}
			_ = reply
			ts := ix.Analyze(src)
			if len(ts) == 0 {
				continue
			}
			w := m.Score / total / float64(len(ts))
			for _, t := range ts {
				if !inQuery[t] {
					votes[t] += w
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cands := make([]string, 0, len(votes))
	for t := range votes {
		cands = append(cands, t)
	}
	idf, _, err := ix.IDF(ctx, cands)
	if err != nil {
		return nil, err
	}
	out := make([]index.Term, len(cands))
	for i, t := range cands {
		out[i] = index.Term{Term: t, Weight: votes[t] * idf[i]}
	}
	slices.SortFunc(out, func(a, b index.Term) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(a.Term, b.Term))
	})
	out = out[:min(terms, len(out))]
	if len(out) == 0 || out[0].Weight <= 0 {
		return nil, nil
	}
	top := out[0].Weight
	for i := range out {
		out[i].Weight = weight * out[i].Weight / top
	}
	return out, nil
}

var prfReply = os.Getenv("HMX_PRF_REPLY") != ""

func envF(k string, d float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(k), 64); err == nil {
		return v
	}
	return d
}
