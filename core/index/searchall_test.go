package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/search"
)

// TestSearchAll checks that SearchAll returns Search's top matches and,
// for every chunk of the namespace, the score that a search restricted
// to that chunk gives it (to the last bit or so: see SearchAll), or
// nothing when the chunk shares no term with the query; over several
// segments, with deleted chunks, and with more matches than the limit.
func TestSearchAll(t *testing.T) {
	x := openTest(t)
	rng := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("deploy model memory kyoto trip budget garden piano python lunch review launch")
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	var ids []string
	byNS := map[string][]string{}
	// Three batches make three segments; the last deletes a few chunks.
	for batch := range 3 {
		var docs []Doc
		for i := range 60 {
			id := fmt.Sprintf("c%d%03d", batch, i)
			ns := []string{"", "bob"}[i%2]
			var text, reply []string
			for range 1 + rng.IntN(6) {
				text = append(text, words[rng.IntN(len(words))])
			}
			for range rng.IntN(8) {
				reply = append(reply, words[rng.IntN(len(words))])
			}
			docs = append(docs, Doc{ID: id, NS: ns, Session: "s", Time: base.Add(time.Duration(len(ids)) * time.Minute),
				Text: strings.Join(text, " "), Reply: strings.Join(reply, " ")})
			ids = append(ids, id)
			byNS[ns] = append(byNS[ns], id)
		}
		var deletes []string
		if batch == 2 {
			deletes = []string{"c0000", "c0001", "c1010"}
		}
		if err := x.Apply(docs, deletes, uint64(batch+1)); err != nil {
			t.Fatal(err)
		}
	}
	deleted := map[string]bool{"c0000": true, "c0001": true, "c1010": true}

	tests := []struct {
		name  string
		s     Search
		limit int
		kept  bool // whether all is returned
	}{
		{name: "one term", s: Search{Text: "kyoto", Size: 5}, limit: 1000, kept: true},
		{name: "several terms, reply boost", s: Search{Text: "deploy the model to kyoto", ReplyBoost: 0.5, Size: 5}, limit: 1000, kept: true},
		{name: "other namespace", s: Search{Text: "piano lunch", NS: "bob", Size: 3, NoSession: true}, limit: 1000, kept: true},
		{name: "no match", s: Search{Text: "zebra", Size: 5}, limit: 1000, kept: true},
		{name: "more matches than the limit", s: Search{Text: "deploy model memory kyoto trip budget", Size: 5}, limit: 10, kept: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := x.Search(t.Context(), tt.s)
			if err != nil {
				t.Fatal(err)
			}
			got, all, err := x.SearchAll(t.Context(), tt.s, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			defer all.Close()
			if !slices.Equal(got, want) {
				t.Fatalf("SearchAll's matches = %v, Search's = %v", got, want)
			}
			if !tt.kept {
				if all != nil {
					t.Fatalf("all = %v, want nil past the limit of %d", all, tt.limit)
				}
				return
			}
			if all == nil {
				t.Fatal("all = nil, want the scores")
			}
			ns := tt.s.NS
			// Every chunk of the index, and one that is not in it.
			scores, err := all.Of(append(slices.Clone(ids), "nosuch"))
			if err != nil {
				t.Fatal(err)
			}
			matched := 0
			for _, id := range byNS[ns] {
				one := tt.s
				one.IDs, one.Size = []string{id}, 1
				ms, err := x.Search(t.Context(), one)
				if err != nil {
					t.Fatal(err)
				}
				s, ok := scores[id]
				switch {
				case len(ms) == 0 && ok:
					t.Errorf("%s: all has %v, but it does not match", id, s)
				case len(ms) == 1 && !ok:
					t.Errorf("%s: missing from all; it scores %v", id, ms[0].Score)
				case len(ms) == 1 && math.Abs(s-ms[0].Score) > 1e-12*ms[0].Score:
					t.Errorf("%s: all has %v, its own search %v", id, s, ms[0].Score)
				}
				if ok && deleted[id] {
					t.Errorf("%s was deleted but has a score", id)
				}
				if ok {
					matched++
				}
			}
			if matched != len(scores) {
				t.Errorf("all has %d scores, %d of them for chunks of namespace %q", len(scores), matched, ns)
			}
			if tt.s.Text != "zebra" && matched <= tt.s.Size {
				t.Errorf("only %d matches: the test wants more than the %d the search returns", matched, tt.s.Size)
			}
		})
	}
}

