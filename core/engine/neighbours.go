package engine

import (
	"errors"
	"slices"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/filter"
	"github.com/huimemory/huimemory/core/store"
)

// Neighbour context at query time. A chunk that holds the
// question's answer often does not hold the question's words: they are in
// the turn before it ("matched the question turn, not the answer"). Each
// candidate's BM25 signal is therefore its own score plus context_boost
// times the own scores of its neighbours: the previous chunk at full
// weight, the next at nextShare of it. Indexing the neighbours' text
// with every chunk instead (a ctx field) gives the same recall on both
// benchmarks, and that field took 40% of an ingest's time
// (docs/recall-quality.md, "Neighbour context at query time").
//
// The steps, in search: addNeighbours puts the neighbours of the BM25
// candidates that lie in the search's scope into the pool (read from the
// store, no search); contextIDs reads the links of every candidate and
// names the neighbours outside the pool, which contextAndBM25 scores in
// the same search that gives the other candidates their missing BM25
// score;
// addContext adds the neighbours' scores.

// nextShare is the weight of the next chunk's score against the previous
// chunk's in a candidate's context: the turn before a chunk is what it
// answers or continues; the turn after says less about it. Measured with
// context_boost 0.3: 1.0 and 0.7 cost BEAM 1.3 points, 0 costs LoCoMo 0.5.
const nextShare = 0.5

// heads reads the head (links, namespace, time) of each chunk in ids that
// is stored into hs; ids already in hs are skipped.
func (r *reader) heads(hs map[string]store.ChunkHead, ids []string) error {
	missing := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { _, ok := hs[id]; return ok })
	if len(missing) == 0 {
		return nil
	}
	return r.st.View(func(tx *store.Tx) error {
		tx.PrefetchChunks(missing)
		for _, id := range ids {
			if _, ok := hs[id]; ok {
				continue
			}
			h, ok, err := tx.ChunkHead(id)
			if err != nil {
				return err
			}
			if ok {
				hs[id] = h
			}
		}
		return nil
	})
}

// addNeighbours adds to the pool the neighbours of its candidates that lie
// in the search's namespace, window and filter, and returns the heads it
// read.
func (r *reader) addNeighbours(p params, pl *candPool) (map[string]store.ChunkHead, error) {
	hs := make(map[string]store.ChunkHead, 4*len(pl.order))
	ids := make([]string, len(pl.order))
	for i, c := range pl.order {
		ids[i] = c.id
	}
	if err := r.heads(hs, ids); err != nil {
		return nil, err
	}
	pl.ahead.read(r.st, p.ns, ids, hs)
	add := neighbourIDs(hs, ids, func(id string) bool { return pl.byID[id] != nil })
	if err := r.heads(hs, add); err != nil {
		return nil, err
	}
	// The neighbours' vectors are read beside the rest of the search; a
	// neighbour left out of the pool is read for nothing.
	pl.ahead.read(r.st, p.ns, add, hs)
	var check []string // in the window, to be checked against the filter
	for _, id := range add {
		h, ok := hs[id]
		if !ok || h.NS != p.ns || (!p.since.IsZero() && h.Time.Before(p.since)) || (!p.before.IsZero() && !h.Time.Before(p.before)) {
			continue
		}
		if p.filter == nil {
			c := pl.get(id)
			c.time, c.session = h.Time.UnixNano(), h.Session
			continue
		}
		check = append(check, id)
	}
	if len(check) > 0 {
		err := r.st.View(func(tx *store.Tx) error {
			for _, id := range check {
				c, err := tx.Chunk(id)
				if errors.Is(err, core.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if filter.Eval(p.filter.expr, chunkRecord{c}) {
					n := pl.get(id)
					n.time, n.session = hs[id].Time.UnixNano(), c.Session
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return hs, nil
}

// neighbourIDs returns the distinct neighbours of ids that skip does not
// exclude, in order.
func neighbourIDs(hs map[string]store.ChunkHead, ids []string, skip func(string) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		h := hs[id]
		for _, n := range [2]string{h.Prev, h.Next} {
			if n != "" && !seen[n] && !skip(n) {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// contextIDs reads the heads of the candidates that have none in hs (those
// the vectors found), gives each candidate its session, and returns the
// neighbours of candidates that are not in the pool: their own scores are
// needed for the context.
func (r *reader) contextIDs(pl *candPool, hs map[string]store.ChunkHead) ([]string, error) {
	ids := make([]string, len(pl.order))
	for i, c := range pl.order {
		ids[i] = c.id
	}
	if err := r.heads(hs, ids); err != nil {
		return nil, err
	}
	for _, c := range pl.order {
		if c.session == "" {
			c.session = hs[c.id].Session
		}
	}
	return neighbourIDs(hs, ids, func(id string) bool { return pl.byID[id] != nil }), nil
}

// addContext adds to each candidate's BM25 score boost times its
// neighbours' own scores: the previous chunk's at full weight, the next
// one's at nextShare. own holds the scores of neighbours outside the pool
// (missing: no shared term); those in the pool are read from it. A
// neighbour counts wherever it lies: outside the window, it is still the
// turn the candidate answers.
//
// In a chat without roles (two people talking), a chunk that asks a
// question (store.ChunkHead.Asks) is answered by the next one: the
// answer inherits answerShare of the question's own score instead of
// boost times it, and the question keeps askShare of its own score, so
// that the answer, which holds the fact, ranks above the question that
// merely names it (docs/recall-quality.md, "An answer follows a
// question").
func addContext(pl *candPool, hs map[string]store.ChunkHead, own map[string]float64, boost float64) {
	score := func(id string) float64 {
		if c := pl.byID[id]; c != nil {
			return c.bm25
		}
		return own[id]
	}
	ctx := make([]float64, len(pl.order))
	for i, c := range pl.order {
		h := hs[c.id]
		prev := boost * score(h.Prev)
		if h.Prev != "" && hs[h.Prev].Asks {
			prev = answerShare * score(h.Prev)
		}
		ctx[i] = prev + boost*nextShare*score(h.Next)
	}
	// Own scores are all read before any is raised.
	for i, c := range pl.order {
		if hs[c.id].Asks {
			c.bm25 *= askShare
		}
		c.bm25 += ctx[i]
	}
}

// answerShare and askShare weigh a question and its answer in a chat
// without roles (see addContext). Measured on LoCoMo, the one dev set
// without roles (R@10 with the other defaults): answerShare 0.3 (as any
// chunk) 0.743, 0.5 0.748, 0.7 0.750, 1.0 0.747 (askShare 0.6); askShare
// 0.4 0.748, 0.6 0.750, 0.8 0.748, 1.0 0.743 (answerShare 0.7). A chat
// with roles is untouched: there a user's question often holds the facts
// it asks about ("I'm building X with Y; how do I …?"), and the same
// rule cost BEAM 3 to 8 points.
const (
	answerShare = 0.7
	askShare    = 0.6
)
