package engine

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// plainLexical hides core/index's SearchAll, so that the engine falls
// back to a second, ID-restricted BM25 search for the scores that the
// first search did not return.
type plainLexical struct{ Lexical }

// TestOneBM25SearchScoresLikeTwo checks that a recall that reads the BM25
// scores of the candidates the vectors and the neighbour context add from
// its first search (addBM25's pl.all) returns the hits, scores and
// relevances of a recall that searches a second time for them. A score
// may differ in its last bit (see index.SearchAll), so scores are
// compared to 1e-9, and two hits may trade places only where they tie.
func TestOneBM25SearchScoresLikeTwo(t *testing.T) {
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, cst)
	msgs := corpus(3, 400, 8, start)
	queries := []core.Query{
		{Text: "deploy the model to the server"},
		{Text: "kyoto temple travel budget", TopK: 20},
		{Text: "咖啡 会议 预算"},
		{Text: "guitar concert hotel flight doctor recipe marathon", Context: 1},
		{Text: "nothing here matches zebra"},
		// A window and a filter take the second search; both paths must
		// still agree.
		{Text: "memory index search", Since: start.Add(5 * 24 * time.Hour), Before: start.Add(20 * 24 * time.Hour)},
		{Text: "python golang latency", Filter: `role = "user"`},
	}
	for _, boost := range []float64{0.3, 0} {
		t.Run(fmt.Sprintf("context_boost=%v", boost), func(t *testing.T) {
			e := openTest(t, func(c *core.Config) { c.Retriever.ContextBoost = &boost })
			ingest(t, e, msgs)
			for _, q := range queries {
				q.NoTime = true
				if q.TopK == 0 {
					q.TopK = 10
				}
				one, err := e.Recall(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				ix := e.ix
				e.ix = plainLexical{ix}
				two, err := e.Recall(t.Context(), q)
				e.ix = ix
				if err != nil {
					t.Fatal(err)
				}
				if len(one.Hits) == 0 && q.Text != "nothing here matches zebra" {
					t.Errorf("%q: no hits; the test wants some", q.Text)
				}
				if !sameHits(one.Hits, two.Hits) {
					t.Errorf("%q: one search gives %v, two searches %v", q.Text, hitSummary(one.Hits), hitSummary(two.Hits))
				}
			}
		})
	}
}

// sameHits reports whether a and b rank the same hits with the same
// scores and relevances, to 1e-9, allowing hits that tie to trade places.
func sameHits(a, b []core.Hit) bool {
	if len(a) != len(b) {
		return false
	}
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*max(math.Abs(x), math.Abs(y), 1) }
	for i := range a {
		if !near(a[i].Score, b[i].Score) {
			return false
		}
		if a[i].ID == b[i].ID {
			if !near(a[i].Relevance, b[i].Relevance) || len(a[i].Messages) != len(b[i].Messages) {
				return false
			}
			continue
		}
		tied := i > 0 && near(a[i].Score, a[i-1].Score) || i+1 < len(a) && near(a[i].Score, a[i+1].Score)
		if !tied {
			return false
		}
	}
	return true
}

func hitSummary(hs []core.Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s %.6f/%.6f", h.ID, h.Score, h.Relevance))
	}
	return out
}
