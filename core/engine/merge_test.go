package engine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
)

// An ingest that grows the index by more than a quarter ends with one
// segment, unless storage.compact_after_ingest is off; recall then ranks
// as a home built in one go does, and a small ingest afterwards merges
// nothing.
func TestIngestMergesTheIndex(t *testing.T) {
	// Two sources: the first ingest leaves one segment, the second (as
	// big again) adds another and merges them.
	msgs := stagedCorpus()
	dir := t.TempDir()
	paths := []string{
		writeJSONL(t, dir, "first.jsonl", msgs[:len(msgs)/2], ""),
		writeJSONL(t, dir, "second.jsonl", msgs[len(msgs)/2:], ""),
	}
	var want []string
	for _, tt := range []struct {
		name  string
		on    bool
		batch int
	}{
		{"staged, on", true, 50},
		{"staged again, on", true, 50},
		{"staged, off", false, 50},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := openTest(t, func(c *core.Config) { c.Storage.CompactAfterIngest = new(tt.on) })
			var res SourceResult
			for _, p := range paths {
				var err error
				if res, err = e.IngestSource(t.Context(), p, SourceOptions{Location: time.UTC, BatchMessages: tt.batch}); err != nil {
					t.Fatal(err)
				}
			}
			st, err := e.ix.(*index.Index).SegmentStats()
			if err != nil {
				t.Fatal(err)
			}
			if !tt.on {
				if res.IndexMerge != nil {
					t.Fatalf("merged with compact_after_ingest off: %+v", res.IndexMerge)
				}
				return
			}
			if res.IndexMerge == nil || res.IndexMerge.Segments < 2 {
				t.Fatalf("index merge %+v; want one of several segments (the test needs several batches)", res.IndexMerge)
			}
			if st.Segments != 1 {
				t.Fatalf("%+v after the merge, want one segment", st)
			}
			got, err := e.Recall(t.Context(), core.Query{Text: "deploy budget garden", TopK: 8})
			if err != nil {
				t.Fatal(err)
			}
			ids := hitIDs(got.Hits)
			if len(ids) == 0 {
				t.Fatal("recall found nothing")
			}
			// Two homes built from the same file rank the same, scores
			// included, once merged.
			if want == nil {
				want = ids
			} else if diff := cmp.Diff(want, ids); diff != "" {
				t.Errorf("a second home ranks differently (-first +second):\n%s", diff)
			}
			more := []core.Message{msg("later", time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC), core.RoleUser, "one more message about the garden")}
			r2, err := e.Ingest(t.Context(), more)
			if err != nil {
				t.Fatal(err)
			}
			if r2.IndexMerge != nil {
				t.Errorf("a one-message ingest merged the index: %+v", r2.IndexMerge)
			}
		})
	}
}
