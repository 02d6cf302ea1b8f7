package vector

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refHeap is a topK kept by container/heap, the reference for topK's own
// sift-up and sift-down.
type refHeap struct {
	k int
	h []scored
}

func (t *refHeap) Len() int           { return len(t.h) }
func (t *refHeap) Less(i, j int) bool { return worse(t.h[i].Match, t.h[j].Match) }
func (t *refHeap) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *refHeap) Push(v any)         { t.h = append(t.h, v.(scored)) }
func (t *refHeap) Pop() any           { v := t.h[len(t.h)-1]; t.h = t.h[:len(t.h)-1]; return v }

func (t *refHeap) offerApprox(m Match, slack float32) {
	if len(t.h) < t.k {
		heap.Push(t, scored{m, slack})
		return
	}
	if worse(t.h[0].Match, m) {
		t.h[0] = scored{m, slack}
		heap.Fix(t, 0)
	}
}

// TestTopKMatchesContainerHeap offers the same matches to a topK and to
// a heap kept by container/heap, with many ties on score and on score
// and time, and checks that both hold the same matches in the same
// places; and that the floor admits no match the heap would turn away.
func TestTopKMatchesContainerHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, k := range []int{1, 2, 3, 10, 84} {
		for _, spread := range []int{3, 50, 100000} { // how many distinct scores and times
			got, want := &topK{k: k}, &refHeap{k: k}
			for i := range 2000 {
				m := Match{ID: fmt.Sprintf("c%d", i), Time: int64(r.IntN(spread)), Score: float32(r.IntN(spread)) / 7}
				if m.Score < got.floor() && got.admits(m.Score, m.Time) {
					t.Fatalf("k=%d: a match scoring %v, below the floor %v, is admitted", k, m.Score, got.floor())
				}
				got.offerApprox(m, float32(i))
				want.offerApprox(m, float32(i))
			}
			if diff := cmp.Diff(want.h, got.h, cmp.AllowUnexported(scored{})); diff != "" {
				t.Errorf("k=%d, spread %d (-container/heap +topK):\n%s", k, spread, diff)
			}
		}
	}
	if f := (&topK{k: 1}).floor(); !math.IsInf(float64(f), -1) {
		t.Errorf("the floor of an empty heap is %v, want -Inf", f)
	}
}
