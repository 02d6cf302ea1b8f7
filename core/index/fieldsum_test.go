package index

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"
)

// TestFieldSumScoresWithoutCoordination checks a search's text and reply
// fields against bleve's disjunction of the same two clauses: each
// chunk's score is the disjunction's divided by its coordination factor
// (the share of the two fields that matched), so a chunk whose reply
// does not match scores as one whose reply does, less the reply's part.
// It also checks that a window (a conjunction, which advances the field
// sum to its candidates) and an id restriction leave the scores as they
// are.
func TestFieldSumScoresWithoutCoordination(t *testing.T) {
	x := openTest(t)
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	docs := []Doc{
		{ID: "text01", Session: "s1", Time: base, Text: "user: our budget for kyoto"},
		{ID: "reply1", Session: "s1", Time: base.Add(time.Hour), Reply: "assistant: a kyoto budget of 50,000 yen works"},
		{ID: "both01", Session: "s1", Time: base.Add(2 * time.Hour), Text: "user: kyoto?", Reply: "assistant: the budget holds"},
		{ID: "both02", Session: "s2", Time: base.Add(24 * time.Hour), Text: "user: budget budget kyoto trip plans", Reply: "assistant: kyoto in april"},
		{ID: "none01", Session: "s2", Time: base.Add(25 * time.Hour), Text: "user: osaka food", Reply: "assistant: try takoyaki"},
		{ID: "text02", Session: "s3", Time: base.Add(48 * time.Hour), Text: "user: a long note about the trip, the hotel, the train and the kyoto budget we set"},
	}
	if err := x.Apply(docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	// fields matched by each document, of the two the query searches
	matched := map[string]int{"text01": 1, "reply1": 1, "both01": 2, "both02": 2, "text02": 1}
	ctx := context.Background()
	for _, boost := range []float64{0.01, 0.3, 1, 2} {
		s := Search{Text: "kyoto budget", ReplyBoost: boost, Size: 10}
		got, err := x.Search(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		// bleve's disjunction of the same clauses, for reference.
		text := query.NewMatchQuery(s.Text)
		text.SetField("text")
		text.Analyzer = AnalyzerName
		reply := query.NewMatchQuery(s.Text)
		reply.SetField("reply")
		reply.Analyzer = AnalyzerName
		reply.SetBoost(boost)
		res, err := x.b.Search(ctx, bleveSearch{Query: query.NewDisjunctionQuery([]query.Query{text, reply}), Size: 10, Sort: searchSort})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		for _, h := range res.Hits {
			want[h.ID] = h.Score * 2 / float64(matched[h.ID])
		}
		if len(got) != len(matched) || len(want) != len(matched) {
			t.Fatalf("boost %v: %d matches, bleve %d, want %d", boost, len(got), len(want), len(matched))
		}
		for _, m := range got {
			if w, ok := want[m.ID]; !ok || math.Abs(m.Score-w) > 1e-9*w {
				t.Errorf("boost %v: %s scores %v, want %v (bleve's disjunction without its coordination)", boost, m.ID, m.Score, w)
			}
		}
		// A window and an id restriction advance the sum; scores stay.
		for _, r := range []Search{
			{Text: s.Text, ReplyBoost: boost, Size: 10, Since: base.Add(time.Hour), Before: base.Add(30 * time.Hour)},
			{Text: s.Text, ReplyBoost: boost, Size: 10, IDs: []string{"reply1", "both02", "text02"}},
		} {
			ms, err := x.Search(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != 3 {
				t.Errorf("boost %v, restricted search %+v: %d matches, want 3", boost, r, len(ms))
			}
			for _, m := range ms {
				if w := want[m.ID]; math.Abs(m.Score-w) > 1e-9*w {
					t.Errorf("boost %v, restricted: %s scores %v, want %v", boost, m.ID, m.Score, w)
				}
			}
		}
	}
}
