package engine

import (
	"cmp"
	"context"
	"math"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
	"golang.org/x/sync/errgroup"
)

// relevance scores chunks against one query on an absolute scale, the
// same for every query: the IDF-weighted share of the query's distinct
// terms that the chunk's own text holds, a term found only in its
// neighbours' text (previous or next chunk) counting at ctxW. It reads the
// index's document frequencies and postings, and the chunks' links from
// the store, never the chunks' text.
type relevance struct {
	rd    *reader
	ix    Lexical
	terms []string
	idf   []float64
	total float64
	ctxW  float64 // 1, or 0 when context_boost is 0
	n     uint64  // chunks in the index
}

// newRelevance prepares the relevance of chunks to text.
func (r *reader) newRelevance(ctx context.Context, ix Lexical, text string) (*relevance, error) {
	rel := &relevance{ix: ix, rd: r}
	if *r.cfg.Retriever.ContextBoost > 0 {
		// The neighbours' words count in full: relevance asks whether the
		// chunk, read with its neighbours, answers the query at all.
		rel.ctxW = 1
	}
	seen := map[string]bool{}
	for _, t := range ix.Analyze(text) {
		if !seen[t] {
			seen[t] = true
			rel.terms = append(rel.terms, t)
		}
	}
	var err error
	if rel.idf, rel.n, err = ix.IDF(ctx, rel.terms); err != nil {
		return nil, err
	}
	// A pair of Han characters is a guess at a word, not a word: the
	// index holds pairs for ranking, but whether a chunk answers at all is
	// judged by the characters, which every phrasing of a Chinese question
	// shares with its answer (a pair the answer lacks would otherwise,
	// with the weight of a term no chunk holds, fail every chunk).
	//
	// A term that no chunk holds is left out of a question in Chinese: a
	// character the memory never uses is the question's own wording
	// ("吐槽" for what the chat calls "苛刻"), and a Latin word in a
	// question that mixes scripts ("那个 sci-fi movie 叫什么") names in
	// English what the memory holds in Chinese. Without the rule, such a
	// term, with the largest weight of all, fails every chunk.
	han := slices.ContainsFunc(rel.terms, isHan)
	absent := math.Log(1 + (float64(rel.n)+0.5)/0.5)
	kt, ki := rel.terms[:0], rel.idf[:0]
	for i, t := range rel.terms {
		if isHanPair(t) || han && rel.idf[i] >= absent-1e-9 {
			continue
		}
		kt, ki = append(kt, t), append(ki, rel.idf[i])
	}
	rel.terms, rel.idf = kt, ki
	// Squared weights: a query's rarest terms name its subject, and a
	// chunk that lacks them does not answer it however many of the
	// question's common words it shares.
	for i, w := range rel.idf {
		rel.idf[i] = w * w
	}
	for _, w := range rel.idf {
		rel.total += w
	}
	return rel, nil
}

// of returns the relevance of each chunk in ids, in [0, 1].
func (r *relevance) of(ctx context.Context, ids []string) ([]float64, error) {
	return r.ofWith(ctx, ids, map[string]store.ChunkHead{})
}

// ofWith is of with the heads of some of the chunks already read into hs.
func (r *relevance) ofWith(ctx context.Context, ids []string, hs map[string]store.ChunkHead) ([]float64, error) {
	out := make([]float64, len(ids))
	if r.total == 0 {
		return out, nil
	}
	// The neighbours' presence is read with the chunks': a term in a
	// neighbour's own text is in the chunk's context. (An index built before
	// context moved to query time also reports its ctx field as InContext,
	// which says the same.)
	all := ids
	if r.ctxW > 0 {
		if err := r.rd.heads(hs, ids); err != nil {
			return nil, err
		}
		in := map[string]bool{}
		for _, id := range ids {
			in[id] = true
		}
		all = append(slices.Clip(ids), neighbourIDs(hs, ids, func(id string) bool { return in[id] })...)
	}
	pres, err := r.ix.Presence(ctx, all, r.terms)
	if err != nil {
		return nil, err
	}
	row := make(map[string][]uint8, len(all))
	for i, id := range all {
		row[id] = pres[i]
	}
	for i, id := range ids {
		p, h := pres[i], hs[id]
		var sum float64
		for j, w := range r.idf {
			switch {
			case p[j] == index.InChunk:
				sum += w
			case p[j] == index.InContext || inChunk(row[h.Prev], j) || inChunk(row[h.Next], j):
				sum += r.ctxW * w
			}
		}
		out[i] = min(sum/r.total, 1)
	}
	return out, nil
}

