package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTopGateKeepsTheTop checks that a search for the top n returns the
// first n of a search that ranks every match: the matches the gate
// (topGate) leaves out could not have been among them. Many chunks are
// copies of each other, so that ties of score straddle the cut and the
// order by id decides them; the index has several segments and deletes.
func TestTopGateKeepsTheTop(t *testing.T) {
	x := openTest(t)
	rng := rand.New(rand.NewPCG(3, 5))
	words := strings.Fields("budget hotel kyoto trip garden piano deploy review lunch launch")
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	texts := make([]string, 40) // 40 texts over 600 chunks: many copies
	for i := range texts {
		var w []string
		for range 1 + rng.IntN(6) {
			w = append(w, words[rng.IntN(len(words))])
		}
		texts[i] = strings.Join(w, " ")
	}
	n := 0
	for batch := range 3 {
		var docs []Doc
		for range 200 {
			docs = append(docs, Doc{ID: fmt.Sprintf("c%04d", rng.IntN(100000)), NS: "n", Session: "s",
				Time: base.Add(time.Duration(n) * time.Minute), Text: texts[rng.IntN(len(texts))]})
			n++
		}
		var deletes []string
		if batch == 2 {
			deletes = []string{docs[0].ID, docs[1].ID}
		}
		if err := x.Apply(docs, deletes, uint64(batch+1)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		text string
		size int
	}{
		{"budget hotel", 1},
		{"budget hotel", 10},
		{"kyoto trip garden", 37},
		{"piano", 100},
		{"lunch launch deploy review", 250},
	} {
		t.Run(fmt.Sprintf("%s/%d", tt.text, tt.size), func(t *testing.T) {
			all, err := x.Search(t.Context(), Search{Text: tt.text, NS: "n", Size: 10000, ReplyBoost: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			top, err := x.Search(t.Context(), Search{Text: tt.text, NS: "n", Size: tt.size, ReplyBoost: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			want := all[:min(tt.size, len(all))]
			if !slices.Equal(top, want) {
				t.Errorf("top %d differs from the first %d of all %d matches:\n got %v\nwant %v", tt.size, tt.size, len(all), top, want)
			}
			ties := 0
			for i := 1; i < len(want); i++ {
				if want[i].Score == want[i-1].Score {
					ties++
				}
			}
			if tt.size > 1 && ties == 0 {
				t.Errorf("no ties among the top %d: the test does not test the order by id", tt.size)
			}
		})
	}
}
