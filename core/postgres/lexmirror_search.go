package postgres

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/blevesearch/bleve/v2/search"

	"github.com/huimemory/huimemory/core/filter"
	"github.com/huimemory/huimemory/core/index"
)

// Answering from the in-memory copy (lexmirror.go): the same results as
// the SQL in lexsearch.go and engineindex.go, computed in the same order
// of floating-point operations, so that scores agree to the bit.

// search answers a BM25 search with text; false when the copy cannot
// (then the SQL search answers).
func (m *lexMirror) search(ctx context.Context, s Search) ([]index.Match, bool) {
	toks, err := Analyze(s.Text)
	if err != nil {
		return nil, false
	}
	distinct, mult := queryTerms(toks)
	var out []index.Match
	ok := m.view(ctx, func() {
		c := m.nss[s.NS]
		if c == nil || len(distinct) == 0 {
			out = []index.Match{}
			return
		}
		out = c.search(s, toks, distinct, mult)
	})
	return out, ok
}

// search is [Lexical.Search] on the namespace's copy, for a query of
// terms toks (distinct of them, each mult times).
func (c *nsCopy) search(s Search, toks, distinct []string, mult map[string]int) []index.Match {
	if c.stats.Docs == 0 {
		return []index.Match{}
	}
	df := map[termKey]int64{}
	nums := make([]int64, len(distinct)) // term numbers; -1 for a term no chunk holds
	for i, t := range distinct {
		n, ok := c.dict[t]
		if !ok {
			nums[i] = -1
			continue
		}
		nums[i] = int64(n)
		for k, f := range []byte{fieldText, fieldReply, fieldCtx} {
			if c.df[k][n] > 0 {
				df[termKey{f, t}] = int64(c.df[k][n])
			}
		}
	}
	p := newBM25Plan(s, c.stats, toks, distinct, mult, df)
	w := newWindow(s)
	top := topMatches{size: s.Size}
	consider := func(ord uint32) {
		d := &c.docs[ord]
		if d.id == "" || !w.admits(s.NS, d) {
			return
		}
		a := newDocAcc(ord)
		for i, n := range nums {
			if n >= 0 {
				a.add(&p, i, d.tf(uint32(n)), d.lens)
			}
		}
		if score, ok := a.score(&p); ok {
			top.add(scored{d, score})
		}
	}
	if len(s.IDs) > 0 {
		seen := make(map[uint32]bool, len(s.IDs))
		for _, id := range s.IDs {
			if ord, ok := c.ord[id]; ok && !seen[ord] {
				seen[ord] = true
				consider(ord)
			}
		}
	} else {
		c.accumulate(&p, nums, func(ord uint32) bool {
			d := &c.docs[ord]
			return d.id != "" && w.admits(s.NS, d)
		}, func(ord uint32, score float64) {
			top.add(scored{&c.docs[ord], score})
		})
	}
	return top.matches(s.NoSession)
}

// accumulate scores the chunks that hold the terms nums (term numbers,
// in query order; -1 for a term no chunk holds) in a searched field,
// term at a time from the posting lists, each chunk once, and calls emit
// with each that admit lets in. Scores are summed by docAcc, as a
// search restricted to ids sums them.
func (c *nsCopy) accumulate(p *bm25Plan, nums []int64, admit func(ord uint32) bool, emit func(ord uint32, score float64)) {
	sc := c.getScratch()
	defer c.putScratch(sc)
	for i, n := range nums {
		if n < 0 {
			continue
		}
		for _, post := range c.post[n] {
			ord := postingOrd(post)
			slot := sc.slot[ord]
			if slot == 0 {
				if !admit(ord) {
					sc.slot[ord] = -1
					sc.out = append(sc.out, ord)
					continue
				}
				sc.accs = append(sc.accs, newDocAcc(ord))
				slot = int32(len(sc.accs))
				sc.slot[ord] = slot
			}
			if slot < 0 {
				continue
			}
			sc.accs[slot-1].add(p, i, entryTF(post), c.docs[ord].lens)
		}
	}
	for i := range sc.accs {
		if score, ok := sc.accs[i].score(p); ok {
			emit(sc.accs[i].ord, score)
		}
	}
}