// inChunk reports whether a presence row (nil: no such chunk) has term j
// in the chunk's own text.
func inChunk(p []uint8, j int) bool { return p != nil && p[j] == index.InChunk }

// minFloorChunks is the smallest index on which the relevance floor
// applies: document frequencies over a few hundred chunks say little about
// how rare a word is, and an ordinary word that such a memory happens to
// lack would sink a good question.
const minFloorChunks = 500

// withRelevance keeps the first k candidates and sets their relevance;
// when none of the candidates (the hits, then the rest of the first
// floorPerHit·k) reaches the floor, the query found nothing and it returns
// none. (A floor on every hit, or on every hit at half the floor, cost
// more recall than it saved: see docs/recall-quality.md.)
// Without query text every candidate has relevance 1. An index of fewer
// than minFloorChunks chunks has no floor; with wordsNeeded set, one of
// the hits must still hold a query term (relevance above 0).
func (r *reader) withRelevance(ctx context.Context, ix Lexical, text string, cands []cand, k int, floor float64, wordsNeeded bool) ([]cand, error) {
	if text == "" {
		for i := range cands {
			cands[i].rel = 1
		}
		return cands[:min(k, len(cands))], nil
	}
	top := cands[:min(k, len(cands))]
	ids := make([]string, len(top))
	for i, c := range top {
		ids[i] = c.id
	}
	// The hits' heads (their neighbours' ids) are read from the store
	// while the index gives the terms' frequencies: behind a database,
	// two round trips at once.
	var rel *relevance
	var g errgroup.Group
	g.Go(func() (err error) {
		rel, err = r.newRelevance(ctx, ix, text)
		return err
	})
	hs := map[string]store.ChunkHead{}
	for _, c := range top {
		if c.hasHead {
			hs[c.id] = c.head
		}
	}
	var herr error
	if *r.cfg.Retriever.ContextBoost > 0 {
		herr = r.heads(hs, ids) // those the search did not read
	}
	if err := cmp.Or(g.Wait(), herr); err != nil {
		return nil, err
	}
	if rel.n < minFloorChunks {
		floor = 0
		if wordsNeeded {
			floor = math.SmallestNonzeroFloat64
		}
	}
	rels, err := rel.ofWith(ctx, ids, hs)
	if err != nil {
		return nil, err
	}
	best, bestCos := 0.0, -1.0
	for i := range top {
		top[i].rel = rels[i]
		best = max(best, rels[i])
		bestCos = max(bestCos, top[i].cos)
	}
	if floor <= 0 {
		return top, nil
	}
	cal := r.floorCalibration()
	if cal.Weight <= 0 || r.cfg.Retriever.VectorWeight <= 0 || !slices.ContainsFunc(cands, func(c cand) bool { return c.vRank > 0 }) {
		// No vector signal (off, or a query the embedder gives no
		// meaning): the floor is the words'.
		cal = core.SimilarityCalibration{}
	}
	// A semantic embedder's similarity speaks for questions whose words
	// the memory does not use ("Dr. Seuss", "bookshelf") and against
	// off-topic ones that share its common words. (Without the vector
	// signal, recall computes no cosines.)
	found := func(rel, cos float64) bool { return rel+cal.Weight*(cos-cal.Center) >= floor }
	if len(top) > 0 && found(best, bestCos) {
		return top, nil
	}
	// The hits fall short: the query found something only if another of
	// its candidates reaches the floor. The ranking favours a short
	// message that holds the question's subject over a longer one that
	// holds more of its words, and a long question ("list the order in
	// which I brought up … across our conversations") is then judged by
	// chunks that could never cover it.
	// Copies of a turn count once (see contentKey): a memory that holds
	// its turns twice judges as many distinct turns as one that holds
	// them once.
	rest := cands[len(top):min(len(cands), len(top)+restLen(cands[len(top):], floorPerHit*max(k, 1)-len(top)))]
	if len(rest) == 0 {
		return nil, nil
	}
	ids = ids[:0]
	for _, c := range rest {
		ids = append(ids, c.id)
	}
	if rels, err = rel.of(ctx, ids); err != nil {
		return nil, err
	}
	// Each of them by itself: the hits' best relevance and best
	// similarity may come from two hits, as the floor was calibrated, but
	// across a whole pool the two maxima would let an off-topic query
	// through on one chunk's words and another's meaning.
	for i, c := range rest {
		if found(rels[i], c.cos) {
			return top, nil
		}
	}
	return nil, nil
}

