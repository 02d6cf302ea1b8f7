package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
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
	// head is the chunk's head when the search read it (hasHead), for
	// the relevance floor, which would read it again.
	head    store.ChunkHead
	hasHead bool
}

// poolSize returns how many candidates to draw from each signal for k hits.
func (r *reader) poolSize(k int, windowed bool) int {
	rc := r.cfg.Retriever
	if windowed {
		return max(min(rc.TimePoolFactor*k, rc.PoolCap), k)
	}
	return rc.PoolFactor * k
}

// recall is [Engine.Recall].
func (r *reader) recall(ctx context.Context, q core.Query) (*core.Results, error) {
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
		k = r.cfg.Retriever.TopK
	}
	plan, err := r.planQuery(q)
	if err != nil {
		return nil, err
	}
	// An index that keeps a copy in memory checks it against other
	// servers' writes beside beforeRead's own check: two round trips at
	// once. (An index swapped meanwhile, by a rebuild, checks again.)
	r.ixMu.RLock()
	f, _ := r.ix.(freshener)
	r.ixMu.RUnlock()
	freshCtx := make(chan context.Context, 1)
	if f != nil {
		go func() { freshCtx <- f.Fresh(ctx) }()
	} else {
		freshCtx <- ctx
	}
	err = r.beforeRead(ctx)
	ctx = <-freshCtx
	if err != nil {
		return nil, err
	}
	release, err := r.searchSlot(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	r.ixMu.RLock()
	defer r.ixMu.RUnlock()
	ix, err := r.indexReady()
	if err != nil {
		return nil, err
	}
	res := &core.Results{Query: q.Text, SearchText: plan.text, ResolvedTime: plan.resolved}
	var hits []cand
	if plan.scan {
		hits, err = r.progressive(ctx, ix, q, plan, k, res)
	} else {
		hits, err = r.searchWindow(ctx, ix, plan, q.Namespace, plan.since, plan.before, k)
		if err == nil && len(hits) < k && plan.scanIfShort {
			var more []cand
			more, err = r.progressive(ctx, ix, q, plan, k, res)
			hits = mergeCands(hits, more)
		}
	}
	if err != nil {
		return nil, err
	}
	if hits, err = r.withRelevance(ctx, ix, plan.text, hits, k, *r.cfg.Retriever.MinRelevance, false); err != nil {
		return nil, err
	}
	if plan.scan {
		// The scan gathers its hits newest week first; they are shown by
		// relevance, the scale every week's search shares (each week's
		// fused scores are its own), so that a turn from last week that
		// answers the question comes before one from this week that only
		// shares its words. Equal relevance keeps the newer first.
		slices.SortStableFunc(hits, func(a, b cand) int { return cmp.Compare(b.rel, a.rel) })
	}
	if len(hits) == 0 && plan.resolved != nil && plan.text != "" && !r.cfg.Retriever.StrictTime {
		if hits, err = r.widen(ctx, ix, q.Namespace, plan, k); err != nil {
			return nil, err
		}
		res.Widened = len(hits) > 0
	}
	if hits, err = r.checkFilter(plan.filter, hits); err != nil {
		return nil, err
	}
	res.Hits, err = r.expand(q.Namespace, hits, q.Context)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// widen searches the time the query allows outside its time phrase's
// window, for a query whose window held nothing relevant. People misplace
// events in time ("last year" for something said fourteen months ago,
// "recently" for last quarter), and the hits carry their dates for the LLM
// to judge. In a memory too small for the relevance floor a hit must still
// hold one of the query's words: a widened search is a second guess, and
// noise from other times would mislead.
func (r *reader) widen(ctx context.Context, ix Lexical, ns string, plan *queryPlan, k int) ([]cand, error) {
	hits, err := r.searchWindow(ctx, ix, plan, ns, plan.outerSince, plan.outerBefore, k)
	if err != nil {
		return nil, err
	}
	return r.withRelevance(ctx, ix, plan.text, hits, k, *r.cfg.Retriever.MinRelevance, true)
}

// searchWindow runs the hybrid search of plan's text and filter over
// [since, before) in namespace ns for k hits, with the candidate pool of a
// window (or of the whole memory, when both sides are open).
func (r *reader) searchWindow(ctx context.Context, ix Lexical, plan *queryPlan, ns string, since, before time.Time, k int) ([]cand, error) {
	p := params{text: plan.text, ns: ns, since: since, before: before, filter: plan.filter, k: k}
	p.pool = r.poolSize(k, !since.IsZero() || !before.IsZero())
	cands, err := r.search(ctx, ix, p)
	if err != nil {
		return nil, err
	}
	// A memory that holds the same turns several times (a chat ingested
	// twice under other session names) fills the pool with copies, which
	// score alike: the pool is drawn again, as many times larger as it
	// holds copies (up to maxCopies), so that it covers as many distinct
	// turns as it would without them and what recall finds, or whether it
	// finds anything, does not depend on the copies.
	if d := distinctCands(cands); d > 0 && len(cands) >= 2*d {
		p.pool *= min(len(cands)/d, maxCopies)
		return r.search(ctx, ix, p)
	}
	return cands, nil
}

// maxCopies bounds how much larger searchWindow draws the pool of a
// memory that holds copies of the same turns.
const maxCopies = 16

// contentKey is what copies of one turn share: both signals' scores,
// which are functions of the text (and of the neighbours', for BM25).
// Two candidates with the same key are taken for copies.
func contentKey(c *cand) [2]float64 { return [2]float64{c.bm25, c.cos} }

// distinctCands counts the candidates that are not copies of an earlier
// one (see contentKey).
func distinctCands(cands []cand) int {
	seen := map[[2]float64]bool{}
	for i := range cands {
		seen[contentKey(&cands[i])] = true
	}
	return len(seen)
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

// recallByID is [Engine.RecallByID].
func (r *reader) recallByID(ctx context.Context, ns, id string, window int) ([]core.Hit, error) {
	if err := core.ValidateNamespace(ns); err != nil {
		return nil, fmt.Errorf("%w: %w", core.ErrInvalid, err)
	}
	if window < 0 || window > 50 {
		return nil, fmt.Errorf("%w: context %d is not between 0 and 50", core.ErrInvalid, window)
	}
	if !core.ValidID(id) {
		return nil, fmt.Errorf("chunk %q: %w (ids are %d to %d characters of 0-9 and a-z without i, l, o, u)", id, core.ErrNotFound, core.MinIDLen, core.MaxIDLen)
	}
	r.ixMu.RLock()
	closed := r.closed
	r.ixMu.RUnlock()
	if closed {
		return nil, core.ErrClosed
	}
	hits, err := r.expand(ns, []cand{{id: id, score: 1, nv: 1, nb: 1}}, window)
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

// searchSlots is how many recalls a long-lived engine runs at once: one
// more than the processors Go schedules on, and at least three. A recall's
// store and index pages are resident, so it is CPU work, but not one
// core's from end to end: its BM25 and vector searches run side by side,
// and the steps after them on one core, which leaves a core idle between
// recalls when there are only as many as processors (the server then used
// 160% of 2 cores). The extra recall fills that gap; more than one
// extra only shares the processors with the commits of the appends
// waiting beside them (docs/benchmarks.md, "huimem serve under load").
// Waiting recalls queue in order.
func searchSlots() int { return max(runtime.GOMAXPROCS(0), 2) + 1 }

// searchSlot waits for a slot to run a recall in, in a long-lived
// engine, and returns the function that gives it back; it fails with
// ctx's error if ctx ends first. Other engines run every recall at once.
func (r *reader) searchSlot(ctx context.Context) (func(), error) {
	if r.searches == nil {
		return func() {}, nil
	}
	select {
	case r.searches <- struct{}{}:
		return func() { <-r.searches }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
