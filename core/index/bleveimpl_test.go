package index

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	// The root package, only in tests: the engine links only the layer
	// in bleveimpl.go, and these tests hold it to bleve's behaviour.
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/util"
	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/filter"
)

// compatDocs returns seeded chunks of varied lengths, languages, fields
// and namespaces, so that BM25's length normalisation and the boosts all
// play a part in the scores.
func compatDocs() []Doc {
	words := []string{"deploy", "budget", "kyoto", "temple", "server's", "latency", "Meeting", "running", "部署", "预算", "会议", "服务器", "旅行", "咖啡"}
	r := rand.New(rand.NewPCG(3, 4))
	text := func(n int) string {
		var b strings.Builder
		for j := range n {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	out := make([]Doc, 80)
	for i := range out {
		out[i] = Doc{
			ID: fmt.Sprintf("c%03d", i), NS: []string{"", "bob"}[i%5/4], Session: fmt.Sprintf("s%d", i/10),
			Time: base.Add(time.Duration(i) * 6 * time.Hour), Text: "user: " + text(2+r.IntN(25)),
			Roles: []string{[]string{"user", "assistant"}[i%2]}, Speakers: []string{"Alice"}, Topic: []string{"", "travel"}[i%3/2],
		}
		if i%3 > 0 {
			out[i].Reply = "assistant: " + text(5+r.IntN(60))
		}
		if i%4 > 0 {
			out[i].Context = text(10 + r.IntN(40))
		}
	}
	return out
}

// compatSearches are the searches the compatibility tests compare.
func compatSearches(t *testing.T) []Search {
	t.Helper()
	role, err := filter.Parse(`role = "assistant"`, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	return []Search{
		{Text: "deploy budget", Size: 10},
		{Text: "部署预算 kyoto", Size: 20, ContextBoost: 0.3, ReplyBoost: 0.7},
		{Text: "running servers latency", Size: 80, ReplyBoost: 1},
		{Text: "会议 meeting", NS: "bob", Size: 5, ContextBoost: 0.5},
		{Text: "temple 旅行", Size: 15, Since: base.Add(48 * time.Hour), Before: base.Add(300 * time.Hour)},
		{Text: "coffee 咖啡", Size: 10, Filter: role, ContextBoost: 0.2},
		{Text: "deploy", Size: 3, IDs: []string{"c001", "c002", "c010", "c040"}},
		{Size: 100},
		{Size: 7, NoSession: true},
		{Text: "zebra", Size: 10},
	}
}

// bleveMatches runs s with bleve's own search on b.
func bleveMatches(t *testing.T, b bleve.Index, s Search) []Match {
	t.Helper()
	req := bleve.NewSearchRequestOptions(s.query(), s.Size, 0, false)
	req.SortBy(searchSort)
	if !s.NoSession {
		req.Fields = []string{"session"}
	}
	res, err := b.SearchInContext(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Match, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = Match{ID: h.ID, Score: h.Score}
		out[i].Session, _ = h.Fields["session"].(string)
	}
	return out
}

// compareSearches checks that x and b return the same matches, scores
// equal to the bit, for every search of compatSearches.
func compareSearches(t *testing.T, x *Index, b bleve.Index) {
	t.Helper()
	for i, s := range compatSearches(t) {
		want := bleveMatches(t, b, s)
		got, err := x.Search(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if s.Text != "zebra" && len(want) == 0 {
			t.Errorf("search %d (%q) finds nothing", i, s.Text)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("search %d (%q) (-bleve +core/index):\n%s", i, s.Text, diff)
		}
	}
}

// TestLayoutIsBleves checks that a new index's index_meta.json and saved
// mapping are byte for byte those bleve.New writes.
func TestLayoutIsBleves(t *testing.T) {
	dir := t.TempDir()
	m, err := NewMapping()
	if err != nil {
		t.Fatal(err)
	}
	old, err := bleve.New(filepath.Join(dir, "bleve"), m)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	x, err := Create(filepath.Join(dir, "ours"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, name := range []string{bleveMetaFile, filepath.Join(bleveStoreDir, "root.bolt")} {
		if _, err := os.Stat(filepath.Join(dir, "ours", name)); err != nil {
			t.Errorf("new index: %v", err)
		}
	}
	want, err := os.ReadFile(filepath.Join(dir, "bleve", bleveMetaFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "ours", bleveMetaFile))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-bleve +ours):\n%s", bleveMetaFile, diff)
	}
	wantM, err := old.GetInternal(util.MappingInternalKey)
	if err != nil {
		t.Fatal(err)
	}
	gotM, err := x.b.GetInternal(util.MappingInternalKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(wantM) == 0 || string(wantM) != string(gotM) {
		t.Errorf("saved mapping differs:\nbleve %s\nours  %s", wantM, gotM)
	}
}

// TestBleveIndexOpens writes an index with bleve's root package
// (bleve.New), and opens it with core/index: the documents,
// generation and every search's matches and scores are bleve's.
func TestBleveIndexOpens(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	m, err := NewMapping()
	if err != nil {
		t.Fatal(err)
	}
	b, err := bleve.New(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetInternal(keyVersion, []byte(strconv.Itoa(Version))); err != nil {
		t.Fatal(err)
	}
	docs := compatDocs()
	for _, part := range [][]Doc{docs[:50], docs[50:]} { // two segments
		batch := b.NewBatch()
		for i := range part {
			if err := batch.Index(part[i].ID, part[i].fields()); err != nil {
				t.Fatal(err)
			}
		}
		batch.SetInternal(keyGen, []byte("9"))
		if err := b.Batch(batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	x, err := OpenWith(dir, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("opening bleve's index: %v", err)
	}
	defer x.Close()
	if n, err := x.Count(); err != nil || n != uint64(len(docs)) {
		t.Errorf("Count = %d, %v; want %d", n, err, len(docs))
	}
	if g, err := x.Gen(); err != nil || g != 9 {
		t.Errorf("Gen = %d, %v; want 9", g, err)
	}
	b, err = bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	compareSearches(t, x, b)
}

// TestIndexOpensWithBleve writes an index with core/index and opens it
// with bleve.Open: bleve reads its mapping, documents and internal values,
// and searches it as core/index does, to the bit.
func TestIndexOpensWithBleve(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	x, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	docs := compatDocs()
	// Half with the neighbours' text in parts, half joined.
	parts := make([][]string, 40)
	for i := range parts {
		if docs[i].Context != "" {
			parts[i] = strings.Split(docs[i].Context, " ")
			docs[i].Context = strings.Join(parts[i], "\n")
		}
	}
	if err := x.ApplyParts(docs[:40], parts, nil, 4); err != nil {
		t.Fatal(err)
	}
	if err := x.Apply(docs[40:], []string{"c003"}, 5); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	b, err := bleve.Open(dir)
	if err != nil {
		t.Fatalf("bleve.Open: %v", err)
	}
	if n, err := b.DocCount(); err != nil || n != uint64(len(docs)-1) {
		t.Errorf("bleve DocCount = %d, %v; want %d", n, err, len(docs)-1)
	}
	for key, want := range map[string]string{string(keyGen): "5", string(keyVersion): strconv.Itoa(Version)} {
		if v, err := b.GetInternal([]byte(key)); err != nil || string(v) != want {
			t.Errorf("bleve GetInternal(%s) = %q, %v; want %q", key, v, err, want)
		}
	}
	m, err := NewMapping()
	if err != nil {
		t.Fatal(err)
	}
	wantM, _ := util.MarshalJSON(m)
	gotM, _ := util.MarshalJSON(b.Mapping())
	if string(wantM) != string(gotM) {
		t.Errorf("bleve reads the mapping as\n%s\nwant\n%s", gotM, wantM)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	x, err = OpenWith(dir, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	b, err = bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	compareSearches(t, x, b)
}

// TestOpenErrors checks which damaged or foreign folders open as
// [ErrCorrupt], and that a held lock gives [ErrLocked].
func TestOpenErrors(t *testing.T) {
	writeIndex := func(t *testing.T, dir string, version string) {
		t.Helper()
		x, err := Create(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.b.SetInternal(keyVersion, []byte(version)); err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name    string
		prepare func(t *testing.T, dir string)
		opts    OpenOptions
		want    error
		msg     string
	}{
		{"a file, not a folder", func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, []byte("not an index"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, OpenOptions{}, ErrCorrupt, "cannot open index, metadata missing"},
		{"no metadata", func(t *testing.T, dir string) {
			writeIndex(t, dir, strconv.Itoa(Version))
			if err := os.Remove(filepath.Join(dir, bleveMetaFile)); err != nil {
				t.Fatal(err)
			}
		}, OpenOptions{}, ErrCorrupt, "cannot open index, metadata missing"},
		{"corrupt metadata", func(t *testing.T, dir string) {
			writeIndex(t, dir, strconv.Itoa(Version))
			if err := os.WriteFile(filepath.Join(dir, bleveMetaFile), []byte("{"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, OpenOptions{}, ErrCorrupt, "cannot open index, metadata corrupt"},
		{"unknown index type", func(t *testing.T, dir string) {
			writeIndex(t, dir, strconv.Itoa(Version))
			if err := os.WriteFile(filepath.Join(dir, bleveMetaFile), []byte(`{"storage":"boltdb"}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}, OpenOptions{}, ErrCorrupt, "unknown index type"},
		{"previous version", func(t *testing.T, dir string) {
			writeIndex(t, dir, strconv.Itoa(Version-1))
		}, OpenOptions{}, ErrCorrupt, fmt.Sprintf("version %q", strconv.Itoa(Version-1))},
		{"missing, read-only", func(t *testing.T, dir string) {}, OpenOptions{ReadOnly: true}, ErrCorrupt, "does not exist"},
		{"locked", func(t *testing.T, dir string) {
			x, err := Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { x.Close() })
		}, OpenOptions{LockWait: 50 * time.Millisecond}, ErrLocked, "index is locked by another process"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "index")
			tt.prepare(t, dir)
			x, err := OpenWith(dir, tt.opts)
			if err == nil {
				x.Close()
			}
			if !errors.Is(err, tt.want) || !strings.Contains(fmt.Sprint(err), tt.msg) {
				t.Errorf("OpenWith: %v; want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

// TestClosedIndexFails checks that a closed index returns an error rather
// than touching the closed scorch index.
func TestClosedIndexFails(t *testing.T) {
	x, err := Create(filepath.Join(t.TempDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Count(); err == nil {
		t.Error("Count after Close: no error")
	}
	if _, err := x.Search(t.Context(), Search{Size: 1}); err == nil {
		t.Error("Search after Close: no error")
	}
	if err := x.Apply([]Doc{{ID: "a", Text: "x"}}, nil, 1); err == nil {
		t.Error("Apply after Close: no error")
	}
}

// TestNoAllField checks that documents carry no composite _all field
// (Version 5) and only the fields the mapping names.
func TestNoAllField(t *testing.T) {
	x := openTest(t)
	docs := compatDocs()[:10]
	if err := x.Apply(docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	parts := make([][]string, len(docs))
	for i := range parts {
		parts[i] = []string{"kyoto temple", "部署预算"}
		docs[i].ID += "p"
	}
	if err := x.ApplyParts(docs, parts, nil, 2); err != nil {
		t.Fatal(err)
	}
	adv, err := x.b.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fields, err := r.Fields()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(fields)
	want := []string{"_id", "ctx", "ns", "reply", "role", "session", "speaker", "tat", "tday", "text", "thour", "topic"}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}
