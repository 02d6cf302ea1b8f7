package index

import (
	"fmt"
	"testing"
	"time"

	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"
)

// TestInternalIDs checks the one-pass lookup of internal ids against
// bleve's own IndexReader.InternalID, id by id, on indexes of one and of
// several segments, with chunks that a later batch replaced or deleted
// (still in an older segment, marked deleted) and ids never indexed.
func TestInternalIDs(t *testing.T) {
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	doc := func(i int) Doc {
		return Doc{ID: fmt.Sprintf("c%05d", i), Session: "s", Time: base.Add(time.Duration(i) * time.Minute), Text: fmt.Sprintf("turn %d about deploys", i)}
	}
	tests := []struct {
		name    string
		batches [][]int // chunk numbers written by each batch (a segment each)
		deletes [][]int // chunk numbers each batch deletes
		ask     []int
	}{
		{name: "one segment", batches: [][]int{{0, 1, 2, 3}}, ask: []int{3, 0, 9, 2}},
		{name: "several segments", batches: [][]int{{0, 1, 2}, {3, 4}, {5}, {6, 7, 8}}, ask: []int{8, 0, 5, 4, 99, 1}},
		{name: "replaced and deleted", batches: [][]int{{0, 1, 2, 3}, {1, 4}, {2, 5}, {6}}, deletes: [][]int{nil, nil, {3}, {0}}, ask: []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{name: "nothing asked", batches: [][]int{{0}, {1}}, ask: nil},
		{name: "asked twice", batches: [][]int{{0, 1}, {2}}, ask: []int{2, 2, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := openTest(t)
			for b, nums := range tt.batches {
				var docs []Doc
				for _, n := range nums {
					docs = append(docs, doc(n))
				}
				var dels []string
				if b < len(tt.deletes) {
					for _, n := range tt.deletes[b] {
						dels = append(dels, doc(n).ID)
					}
				}
				if err := x.Apply(docs, dels, uint64(b+1)); err != nil {
					t.Fatal(err)
				}
			}
			if st, err := x.SegmentStats(); err == nil {
				t.Logf("%d segments", st.Segments)
			}
			r, err := x.b.openReader()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var ids []string
			want := map[string]bindex.IndexInternalID{}
			for _, n := range tt.ask {
				id := doc(n).ID
				ids = append(ids, id)
				in, err := r.InternalID(id)
				if err != nil {
					t.Fatal(err)
				}
				if len(in) > 0 {
					want[id] = in
				}
			}
			got, err := internalIDs(r, ids)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("internalIDs (-want +got):\n%s", diff)
			}
		})
	}
}