// TestNamespaceConjunctDropped checks when a search leaves out its
// namespace conjunct (allIn over the snapshot it searches), that it then
// scores every chunk exactly as with the conjunct, and that a chunk of
// another namespace is never found, before or after deletions.
func TestNamespaceConjunctDropped(t *testing.T) {
	x := openTest(t)
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	doc := func(id, ns, text string) Doc {
		return Doc{ID: id, NS: ns, Session: "s", Time: base, Text: text, Reply: "the garden and the piano lesson"}
	}
	allInNS := func(ns string) bool {
		r, err := x.b.openReader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return allIn(t.Context(), r, "ns", ns)
	}
	// search runs s with and without the namespace conjunct on the same
	// index, and checks that the matches and scores are the same. The two
	// searches read a snapshot each, and scorch's background merger may
	// purge deleted chunks between them, which changes BM25's statistics;
	// so s runs again without the conjunct after, and the pair counts only
	// when that gives what the first run gave (the same snapshot then
	// served all three), else it is tried again.
	search := func(s Search) []Match {
		t.Helper()
		for try := 0; ; try++ {
			got, err := x.Search(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			res, err := x.b.Search(t.Context(), bleveSearch{Query: s.query(), Size: s.Size, Sort: searchSort})
			if err != nil {
				t.Fatal(err)
			}
			again, err := x.Search(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(again, got) && try < 20 {
				time.Sleep(10 * time.Millisecond)
				continue // the merger changed the index meanwhile
			}
			if len(res.Hits) != len(got) {
				t.Fatalf("%d matches, %d with the conjunct", len(got), len(res.Hits))
			}
			for i, h := range res.Hits {
				if h.ID != got[i].ID || h.Score != got[i].Score {
					t.Fatalf("match %d: %s %v, with the conjunct %s %v", i, got[i].ID, got[i].Score, h.ID, h.Score)
				}
			}
			return got
		}
	}
	if err := x.Apply([]Doc{doc("a1", "", "garden piano lunch"), doc("a2", "", "piano review"), doc("b1", "bob", "garden piano")}, nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := x.Apply([]Doc{doc("a3", "", "garden trip budget"), doc("b2", "bob", "piano garden piano")}, nil, 2); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		deletes []string
		all     bool // every live chunk in the default namespace
		want    []string
	}{
		{name: "two namespaces", all: false, want: []string{"a1", "a2", "a3"}},
		{name: "one of bob's deleted", deletes: []string{"b1"}, all: false, want: []string{"a1", "a2", "a3"}},
		{name: "all of bob's deleted", deletes: []string{"b2"}, all: true, want: []string{"a1", "a2", "a3"}},
		{name: "and one of the default's", deletes: []string{"a2"}, all: true, want: []string{"a1", "a3"}},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if len(st.deletes) > 0 {
				if err := x.Apply(nil, st.deletes, uint64(3+i)); err != nil {
					t.Fatal(err)
				}
			}
			if got := allInNS(DefaultNS); got != st.all {
				t.Errorf("allIn(default) = %v, want %v", got, st.all)
			}
			got := search(Search{Text: "garden piano", ReplyBoost: 0.5, Size: 10})
			ids := matchIDs(got)
			slices.Sort(ids)
			if !slices.Equal(ids, st.want) {
				t.Errorf("matches %v, want %v", ids, st.want)
			}
			bob := search(Search{Text: "garden piano", NS: "bob", Size: 10})
			for _, m := range bob {
				if !strings.HasPrefix(m.ID, "b") {
					t.Errorf("bob's search found %s", m.ID)
				}
			}
		})
	}
}

// TestMatchBlocks checks the recorder's blocks at and around their
// boundaries: every kept id is found with its score, and ids between,
// before and after them are not.
func TestMatchBlocks(t *testing.T) {
	for _, n := range []int{0, 1, matchBlockLen - 1, matchBlockLen, matchBlockLen + 1, 3*matchBlockLen + 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := &matchRecorder{limit: n + 1}
			for i := range n {
				m.note(match(uint64(2*i+2), float64(i)/7))
			}
			if m.over || m.n != n {
				t.Fatalf("recorded %d of %d matches (over %v)", m.n, n, m.over)
			}
			for doc := uint64(0); doc <= uint64(2*n+3); doc++ {
				score, ok := m.kept.find(m.n, doc)
				wantOK := doc%2 == 0 && doc >= 2 && doc <= uint64(2*n)
				if ok != wantOK || ok && score != float64(doc/2-1)/7 {
					t.Fatalf("find(%d) = %v, %v; want found %v", doc, score, ok, wantOK)
				}
			}
		})
	}
	t.Run("over the limit", func(t *testing.T) {
		m := &matchRecorder{limit: 2}
		for _, doc := range []uint64{1, 2, 3} {
			m.note(match(doc, 1))
		}
		if !m.over || m.kept != nil {
			t.Fatalf("three matches with limit 2: over %v, kept %d blocks", m.over, len(m.kept))
		}
	})
	t.Run("out of order", func(t *testing.T) {
		m := &matchRecorder{limit: 10}
		for _, doc := range []uint64{5, 3} {
			m.note(match(doc, 1))
		}
		if !m.over {
			t.Fatal("ids out of order were kept")
		}
	})
}

// match is a search match of scorch's internal id doc.
func match(doc uint64, score float64) *search.DocumentMatch {
	return &search.DocumentMatch{IndexInternalID: binary.BigEndian.AppendUint64(nil, doc), Score: score}
}
