package postgres

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/internal/bench/synth"
)

// TestTextFirstMatchesFullSearch checks that a search that scores the
// chunks holding a query term in their text first returns what scoring
// every candidate returns (ids, order and scores), whether the first
// page is complete or the search goes on to every candidate.
func TestTextFirstMatchesFullSearch(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	docs := synthDocs(7, 1500, "d")
	if err := db.Lexical().Apply(ctx, "", docs, nil); err != nil {
		t.Fatal(err)
	}
	var queries []string
	for i := range 12 {
		queries = append(queries, fmt.Sprintf("%s and %s", synth.Word(40+i*11), synth.Word(300+i*17)),
			synth.ZhWord(30+i*7)+synth.ZhWord(200+i*13))
	}
	queries = append(queries, synth.Word(3), synth.Word(5000)+" "+synth.Word(5001))
	complete, partial := 0, 0
	textFirstDone = func(ok bool) {
		if ok {
			complete++
		} else {
			partial++
		}
	}
	defer func() { textFirstDone = nil }()
	for _, b := range []struct{ reply, ctx float64 }{{0.01, 0}, {0.3, 1}, {2, 0}, {0, 0.5}} {
		for _, size := range []int{5, 40} {
			for _, q := range queries {
				s := Search{Text: q, Size: size, ReplyBoost: b.reply, ContextBoost: b.ctx}
				got, err := db.Lexical().Search(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				noTextFirst = true
				want, err := db.Lexical().Search(ctx, s)
				noTextFirst = false
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%+v (-full +text first):\n%s", s, diff)
				}
			}
		}
	}
	if complete == 0 || partial == 0 {
		t.Errorf("text-first pages: %d complete, %d not; the test needs both", complete, partial)
	}
	t.Logf("text-first pages: %d complete, %d not", complete, partial)
}