// docAcc is a chunk's score as it is summed, term by term in query
// order: per field, the sum of its terms' parts, the query tokens it
// holds, and its length part (NaN until a term needs it).
type docAcc struct {
	ord     uint32
	sum     [3]float64
	matched [3]int32
	c       [3]float64
}

func newDocAcc(ord uint32) docAcc {
	return docAcc{ord: ord, c: [3]float64{math.NaN(), math.NaN(), math.NaN()}}
}

// add adds the query's distinct term i, whose frequencies in the chunk's
// text, reply and ctx fields are tf, the chunk's field lengths being
// lens: in each searched field that holds it, weight *
// k1*sqrt(tf)/(sqrt(tf) + k1*(1 - b + b*len/avg)), as bm25SQL computes
// it. Each product is converted before it is added, so that no platform
// fuses it into a multiply-add the SQL does not do.
func (a *docAcc) add(p *bm25Plan, i int, tf [3]uint16, lens [3]int32) {
	for k := range p.w {
		x := tf[k]
		if p.w[k] == nil || x == 0 {
			continue
		}
		if math.IsNaN(a.c[k]) {
			a.c[k] = lengthPart(lens[k], p.avg[k])
		}
		q := math.Sqrt(float64(x))
		a.sum[k] += float64(p.w[k][i] * (search.BM25_k1 * q / (q + a.c[k])))
		a.matched[k] += p.m[i]
	}
}

// score returns the chunk's BM25 score: the sum over the searched fields
// of each field's sum times the query tokens it holds, over the query's
// tokens; and whether the chunk holds a query term in a searched field
// (is a candidate at all).
func (a *docAcc) score(p *bm25Plan) (float64, bool) {
	var total float64
	hit := false
	for k := range p.w {
		if p.w[k] == nil {
			continue
		}
		if a.matched[k] > 0 {
			hit = true
		}
		total += float64(a.sum[k] * float64(a.matched[k]))
	}
	return total / p.ntok, hit
}

// scratch is one search's accumulators: slot maps a chunk's ordinal to
// its accumulator (index + 1), or -1 for a chunk the search's conditions
// leave out, 0 for one not met yet; out lists those left out.
type scratch struct {
	slot []int32
	accs []docAcc
	out  []uint32
}

func (c *nsCopy) getScratch() *scratch {
	sc, _ := c.scratch.Get().(*scratch)
	if sc == nil || len(sc.slot) < len(c.docs) {
		sc = &scratch{slot: make([]int32, len(c.docs))}
	}
	return sc
}

// putScratch clears the slots sc used and keeps it for the next search.
func (c *nsCopy) putScratch(sc *scratch) {
	for _, a := range sc.accs {
		sc.slot[a.ord] = 0
	}
	for _, ord := range sc.out {
		sc.slot[ord] = 0
	}
	sc.accs, sc.out = sc.accs[:0], sc.out[:0]
	c.scratch.Put(sc)
}

// lengthPart is k1*(1 - b + b*len/avg), len recovered as bleve recovers it
// from its float32 norm 1/sqrt(len).
func lengthPart(l int32, avg float64) float64 {
	n := float64(float32(1 / math.Sqrt(float64(max(l, 1)))))
	return search.BM25_k1 * (1 - search.BM25_b + search.BM25_b*(1/(n*n))/avg)
}

// window is a search's conditions besides its ids: time bounds in
// microseconds (PostgreSQL's precision, to which the SQL search's
// parameters are cut) and the filter.
type window struct {
	since, before int64
	hasSince      bool
	hasBefore     bool
	filter        filter.Expr
}

func newWindow(s Search) window {
	return window{since: s.Since.UnixMicro(), before: s.Before.UnixMicro(),
		hasSince: !s.Since.IsZero(), hasBefore: !s.Before.IsZero(), filter: s.Filter}
}

func (w *window) admits(ns string, d *mdoc) bool {
	if w.hasSince && d.t < w.since || w.hasBefore && d.t >= w.before {
		return false
	}
	return w.filter == nil || filterAdmits(w.filter, ns, d)
}

