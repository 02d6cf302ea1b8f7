package index

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/filter"
)

func TestAnalyzerMixesChineseAndEnglish(t *testing.T) {
	m, err := NewMapping()
	if err != nil {
		t.Fatal(err)
	}
	a := m.AnalyzerNamed(AnalyzerName)
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"AI 意识", []string{"ai", "意", "意识", "识"}},
		{"我们讨论了本地模型部署", []string{"我", "我们", "们", "们讨", "讨", "讨论", "论", "论了", "了", "了本", "本", "本地", "地", "地模", "模", "模型", "型", "型部", "部", "部署", "署"}},
		{"那道鱼", []string{"那", "那道", "道", "道鱼", "鱼"}},
		{"鱼", []string{"鱼"}},
		{"The deployments were running", []string{"deploy", "run"}},
		{"Caroline's ＡＩ talks", []string{"carolin", "ai", "talk"}},
		// Typographic apostrophes read as ASCII's: "I’ve" is a stop word,
		// "Caroline’s" a possessive, "o’clock" the same term as "o'clock".
		{"I’ve been managing Caroline’s budget", []string{"manag", "carolin", "budget"}},
		{"I've been managing Caroline's budget", []string{"manag", "carolin", "budget"}},
		{"don’t o’clock o‘clock rock ʼn roll", []string{"o'clock", "o'clock", "rock", "'n", "roll"}},
		{"don't o'clock", []string{"o'clock"}},
		{"it＇s fine", []string{"fine"}},
	} {
		var got []string
		for _, tok := range a.Analyze([]byte(tt.in)) {
			got = append(got, string(tok.Term))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Analyze(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func openTest(t *testing.T) *Index {
	t.Helper()
	x, err := Open(filepath.Join(t.TempDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func TestFiltersDoNotChangeScores(t *testing.T) {
	x := openTest(t)
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	docs := []Doc{
		{ID: "aaaaaa", Session: "s1", Time: base, Text: "deploy the local model with ollama", Roles: []string{"user"}},
		{ID: "bbbbbb", Session: "s1", Time: base.Add(24 * time.Hour), Text: "the model deploy failed: out of memory", Roles: []string{"assistant"}},
		{ID: "cccccc", Session: "s2", Time: base.Add(48 * time.Hour), Text: "a trip to kyoto", Roles: []string{"user"}},
		{ID: "dddddd", NS: "bob", Session: "s1", Time: base, Text: "deploy deploy deploy model", Roles: []string{"user"}},
	}
	if err := x.Apply(docs, nil, 7); err != nil {
		t.Fatal(err)
	}
	if g, _ := x.Gen(); g != 7 {
		t.Errorf("Gen = %d, want 7", g)
	}
	plain, err := x.Search(t.Context(), Search{Text: "deploy model", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if ids := matchIDs(plain); !slices.Equal(ids, []string{"aaaaaa", "bbbbbb"}) && !slices.Equal(ids, []string{"bbbbbb", "aaaaaa"}) {
		t.Fatalf("plain search = %v, want the default namespace's two deploy chunks", ids)
	}
	scores := map[string]float64{}
	for _, m := range plain {
		scores[m.ID] = m.Score
	}
	role, err := filter.Parse(`role = "assistant"`, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Search{
		{Text: "deploy model", Size: 10, Since: base.Add(time.Hour)},
		{Text: "deploy model", Size: 10, Before: base.Add(time.Hour)},
		{Text: "deploy model", Size: 10, IDs: []string{"bbbbbb"}},
		{Text: "deploy model", Size: 10, Filter: role},
	} {
		got, err := x.Search(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("Search(%+v) = %v, want one match", s, got)
		}
		if got[0].Score != scores[got[0].ID] {
			t.Errorf("Search(%+v): %s scores %v, but %v without the filter", s, got[0].ID, got[0].Score, scores[got[0].ID])
		}
	}
	bob, _ := x.Search(t.Context(), Search{Text: "deploy", NS: "bob", Size: 10})
	if ids := matchIDs(bob); !slices.Equal(ids, []string{"dddddd"}) {
		t.Errorf("bob's search = %v", ids)
	}
	if err := x.Apply(nil, []string{"aaaaaa"}, 8); err != nil {
		t.Fatal(err)
	}
	if n, _ := x.Count(); n != 3 {
		t.Errorf("Count after delete = %d, want 3", n)
	}
}

func matchIDs(ms []Match) []string {
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids
}

// TestPresence checks where each chunk holds each query term: in its own
// text or reply, only in its neighbours' text, or nowhere, whatever the
// order of the ids asked for.
func TestPresence(t *testing.T) {
	x := openTest(t)
	base := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	docs := []Doc{
		{ID: "aaaaaa", Time: base, Text: "deploy the local model", Context: "kyoto trip budget"},
		{ID: "bbbbbb", Time: base, Text: "which model?", Reply: "use ollama for the deploy", Context: "deploy the local model"},
		{ID: "cccccc", Time: base, Text: "a trip to kyoto", Context: "use ollama"},
	}
	if err := x.Apply(docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	terms := x.Analyze("deploy ollama kyoto zebra")
	if diff := cmp.Diff([]string{"deploy", "ollama", "kyoto", "zebra"}, terms); diff != "" {
		t.Fatalf("Analyze (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		ids  []string
		want [][]uint8
	}{
		{[]string{"aaaaaa", "bbbbbb", "cccccc"}, [][]uint8{
			{InChunk, Absent, InContext, Absent},
			{InChunk, InChunk, Absent, Absent},
			{Absent, InContext, InChunk, Absent},
		}},
		{[]string{"cccccc", "nosuch", "aaaaaa"}, [][]uint8{
			{Absent, InContext, InChunk, Absent},
			{Absent, Absent, Absent, Absent},
			{InChunk, Absent, InContext, Absent},
		}},
		{nil, [][]uint8{}},
	} {
		got, err := x.Presence(t.Context(), tt.ids, terms)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Presence(%v) (-want +got):\n%s", tt.ids, diff)
		}
	}
}
