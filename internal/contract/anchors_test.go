package contract

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

// batchedCorpus returns the batches of five sessions of eight exchanges
// each, spread over two weeks: batch 0 holds each session's first three
// exchanges, batch 1 the next three (appends), batch 2 the last two in
// reverse order, and batch 3 late messages: an exchange dated before each
// session's first, one in the middle of each session, and a message at
// the same instant as a stored one.
func batchedCorpus(ns string) [][]core.Message {
	topics := []string{"kubernetes autoscaling", "sourdough starter", "tax filing deadline", "marathon training", "家庭 预算 计划"}
	start := time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)
	exchange := func(s, i int, at time.Time) []core.Message {
		sess := fmt.Sprintf("s%d", s)
		return []core.Message{
			{Namespace: ns, Session: sess, Time: at, Role: core.RoleUser, Text: fmt.Sprintf("question %d of %s about %s", i, sess, topics[s])},
			{Namespace: ns, Session: sess, Time: at.Add(20 * time.Second), Role: core.RoleAssistant, Text: fmt.Sprintf("answer %d of %s on %s", i, sess, topics[s])},
		}
	}
	batches := make([][]core.Message, 4)
	for s := range 5 {
		first := start.Add(time.Duration(s) * 62 * time.Hour)
		at := func(i int) time.Time { return first.Add(time.Duration(i) * 5 * time.Minute) }
		for i := range 8 {
			b := 0
			switch {
			case i >= 6:
				b = 2
			case i >= 3:
				b = 1
			}
			batches[b] = append(batches[b], exchange(s, i, at(i))...)
		}
		batches[3] = append(batches[3], exchange(s, -1, at(-1))...)
		batches[3] = append(batches[3], exchange(s, 100, at(4).Add(2*time.Minute))...)
		tie := exchange(s, 200, at(2))[0] // same instant as exchange 2's question
		batches[3] = append(batches[3], tie)
	}
	slices.Reverse(batches[2])
	return batches
}

func TestAnchorsAcrossBatchesAndReopen(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		cfg := utc(config(t))
		e := open(t, cfg)
		batches := batchedCorpus("")
		var prev map[string][]string
		total := 0
		for b, batch := range batches {
			res := ingest(t, e, batch)
			total += len(batch)
			if res.Added != len(batch) {
				t.Errorf("batch %d: %+v, want %d added", b, res, len(batch))
			}
			ids := chains(t, e, "")
			if len(ids) != 5 {
				t.Fatalf("batch %d: %d sessions, want 5", b, len(ids))
			}
			// Appends keep the ids of the chunks already stored.
			if b > 0 && b < 3 {
				for s, old := range prev {
					if len(ids[s]) <= len(old) || !slices.Equal(ids[s][:len(old)], old) {
						t.Errorf("batch %d: session %s chain %v does not extend %v", b, s, ids[s], old)
					}
				}
			}
			prev = ids
			if st := stats(t, e); st.Messages != total || st.Sessions != 5 || st.Pending != 0 || st.IndexDocs != uint64(st.Chunks) {
				t.Errorf("batch %d: stats %+v, want %d messages in 5 sessions, index in step", b, st, total)
			}
		}
		for s, ids := range prev {
			turns, err := e.SessionTurns(t.Context(), "", s, 0)
			if err != nil {
				t.Fatal(err)
			}
			if first := turns[0].Messages[0].Text; !strings.HasPrefix(first, "question -1 of "+s+" ") {
				t.Errorf("session %s starts with %q, want the late first exchange", s, first)
			}
			if len(ids) < 10 {
				t.Errorf("session %s has %d chunks, want at least 10", s, len(ids))
			}
		}
		before := snap(t, e)
		queries := []string{"sourdough starter", "marathon training answer 5", "预算 计划", "tax filing deadline question 100"}
		hitsBefore := map[string][]string{}
		for _, q := range queries {
			hitsBefore[q] = idsOf(recall(t, e, core.Query{Text: q, TopK: 5, NoTime: true}).Hits)
		}
		if err := e.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}

		e = open(t, cfg)
		if diff := cmp.Diff(before, snap(t, e)); diff != "" {
			t.Errorf("re-opened memory differs (-before +after):\n%s", diff)
		}
		for _, q := range queries {
			if diff := cmp.Diff(hitsBefore[q], idsOf(recall(t, e, core.Query{Text: q, TopK: 5, NoTime: true}).Hits)); diff != "" {
				t.Errorf("recall %q after re-opening (-before +after):\n%s", q, diff)
			}
		}
		// An append after re-opening extends the chains.
		more := []core.Message{{Session: "s0", Time: time.Date(2026, 4, 30, 9, 0, 0, 0, time.UTC), Role: core.RoleUser, Text: "one more question"}}
		ingest(t, e, more)
		after := chains(t, e, "")
		if old := before.Chains[""]["s0"]; len(after["s0"]) != len(old)+1 || !slices.Equal(after["s0"][:len(old)], old) {
			t.Errorf("s0 after an append: %v, was %v", after["s0"], old)
		}
	})
}
