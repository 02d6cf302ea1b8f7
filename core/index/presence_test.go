package index

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPresenceAgainstTexts checks Presence against the documents' own
// words over many documents, in several segments, asked in random order
// with missing ids among them: the documents between two postings of a
// term are answered without moving the reader back.
func TestPresenceAgainstTexts(t *testing.T) {
	x := openTest(t)
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}
	pick := func() string {
		var ws []string
		for _, w := range words {
			if r.IntN(4) == 0 {
				ws = append(ws, w)
			}
		}
		return strings.Join(ws, " ")
	}
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	var docs []Doc
	for batch := range 3 { // one segment per batch
		var part []Doc
		for i := range 60 {
			part = append(part, Doc{ID: fmt.Sprintf("d%d-%02d", batch, i), Time: base, Text: pick(), Reply: pick(), Context: pick()})
		}
		if err := x.Apply(part, nil, uint64(batch+1)); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, part...)
	}
	holds := func(text, w string) bool { return strings.Contains(" "+text+" ", " "+w+" ") }
	ids := []string{"missing"}
	want := [][]uint8{make([]uint8, len(words))}
	for _, i := range r.Perm(len(docs)) {
		d := docs[i]
		row := make([]uint8, len(words))
		for j, w := range words {
			switch {
			case holds(d.Text, w) || holds(d.Reply, w):
				row[j] = InChunk
			case holds(d.Context, w):
				row[j] = InContext
			}
		}
		ids, want = append(ids, d.ID), append(want, row)
	}
	terms := x.Analyze(strings.Join(words, " "))
	if len(terms) != len(words) {
		t.Fatalf("Analyze(%q) = %q", words, terms)
	}
	got, err := x.Presence(t.Context(), ids, terms)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Presence (-want +got):\n%s", diff)
	}
}
