package index

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/google/go-cmp/cmp"
)

// planSegment is a segment as scorch's merge planner sees it: only its
// number of live chunks matters here.
type planSegment struct {
	id   uint64
	docs int64
}

func (s planSegment) Id() uint64          { return s.id }
func (s planSegment) FullSize() int64     { return s.docs }
func (s planSegment) LiveSize() int64     { return s.docs }
func (s planSegment) HasVector() bool     { return false }
func (s planSegment) FileSize() int64     { return s.docs << 10 }
func (s planSegment) LiveFileSize() int64 { return s.docs << 10 }

// ourMergePlan returns the background merger's options as scorch reads
// them from the config the index is opened with: its defaults with
// mergePlanOptions unmarshalled over them.
func ourMergePlan(t *testing.T) *mergeplan.MergePlanOptions {
	o := mergeplan.DefaultMergePlanOptions
	b, err := json.Marshal(mergePlanOptions)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	if err := mergeplan.ValidateMergePlannerOptions(&o); err != nil {
		t.Fatal(err)
	}
	return &o
}

// largeAndSmall returns a segment of 3800 chunks (id 1) followed by n
// segments of 380 (ids 2 on), as a bulk ingest in 256 KiB index
// batches leaves them.
func largeAndSmall(n int) []mergeplan.Segment {
	segs := []mergeplan.Segment{planSegment{1, 3800}}
	for i := range n {
		segs = append(segs, planSegment{uint64(i + 2), 380})
	}
	return segs
}

// planTasks returns the segments each task of the plan merges, by id.
func planTasks(t *testing.T, segs []mergeplan.Segment, o *mergeplan.MergePlanOptions) [][]uint64 {
	t.Helper()
	plan, err := mergeplan.Plan(segs, o)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]uint64
	if plan != nil {
		for _, task := range plan.Tasks {
			var ids []uint64
			for _, s := range task.Segments {
				ids = append(ids, s.Id())
			}
			slices.Sort(ids)
			got = append(got, ids)
		}
	}
	return got
}

// ids returns the ids from to to, inclusive.
func ids(from, to uint64) []uint64 {
	var out []uint64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// TestMergePlanWaitsForFullTier: small segments wait until ten of them
// can be merged together, and the large segment is left alone. With
// scorch's default floor of 2000 chunks the planner merges
// every five or so as they arrive, and those merges are merged again
// later (TestMergePlanDefaultMergesEarly).
func TestMergePlanWaitsForFullTier(t *testing.T) {
	tests := []struct {
		small int
		want  [][]uint64
	}{
		{5, nil},
		{11, nil},
		{15, [][]uint64{ids(2, 11)}},
		{30, [][]uint64{ids(2, 11), ids(12, 21)}},
	}
	opts := ourMergePlan(t)
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.small), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, planTasks(t, largeAndSmall(tt.small), opts)); diff != "" {
				t.Errorf("merge tasks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergePlanDefaultMergesEarly documents why the floor is lowered:
// scorch's default plan already merges five small segments.
func TestMergePlanDefaultMergesEarly(t *testing.T) {
	want := [][]uint64{ids(2, 6)}
	if diff := cmp.Diff(want, planTasks(t, largeAndSmall(5), &mergeplan.DefaultMergePlanOptions)); diff != "" {
		t.Errorf("merge tasks (-want +got):\n%s", diff)
	}
}
