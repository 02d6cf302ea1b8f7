package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
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

// TestAnswerFollowsQuestion checks the rule for chats without roles: a
// chunk that asks a question is marked (store.Chunk.Asks), and the chunk
// after it, which answers without the question's words, ranks above it;
// in a chat with roles the question keeps the first place.
func TestAnswerFollowsQuestion(t *testing.T) {
	day := time.Date(2026, 4, 13, 20, 0, 0, 0, cst)
	lines := []string{
		"What did you cook for the potluck on Saturday?",
		"A big pot of lentil soup with cumin, everyone loved it.",
		"The train to the coast was late again this morning.",
		"Mine too, we waited forty minutes at the station.",
	}
	for _, tt := range []struct {
		name  string
		roles []core.Role
		first int // index in lines of the first hit
		asks  []bool
	}{
		{"no roles", []core.Role{core.RoleNone, core.RoleNone, core.RoleNone, core.RoleNone}, 1, []bool{true, false, false, false}},
		{"user and assistant", []core.Role{core.RoleUser, core.RoleAssistant, core.RoleUser, core.RoleAssistant}, 0, []bool{false, false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := openTest(t)
			var msgs []core.Message
			for i, l := range lines {
				m := msg("chat", day.Add(time.Duration(i)*time.Minute), tt.roles[i], l)
				m.Speaker = []string{"Caroline", "Melanie"}[i%2]
				msgs = append(msgs, m)
			}
			ingest(t, e, msgs)
			res, err := e.Recall(t.Context(), core.Query{Text: "What did Melanie cook for the potluck?", TopK: 2, NoTime: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 || firstText(res.Hits[0]) != lines[tt.first] {
				var got []string
				for _, h := range res.Hits {
					got = append(got, firstText(h))
				}
				t.Errorf("hits %q, want %q first", got, lines[tt.first])
			}
			// The mark, in chunk order.
			var asks []bool
			err = e.st.View(func(tx *store.Tx) error {
				id := ""
				for _, h := range res.Hits {
					if h.Prev == "" {
						id = h.ID
					}
				}
				if id == "" {
					id = res.Hits[0].Prev
				}
				for id != "" {
					h, ok, err := tx.ChunkHead(id)
					if err != nil || !ok {
						return err
					}
					asks = append(asks, h.Asks)
					id = h.Next
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(asks) != len(tt.asks) {
				t.Fatalf("chunks marked %v, want %v", asks, tt.asks)
			}
			for i := range asks {
				if asks[i] != tt.asks[i] {
					t.Errorf("chunks marked %v, want %v", asks, tt.asks)
					break
				}
			}
		})
	}
}

func TestAsks(t *testing.T) {
	m := func(role core.Role, text string) core.Message { return core.Message{Role: role, Text: text} }
	for _, tt := range []struct {
		name string
		msgs []core.Message
		want bool
	}{
		{"no messages", nil, false},
		{"a question", []core.Message{m(core.RoleNone, "How was Kyoto?")}, true},
		{"fullwidth mark, trailing space", []core.Message{m(core.RoleNone, "京都怎么样？ \n")}, true},
		{"a statement", []core.Message{m(core.RoleNone, "Kyoto was great.")}, false},
		{"ends with the answer", []core.Message{m(core.RoleNone, "How was Kyoto?"), m(core.RoleNone, "Great.")}, false},
		{"ends with a question", []core.Message{m(core.RoleNone, "Kyoto was great."), m(core.RoleNone, "And Osaka?")}, true},
		{"a user's question", []core.Message{m(core.RoleUser, "How was Kyoto?")}, false},
		{"roles in part", []core.Message{m(core.RoleAssistant, "Hi."), m(core.RoleNone, "How was Kyoto?")}, false},
	} {
		if got := asks(tt.msgs); got != tt.want {
			t.Errorf("%s: asks = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestRebuildMarksQuestions checks that an index rebuild marks the
// questions of a chat without roles whose chunks were stored without the
// mark (before index version 7), so that an older home ranks as a new one
// once its index has rebuilt itself.
func TestRebuildMarksQuestions(t *testing.T) {
	e := openTest(t)
	day := time.Date(2026, 4, 13, 20, 0, 0, 0, cst)
	q := msg("chat", day, core.RoleNone, "How was the concert?")
	a := msg("chat", day.Add(time.Minute), core.RoleNone, "Loud, and the encore was great.")
	q.Speaker, a.Speaker = "Caroline", "Melanie"
	ingest(t, e, []core.Message{q, a})
	marked := func() map[bool]int {
		n := map[bool]int{}
		err := e.st.View(func(tx *store.Tx) error {
			return tx.ForEachChunk(func(c *store.Chunk) error {
				h, _, err := tx.ChunkHead(c.ID)
				n[h.Asks]++
				return err
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := marked(); got[true] != 1 || got[false] != 1 {
		t.Fatalf("after ingest: %v chunks by mark, want one question and one answer", got)
	}
	// Take the mark off, as a home of an older version stored it.
	err := e.st.Update(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error {
			if !c.Asks {
				return nil
			}
			c.Asks = false
			return tx.PutChunk(c, false)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := marked(); got[true] != 0 {
		t.Fatalf("%v chunks by mark after taking it off", got)
	}
	if _, err := e.Reindex(t.Context(), ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := marked(); got[true] != 1 || got[false] != 1 {
		t.Errorf("after the rebuild: %v chunks by mark, want one question and one answer", got)
	}
}