// filterAdmits evaluates e on chunk d of namespace ns with the meaning
// filterCompiler gives it in SQL.
func filterAdmits(e filter.Expr, ns string, d *mdoc) bool {
	switch e := e.(type) {
	case nil:
		return true
	case *filter.And:
		return filterAdmits(e.L, ns, d) && filterAdmits(e.R, ns, d)
	case *filter.Or:
		return filterAdmits(e.L, ns, d) || filterAdmits(e.R, ns, d)
	case *filter.Not:
		return !filterAdmits(e.X, ns, d)
	case *filter.Compare:
		if e.Field != "timestamp" && e.Op != filter.Eq && e.Op != filter.Ne {
			return false
		}
		eq := compareAdmits(e, ns, d)
		if e.Op == filter.Ne {
			return !eq
		}
		return eq
	}
	return false
}

// compareAdmits is filterCompiler.compare on the copy: c with its
// operator taken as Eq.
func compareAdmits(e *filter.Compare, ns string, d *mdoc) bool {
	v := e.Value
	switch e.Field {
	case "timestamp":
		return (e.Start.IsZero() || d.t >= e.Start.UnixMicro()) && (e.End.IsZero() || d.t < e.End.UnixMicro())
	case "session":
		return d.session == v
	case "id":
		return d.id == v
	case "topic":
		return v != "" && d.topic == v
	case "namespace":
		if v == index.DefaultNS {
			v = ""
		}
		return ns == v
	case "role":
		return slices.Contains(d.roles, v)
	case "speaker":
		return slices.Contains(d.speakers, v)
	case "type":
		return slices.Contains(d.types, v)
	}
	return false
}

// scored is a candidate and its score.
type scored struct {
	d     *mdoc
	score float64
}

// before orders matches as the SQL search does: by score, then by id in
// byte order.
func (a scored) before(b scored) bool {
	return a.score > b.score || a.score == b.score && a.d.id < b.d.id
}

// topMatches keeps the best size candidates, best first.
type topMatches struct {
	size int
	ms   []scored
}

func (t *topMatches) add(x scored) {
	if len(t.ms) == t.size && !x.before(t.ms[len(t.ms)-1]) {
		return
	}
	i := sort.Search(len(t.ms), func(i int) bool { return x.before(t.ms[i]) })
	if len(t.ms) < t.size {
		t.ms = append(t.ms, scored{})
	}
	copy(t.ms[i+1:], t.ms[i:len(t.ms)-1])
	t.ms[i] = x
}

func (t *topMatches) matches(noSession bool) []index.Match {
	out := make([]index.Match, len(t.ms))
	for i, x := range t.ms {
		out[i] = index.Match{ID: x.d.id, Score: x.score}
		if !noSession {
			out[i].Session = x.d.session
		}
	}
	return out
}

// idf is [EngineIndex.IDF] on the copy.
func (m *lexMirror) idf(ctx context.Context, terms []string) ([]float64, uint64, bool) {
	var out []float64
	var n int64
	ok := m.view(ctx, func() {
		for _, c := range m.nss {
			n += c.stats.Docs
		}
		out = make([]float64, len(terms))
		for i, t := range terms {
			var df int64
			for _, c := range m.nss {
				if num, ok := c.dict[t]; ok {
					df += int64(c.df[0][num]) + int64(c.df[1][num])
				}
			}
			d := float64(min(df, n))
			out[i] = math.Log(1 + (float64(n)-d+0.5)/(d+0.5))
		}
	})
	return out, uint64(n), ok
}

// presence is [EngineIndex.Presence] on the copy.
func (m *lexMirror) presence(ctx context.Context, ids, terms []string) ([][]uint8, bool) {
	var out [][]uint8
	ok := m.view(ctx, func() {
		out = make([][]uint8, len(ids))
		for i, id := range ids {
			out[i] = make([]uint8, len(terms))
			c := m.nss[m.where[id]]
			if c == nil {
				continue
			}
			ord, ok := c.ord[id]
			if !ok {
				continue
			}
			d := &c.docs[ord]
			for j, t := range terms {
				n, ok := c.dict[t]
				if !ok {
					continue
				}
				switch tf := d.tf(n); {
				case tf[0]+tf[1] > 0:
					out[i][j] = index.InChunk
				case tf[2] > 0:
					out[i][j] = index.InContext
				}
			}
		}
	})
	return out, ok
}
