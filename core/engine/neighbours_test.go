package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// TestNeighbourContext checks the query-time neighbour context: the turn
// after the one that holds a question's words is found through them, only
// inside the search's window and filter, and not at all with
// context_boost 0.
func TestNeighbourContext(t *testing.T) {
	day := time.Date(2026, 4, 13, 20, 0, 0, 0, cst) // a Monday
	msgs := []core.Message{
		// The question's words are in the first turn; the answer, in the
		// second, shares none of them.
		msg("trip", day, core.RoleUser, "Which teahouse near the Kiyomizu temple did we like?"),
		msg("trip", day.Add(time.Minute), core.RoleAssistant, "Let me look at my notes."),
		// The answer comes a week later, in the next ISO week.
		msg("trip", day.Add(7*24*time.Hour), core.RoleUser, "It was Kagizen Yoshifusa, the one with kuzukiri."),
		msg("trip", day.Add(7*24*time.Hour+time.Minute), core.RoleAssistant, "Noted: Kagizen Yoshifusa."),
		// Unrelated turns, so that the words are not everywhere.
		msg("other", day.Add(time.Hour), core.RoleUser, "The deploy failed on the staging server."),
		msg("other", day.Add(time.Hour+time.Minute), core.RoleAssistant, "Roll back and check the logs."),
	}
	const query = "Kiyomizu teahouse"
	recall := func(t *testing.T, e *Engine, q core.Query) []string {
		t.Helper()
		q.Text, q.NoTime, q.TopK = query, true, 5
		res, err := e.Recall(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			if firstText(h) == msgs[2].Text && h.Relevance == 0 {
				t.Errorf("the answer is a hit with relevance 0: its context holds every query term")
			}
			got = append(got, firstText(h))
		}
		return got
	}
	question, answer := msgs[0].Text, msgs[2].Text
	week1, week2 := day.Add(-20*time.Hour), day.Add(7*24*time.Hour-20*time.Hour)
	tests := []struct {
		name   string
		boost  float64
		q      core.Query
		answer bool
		first  string
	}{
		{"whole memory", 0.3, core.Query{}, true, question},
		{"the answer's week", 0.3, core.Query{Since: week2, Before: week2.Add(7 * 24 * time.Hour)}, true, answer},
		{"the question's week only", 0.3, core.Query{Since: week1, Before: week1.Add(7 * 24 * time.Hour)}, false, question},
		{"filter excluding the answer", 0.3, core.Query{Filter: "timestamp < '2026-04-19'"}, false, question},
		{"context off", 0, core.Query{}, false, question},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := openTest(t, func(c *core.Config) { c.Retriever.ContextBoost = &tt.boost })
			ingest(t, e, msgs)
			got := recall(t, e, tt.q)
			if slices.Contains(got, answer) != tt.answer {
				t.Errorf("hits %q: answer found = %v, want %v", got, !tt.answer, tt.answer)
			}
			if len(got) == 0 || got[0] != tt.first {
				t.Errorf("hits %q: want %q first", got, tt.first)
			}
		})
	}
}
