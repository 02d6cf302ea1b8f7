package index

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// mergeDocs returns batch b of a small corpus in which later batches
// replace some chunks of earlier ones (a neighbour's context changed),
// as ingests do. Every batch draws on the same words, so that the
// segments' dictionaries overlap: bleve's BM25 takes a field's average
// length from the sum of the segments' dictionary sizes, which counts a
// word once per segment that holds it.
func mergeDocs(b int) []Doc {
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	words := []string{"deploy", "model", "kyoto", "budget", "quokka", "memory", "trip", "server",
		"garden", "violin", "harbor", "lantern", "pepper", "saddle", "tunnel", "walnut"}
	var docs []Doc
	for i := range 8 {
		id := fmt.Sprintf("c%d-%d", b, i)
		if i < 3 && b > 0 {
			id = fmt.Sprintf("c%d-%d", b-1, i+3) // replaces a chunk of the batch before
		}
		docs = append(docs, Doc{
			ID: id, Session: fmt.Sprintf("s%d", b), Time: base.Add(time.Duration(b*8+i) * time.Hour),
			Text: fmt.Sprintf("%s %s %s %s", words[(b+i)%len(words)], words[(b*3+i)%len(words)],
				words[(5*i+b)%len(words)], words[(7*i+3*b+1)%len(words)]),
			Context: fmt.Sprintf("%s %s %s", words[i%len(words)], words[(b+2*i)%len(words)], words[(3*i+b+5)%len(words)]),
		})
	}
	return docs
}

// TestMergeFoldsSegments: Merge leaves one segment, keeps every chunk,
// and afterwards scores are those of an index built in one batch from the
// same final chunks, however the batches came in.
func TestMergeFoldsSegments(t *testing.T) {
	x := openTest(t)
	final := map[string]Doc{}
	for b := range 5 {
		docs := mergeDocs(b)
		if err := x.Apply(docs, nil, uint64(b+1)); err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			final[d.ID] = d
		}
	}
	before, err := x.SegmentStats()
	if err != nil {
		t.Fatal(err)
	}
	if before.Segments < 2 || before.Total != uint64(len(final)) || before.Largest >= before.Total {
		t.Fatalf("five batches left %+v; the test needs several segments holding the %d chunks", before, len(final))
	}
	if err := x.Merge(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st, err := x.SegmentStats(); err != nil || st.Segments != 1 || st.Largest != st.Total || st.Total != uint64(len(final)) {
		t.Fatalf("SegmentStats after Merge = %+v, %v; want one segment of %d chunks", st, err, len(final))
	}
	if n, _ := x.Count(); n != uint64(len(final)) {
		t.Fatalf("Count after Merge = %d, want %d", n, len(final))
	}
	// The merged segments' files are gone by the time Merge returns.
	if zaps, _ := filepath.Glob(filepath.Join(x.path, "store", "*.zap")); len(zaps) != 1 {
		t.Fatalf("after Merge the index holds %d segment files, want 1: %v", len(zaps), zaps)
	}

	fresh := openTest(t)
	var all []Doc
	for _, d := range final {
		all = append(all, d)
	}
	slices.SortFunc(all, func(a, b Doc) int { return strings.Compare(a.ID, b.ID) })
	if err := fresh.Apply(all, nil, 1); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"deploy model", "kyoto budget", "quokka notes", "server memory trip"} {
		s := Search{Text: q, ContextBoost: 1, ReplyBoost: 0.3, Size: 50}
		got, err := x.Search(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.Search(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || len(got) != len(want) {
			t.Fatalf("%q: %d matches after Merge, %d in a fresh index", q, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || got[i].Score != want[i].Score {
				t.Fatalf("%q: match %d is %s %v after Merge, %s %v in a fresh index", q, i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
			}
		}
	}
}

func TestMergeRefusesReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	x, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Apply(mergeDocs(0), nil, 1); err != nil {
		t.Fatal(err)
	}
	x.Close()
	ro, err := OpenWith(dir, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Merge(t.Context()); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Merge on a read-only index = %v, want ErrReadOnly", err)
	}
}

// TestSegmentsOfAClosedIndex: a closed index has no snapshot to read its
// segments from; asking for them says so, and letting their mapped pages
// go does nothing, where both dereferenced a nil snapshot.
func TestSegmentsOfAClosedIndex(t *testing.T) {
	x, err := Open(filepath.Join(t.TempDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	doc := Doc{ID: "aaaaaa", Session: "s1", Time: time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC), Text: "deploy the local model"}
	if err := x.Apply([]Doc{doc}, nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x.ReleaseMapped()
	if _, err := x.SegmentStats(); !errors.Is(err, ErrClosed) {
		t.Errorf("SegmentStats of a closed index: %v, want ErrClosed", err)
	}
}