// restLen returns how many of cands hold n distinct turns (all of them
// when they hold fewer), copies of one turn counting once.
func restLen(cands []cand, n int) int {
	seen := map[[2]float64]bool{}
	for i := range cands {
		seen[contentKey(&cands[i])] = true
		if len(seen) > n {
			return i
		}
	}
	return len(cands)
}

// floorPerHit bounds the candidates whose relevance the floor reads when
// the hits fall short of it, per hit asked for: the first 8·top_k of the
// fused ranking, as many as the BM25 and vector pools together (4·top_k
// each) in a search without a window. Measured with ten hits: the first
// 20, 40 and 80 candidates gave BEAM R@10 0.594, 0.595 and 0.601, all of
// them (up to 400) 0.601 too, at more cost for a query that finds
// nothing and fewer off-topic questions answered with nothing (96.0%
// against 97.0%).
const floorPerHit = 8

// floorCalibration returns how much the embedder's similarity moves the
// floor (retriever.floor_similarity): the embedder's measured calibration
// for "auto", none for an embedder without one or for "off".
func (r *reader) floorCalibration() core.SimilarityCalibration {
	c, auto, err := core.ParseFloorSimilarity(r.cfg.Retriever.FloorSimilarity)
	if err != nil {
		return core.SimilarityCalibration{} // Validate refused it already
	}
	if auto {
		c, _ = r.info.Calibration()
	}
	return c
}

// sessionEvidence adds session-level evidence to the normalised BM25
// signal, before fusion: each candidate's signal becomes (nb + boost·s) /
// (1 + boost), where s is its session's share of the pool's BM25 evidence
// (the sum of the normalised BM25 of the session's candidates, divided by
// the largest such sum), so that it stays in [0, 1]. A session that
// matches the query in many turns lifts all of them, which helps
// questions whose answer is spread over a conversation.
func (r *reader) sessionEvidence(ctx context.Context, ix Lexical, ns string, pool []*cand, boost float64) error {
	if !slices.ContainsFunc(pool, func(c *cand) bool { return c.nb > 0 }) {
		return nil // no BM25 evidence (or no query text): nothing to add
	}
	// The pool is one namespace's. The BM25 searches return each match's
	// session; the sessions of candidates that share no term with the
	// query (found by the vectors alone) are looked up in the index.
	sess := make([]string, len(pool))
	var missing []string
	at := map[string]int{}
	for i, c := range pool {
		if c.session == "" {
			missing = append(missing, c.id)
			at[c.id] = i
		}
		sess[i] = c.session
	}
	if len(missing) > 0 {
		ms, err := ix.Search(ctx, index.Search{NS: ns, IDs: missing, Size: len(missing)})
		if err != nil {
			return err
		}
		for _, m := range ms {
			sess[at[m.ID]] = m.Session
		}
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

// isHan reports whether index term t starts with a Han character.
func isHan(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.Is(unicode.Han, r)
}

// isHanPair reports whether t is an index term of two Han characters,
// the pairs the CJK filter adds beside single characters.
func isHanPair(t string) bool {
	if utf8.RuneCountInString(t) != 2 {
		return false
	}
	for _, r := range t {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}
