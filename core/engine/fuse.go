package engine

import (
	"cmp"
	"context"
	"slices"
)

// fuse normalises each signal within the pool to [0, 1] by min-max, adds
// session-level evidence to the BM25 signal (see sessionEvidence), and
// combines them: by weighted score (the default) or by reciprocal rank.
func (r *reader) fuse(ctx context.Context, ix Lexical, ns string, pool []*cand) error {
	if len(pool) == 0 {
		return nil
	}
	rc := r.cfg.Retriever
	minB, maxB, minV, maxV := pool[0].bm25, pool[0].bm25, pool[0].cos, pool[0].cos
	for _, c := range pool {
		minB, maxB = min(minB, c.bm25), max(maxB, c.bm25)
		minV, maxV = min(minV, c.cos), max(maxV, c.cos)
	}
	norm := func(v, lo, hi float64) float64 {
		if hi == lo {
			if hi > 0 {
				return 1
			}
			return 0
		}
		return (v - lo) / (hi - lo)
	}
	for _, c := range pool {
		c.nb, c.nv = norm(c.bm25, minB, maxB), norm(c.cos, minV, maxV)
	}
	if sb := *rc.SessionBoost; sb > 0 && rc.Fusion != "rrf" {
		if err := r.sessionEvidence(ctx, ix, ns, pool, sb); err != nil {
			return err
		}
	}
	if rc.Fusion == "rrf" {
		rankBM25(pool)
	}
	for _, c := range pool {
		if rc.Fusion == "rrf" {
			const k = 60
			c.score = 0
			if c.vRank > 0 {
				c.score += rc.VectorWeight / float64(k+c.vRank)
			}
			if c.bmRank > 0 {
				c.score += rc.BM25Weight / float64(k+c.bmRank)
			}
			continue
		}
		c.score = rc.VectorWeight*c.nv + rc.BM25Weight*c.nb
	}
	return nil
}

// rankBM25 ranks the candidates that have BM25 evidence by their BM25
// signal, best first, as the BM25 search orders its matches (score, then
// id): with the neighbour context added, a candidate's place in the BM25
// list is not where the search put it, and a candidate that the context
// brought in has one only now.
func rankBM25(pool []*cand) {
	var ranked []*cand
	for _, c := range pool {
		c.bmRank = 0
		if c.bm25 > 0 {
			ranked = append(ranked, c)
		}
	}
	slices.SortFunc(ranked, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(b.bm25, a.bm25), cmp.Compare(a.id, b.id))
	})
	for i, c := range ranked {
		c.bmRank = i + 1
	}
}
