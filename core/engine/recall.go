package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// params is one search over one time window.
type params struct {
	text          string
	ns            string
	since, before time.Time
	filter        *compiledFilter
	k             int // hits wanted
	pool          int // candidates from each signal
}

// cand is one candidate in the pool.
type cand struct {
	id            string
	bm25, cos     float64
	time          int64
	bmRank, vRank int // 1-based; 0 when absent from that list
	score         float64
	nb, nv        float64 // normalised signals
	rel           float64 // absolute relevance, see relevance
	session       string  // the chunk's session, when a BM25 search returned it
}

// poolSize returns how many candidates to draw from each signal for k hits.
func (e *Engine) poolSize(k int, windowed bool) int {
	r := e.cfg.Retriever
	if windowed {
		return max(min(r.TimePoolFactor*k, r.PoolCap), k)
	}
	return r.PoolFactor * k
}

// search runs the hybrid search for one window and returns the fused
// candidates, best first. The caller holds ixMu for reading.
func (e *Engine) search(ctx context.Context, ix Lexical, p params) ([]cand, error) {
	r := e.cfg.Retriever
	bq := index.Search{Text: p.text, ContextBoost: *r.ContextBoost, ReplyBoost: *r.ReplyBoost, NS: p.ns, Since: p.since, Before: p.before, Size: p.pool}
	if p.filter != nil {
		bq.Filter = p.filter.expr
	}
	pl := &candPool{byID: map[string]*cand{}}
	if err := pl.addBM25(ctx, ix, bq); err != nil {
		return nil, err
	}
	qv, err := e.addVectors(ctx, ix, p, pl)
	if err != nil {
		return nil, err
	}
	if err := e.fillSignals(ctx, ix, bq, qv, pl); err != nil {
		return nil, err
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
// exactly: the BM25 score of those only the vectors found, and the cosine
// (and time) of those only BM25 found.
func (e *Engine) fillSignals(ctx context.Context, ix Lexical, bq index.Search, qv []float32, pl *candPool) error {
	var needBM []string
	for _, c := range pl.order {
		if c.bm25 < 0 {
			needBM = append(needBM, c.id)
		}
	}
	if len(needBM) > 0 && bq.Text != "" {
		bq.IDs, bq.Size = needBM, len(needBM)
		more, err := ix.Search(ctx, bq)
		if err != nil {
			return err
		}
		for _, m := range more {
			c := pl.byID[m.ID]
			c.bm25, c.session = m.Score, m.Session
		}
	}
	return e.st.View(func(tx *store.Tx) error {
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

// fuse normalises each signal within the pool to [0, 1] by min-max, adds
// session-level evidence to the BM25 signal (see sessionEvidence), and
// combines them: by weighted score (the default) or by reciprocal rank.
func (e *Engine) fuse(ctx context.Context, ix Lexical, ns string, pool []*cand) error {
	if len(pool) == 0 {
		return nil
	}
	r := e.cfg.Retriever
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
	if sb := *r.SessionBoost; sb > 0 && r.Fusion != "rrf" {
		if err := e.sessionEvidence(ctx, ix, ns, pool, sb); err != nil {
			return err
		}
	}
	for _, c := range pool {
		if r.Fusion == "rrf" {
			const k = 60
			c.score = 0
			if c.vRank > 0 {
				c.score += r.VectorWeight / float64(k+c.vRank)
			}
			if c.bmRank > 0 {
				c.score += r.BM25Weight / float64(k+c.bmRank)
			}
			continue
		}
		c.score = r.VectorWeight*c.nv + r.BM25Weight*c.nb
	}
	return nil
}

// Recall finds the chunks that best match q. See [core.Query].
func (e *Engine) Recall(ctx context.Context, q core.Query) (*core.Results, error) {
	if err := core.ValidateNamespace(q.Namespace); err != nil {
		return nil, fmt.Errorf("%w: %w", core.ErrInvalid, err)
	}
	if q.TopK < 0 || q.TopK > 1000 {
		return nil, fmt.Errorf("%w: top_k %d is not between 1 and 1000", core.ErrInvalid, q.TopK)
	}
	if q.Context < 0 || q.Context > 50 {
		return nil, fmt.Errorf("%w: context %d is not between 0 and 50", core.ErrInvalid, q.Context)
	}
	if !q.Since.IsZero() && !q.Before.IsZero() && !q.Since.Before(q.Before) {
		return nil, fmt.Errorf("%w: since %s is not before %s", core.ErrInvalid, q.Since.Format(time.RFC3339), q.Before.Format(time.RFC3339))
	}
	k := q.TopK
	if k == 0 {
		k = e.cfg.Retriever.TopK
	}
	plan, err := e.planQuery(q)
	if err != nil {
		return nil, err
	}
	if err := e.beforeRead(ctx); err != nil {
		return nil, err
	}
	e.ixMu.RLock()
	defer e.ixMu.RUnlock()
	ix, err := e.indexReady()
	if err != nil {
		return nil, err
	}
	res := &core.Results{Query: q.Text, SearchText: plan.text, ResolvedTime: plan.resolved}
	var hits []cand
	if plan.scan {
		hits, err = e.progressive(ctx, ix, q, plan, k, res)
	} else {
		p := params{text: plan.text, ns: q.Namespace, since: plan.since, before: plan.before, filter: plan.filter, k: k}
		p.pool = e.poolSize(k, !p.since.IsZero() || !p.before.IsZero())
		hits, err = e.search(ctx, ix, p)
		if err == nil && len(hits) < k && plan.scanIfShort {
			var more []cand
			more, err = e.progressive(ctx, ix, q, plan, k, res)
			hits = mergeCands(hits, more)
		}
	}
	if err != nil {
		return nil, err
	}
	if hits, err = e.withRelevance(ctx, ix, plan.text, hits, k, *e.cfg.Retriever.MinRelevance); err != nil {
		return nil, err
	}
	if hits, err = e.checkFilter(plan.filter, hits); err != nil {
		return nil, err
	}
	res.Hits, err = e.expand(q.Namespace, hits, q.Context)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// mergeCands appends the candidates of b that a lacks.
func mergeCands(a, b []cand) []cand {
	seen := map[string]bool{}
	for _, c := range a {
		seen[c.id] = true
	}
	for _, c := range b {
		if !seen[c.id] {
			seen[c.id] = true
			a = append(a, c)
		}
	}
	return a
}

// expand loads the hits and, with window > 0, the window chunks before and
// after each one, found through the anchors. No chunk appears twice; a hit
// met as another hit's neighbour keeps its role and score.
func (e *Engine) expand(ns string, hits []cand, window int) ([]core.Hit, error) {
	// A read transaction sees the store as it was when it began, but a
	// sealed week's archive is a file: when the week is re-sealed (a late
	// message re-opened it) between the two, the snapshot's hash names
	// the old archive and the file is the new one. A fresh transaction
	// sees the new seal; real corruption fails every attempt.
	var out []core.Hit
	var err error
	for range 3 {
		out, err = e.expandOnce(ns, hits, window)
		if !errors.Is(err, errSealedRead) {
			break
		}
	}
	return out, err
}

func (e *Engine) expandOnce(ns string, hits []cand, window int) ([]core.Hit, error) {
	byID := map[string]*cand{}
	for i := range hits {
		byID[hits[i].id] = &hits[i]
	}
	out := []core.Hit{}
	emitted := map[string]bool{}
	err := e.st.View(func(tx *store.Tx) error {
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
			chunk, err := e.hydrate(tx, c)
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
		for _, h := range hits {
			if emitted[h.id] {
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
				if err := emit(g); err != nil {
					return err
				}
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

// RecallByID returns the chunk with the given id in namespace ns and, with
// window > 0, its neighbours; the chunk is marked hit. An unknown id, or
// one from another namespace, gives an error wrapping core.ErrNotFound.
func (e *Engine) RecallByID(ctx context.Context, ns, id string, window int) ([]core.Hit, error) {
	if err := core.ValidateNamespace(ns); err != nil {
		return nil, fmt.Errorf("%w: %w", core.ErrInvalid, err)
	}
	if window < 0 || window > 50 {
		return nil, fmt.Errorf("%w: context %d is not between 0 and 50", core.ErrInvalid, window)
	}
	if !core.ValidID(id) {
		return nil, fmt.Errorf("chunk %q: %w (ids are %d to %d characters of 0-9 and a-z without i, l, o, u)", id, core.ErrNotFound, core.MinIDLen, core.MaxIDLen)
	}
	e.ixMu.RLock()
	closed := e.closed
	e.ixMu.RUnlock()
	if closed {
		return nil, core.ErrClosed
	}
	hits, err := e.expand(ns, []cand{{id: id, score: 1, nv: 1, nb: 1}}, window)
	if errors.Is(err, core.ErrNotFound) {
		return nil, fmt.Errorf("chunk %q: %w in %s", id, core.ErrNotFound, nsName(ns))
	}
	if err != nil {
		return nil, err
	}
	for i := range hits {
		if hits[i].ContextRole == core.RoleHit {
			hits[i].Score, hits[i].Scores = 0, core.Scores{}
		}
	}
	return hits, nil
}

// nsName names a namespace in messages.
func nsName(ns string) string {
	if ns == "" {
		return "the default namespace"
	}
	return fmt.Sprintf("namespace %q", ns)
}
