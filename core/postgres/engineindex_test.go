package postgres

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/filter"
	"github.com/huimemory/huimemory/core/index"
)

// engineDocs are chunks of three namespaces with every keyword field
// set in some and empty in others; engineParts gives some of them their
// context as neighbours' parts instead of Doc.Context.
var (
	engineBase = time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)
	engineDocs = []index.Doc{
		{ID: "a1", Session: "s1", Time: engineBase, Text: "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
			Context: "Melanie: How are you doing? Caroline: I painted a sunset.", Roles: []string{"user"}, Speakers: []string{"Caroline"}, Topic: "support"},
		{ID: "a2", Session: "s1", Time: engineBase.Add(2 * time.Hour), Text: "Melanie: I painted a lake sunrise last year, painting is my therapy.",
			Roles: []string{"user"}, Speakers: []string{"Melanie"}, Topic: "painting", Types: []string{"fact"}},
		{ID: "a3", Session: "s2", Time: engineBase.Add(26 * time.Hour), Text: "user: 我们明天去北京开会，讨论预算。",
			Reply: "assistant: 好的，我会准备北京会议的预算表格。", Roles: []string{"user", "assistant"}, Speakers: []string{"小明", "助手"}, Topic: "travel", Types: []string{"decision"}},
		{ID: "a4", Session: "s2", Time: engineBase.Add(27 * time.Hour), Text: "user: what did we decide about the budget for Beijing?",
			Reply: "assistant: You decided to cut the travel budget by ten percent and keep the meeting in Beijing.",
			Roles: []string{"user", "assistant"}, Speakers: []string{"Bob"}, Topic: "travel", Types: []string{"decision", "fact"}},
		{ID: "a5", Session: "s3", Time: engineBase.Add(50 * time.Hour).In(time.FixedZone("CST", 8*3600)), Text: "user: dogs dogs dogs running in the park",
			Reply: "assistant: Running dogs are happy dogs.", Roles: []string{"user", "assistant"}},
		{ID: "A6", Session: "", Time: engineBase.Add(51 * time.Hour), Text: "system: the budget meeting moved to Shanghai 上海",
			Roles: []string{""}, Speakers: []string{""}},
		{ID: "b1", NS: "n1", Session: "s1", Time: engineBase.Add(time.Hour), Text: "user: 周末去爬山，带上狗。",
			Reply: "assistant: 爬山的时候记得给狗带水。", Roles: []string{"user", "assistant"}, Speakers: []string{"小明"}, Topic: "hiking"},
		{ID: "b2", NS: "n1", Session: "s1", Time: engineBase.Add(3 * time.Hour), Text: "user: the dog loved the mountain, budget was fine",
			Roles: []string{"user"}, Speakers: []string{"Bob"}, Topic: "hiking", Types: []string{"fact"}},
		{ID: "b3", NS: "n1", Session: "s9", Time: engineBase.Add(30 * time.Hour), Text: "Bob: Beijing budget numbers for the meeting",
			Reply: "assistant: 北京的预算已经确认。", Roles: []string{"user", "assistant"}, Speakers: []string{"Bob"}, Types: []string{"decision"}},
		{ID: "c1", NS: "n2", Session: "x", Time: engineBase.Add(5 * time.Hour), Text: "budget budget dogs Beijing park",
			Roles: []string{"user"}, Speakers: []string{"Eve"}, Topic: "noise"},
		{ID: "c2", NS: "n2", Session: "x", Time: engineBase.Add(6 * time.Hour), Text: "Eve: running a marathon in the park",
			Roles: []string{"user"}, Speakers: []string{"Eve"}},
	}
	engineParts = [][]string{
		nil,
		{"Caroline: I went to the LGBTQ support group yesterday and it was so powerful.", "Caroline: I painted a sunset."},
		{"user: what did we decide about the budget for Beijing?"},
		{"user: 我们明天去北京开会，讨论预算。", "assistant: 好的，我会准备北京会议的预算表格。", "user: dogs dogs dogs running in the park"},
		{}, // no neighbours: an empty ctx field
		nil,
		{"user: the dog loved the mountain, budget was fine"},
		{"user: 周末去爬山，带上狗。", "assistant: 爬山的时候记得给狗带水。", "Bob: Beijing budget numbers for the meeting"},
		nil,
		{"Eve: running a marathon in the park"},
		{"budget budget dogs Beijing park"},
	}
)

// engineSearch is one search of the parity table; filter is parsed with
// filter.Parse in UTC+8.
type engineSearch struct {
	name   string
	s      index.Search
	filter string
}

var engineSearches = []engineSearch{
	{name: "text", s: index.Search{Text: "budget Beijing", ContextBoost: 1, ReplyBoost: 0.3}},
	{name: "text no boosts", s: index.Search{Text: "budget"}},
	{name: "text ctx only", s: index.Search{Text: "support group sunset", ContextBoost: 0.5}},
	{name: "chinese", s: index.Search{Text: "北京预算", ContextBoost: 1, ReplyBoost: 0.3}},
	{name: "chinese n1", s: index.Search{NS: "n1", Text: "爬山带狗", ContextBoost: 1, ReplyBoost: 0.3}},
	{name: "repeated terms", s: index.Search{Text: "dogs dogs park", ContextBoost: 1, ReplyBoost: 0.3}},
	{name: "stop words only", s: index.Search{Text: "the", ContextBoost: 1, ReplyBoost: 0.3}},
	{name: "unknown word", s: index.Search{Text: "unknownword", ContextBoost: 1}},
	{name: "size 2", s: index.Search{Text: "budget dogs", ContextBoost: 1, ReplyBoost: 0.3, Size: 2}},
	{name: "no session", s: index.Search{Text: "budget", ContextBoost: 1, NoSession: true}},
	{name: "other namespace", s: index.Search{NS: "n2", Text: "budget park", ContextBoost: 1, ReplyBoost: 0.3}},
	{name: "missing namespace", s: index.Search{NS: "nosuch", Text: "budget"}},
	{name: "empty text", s: index.Search{ContextBoost: 1}},
	{name: "empty text n1 no session", s: index.Search{NS: "n1", NoSession: true}},
	{name: "empty text size 3", s: index.Search{Size: 3}},
	{name: "window", s: index.Search{Text: "budget", ContextBoost: 1, ReplyBoost: 0.3,
		Since: engineBase.Add(2 * time.Hour), Before: engineBase.Add(50 * time.Hour)}},
	{name: "since only, empty text", s: index.Search{Since: engineBase.Add(26 * time.Hour)}},
	{name: "before only", s: index.Search{Text: "budget dogs", ContextBoost: 1, Before: engineBase.Add(27 * time.Hour)}},
	{name: "ids", s: index.Search{Text: "budget", ContextBoost: 1, IDs: []string{"a4", "a5", "b1", "nosuch"}}},
	{name: "ids empty text", s: index.Search{IDs: []string{"A6", "a2", "b1"}}},
	{name: "session", s: index.Search{Text: "budget", ContextBoost: 1, ReplyBoost: 0.3}, filter: "session = 's2'"},
	{name: "empty session", s: index.Search{}, filter: "session = ''"},
	{name: "not session", s: index.Search{Text: "budget dogs", ContextBoost: 1}, filter: "session != 's2'"},
	{name: "role", s: index.Search{Text: "budget", ReplyBoost: 0.3}, filter: "role = 'assistant'"},
	{name: "role folded", s: index.Search{}, filter: "ROLE = 'USER'"},
	{name: "empty role", s: index.Search{}, filter: "role = ''"},
	{name: "speaker", s: index.Search{Text: "budget Beijing", ContextBoost: 1}, filter: "speaker = 'Bob'"},
	{name: "chinese speaker", s: index.Search{NS: "n1"}, filter: "speaker = '小明'"},
	{name: "speaker is case sensitive", s: index.Search{}, filter: "speaker = 'bob'"},
	{name: "topic", s: index.Search{Text: "budget 北京", ContextBoost: 1}, filter: "topic = 'travel'"},
	{name: "empty topic", s: index.Search{}, filter: "topic = ''"},
	{name: "not empty topic", s: index.Search{}, filter: "topic != ''"},
	{name: "type", s: index.Search{Text: "budget", ContextBoost: 1}, filter: "type = 'decision'"},
	{name: "not type", s: index.Search{NS: "n1", Text: "budget", ContextBoost: 1}, filter: "NOT type = 'decision'"},
	{name: "id", s: index.Search{Text: "budget"}, filter: "id = 'a4' OR id = 'A6'"},
	{name: "namespace own", s: index.Search{NS: "n1", Text: "budget"}, filter: "namespace = 'n1'"},
	{name: "namespace other", s: index.Search{Text: "budget"}, filter: "namespace = 'n1'"},
	{name: "namespace default", s: index.Search{}, filter: "namespace = ''"},
	{name: "namespace tilde", s: index.Search{Text: "budget"}, filter: "namespace = '~'"},
	{name: "timestamp day", s: index.Search{}, filter: "timestamp = '2026-03-06'"},
	{name: "timestamp range", s: index.Search{Text: "budget dogs", ContextBoost: 1, ReplyBoost: 0.3},
		filter: "timestamp >= '2026-03-05 18:00' AND timestamp < '2026-03-07T12:00:00Z'"},
	{name: "timestamp le gt", s: index.Search{NS: "n1"}, filter: "timestamp <= '2026-03-05' OR timestamp > '2026-03-06'"},
	{name: "not timestamp", s: index.Search{Text: "budget", ContextBoost: 1}, filter: "NOT timestamp < '2026-03-06'"},
	{name: "and or not", s: index.Search{Text: "budget Beijing dogs", ContextBoost: 1, ReplyBoost: 0.3},
		filter: "(role = 'user' AND NOT speaker = 'Bob') OR type = 'fact'"},
	{name: "not or", s: index.Search{}, filter: "NOT (timestamp < '2026-03-06' OR topic = 'travel')"},
	{name: "filter and window and ids", s: index.Search{Text: "budget", ContextBoost: 1, ReplyBoost: 0.3,
		Since: engineBase.Add(time.Hour), IDs: []string{"a2", "a3", "a4", "A6"}}, filter: "type = 'fact' OR session = ''"},
	{name: "filter matching nothing", s: index.Search{Text: "budget"}, filter: "session = 'nosuch' AND role = 'user'"},
}

var engineTerms = []string{"budget", "beij", "dog", "北京", "预算", "park", "sunset", "unknownterm", "budget"}

// engineIxs are the embedded counterparts of one EngineIndex: all holds
// every document (the home's index, for IDF, Presence, Count and Gen);
// byNS holds each namespace's documents alone, for scores, since BM25
// statistics are per namespace in PostgreSQL and per index in bleve.
type engineIxs struct {
	all  *index.Index
	byNS map[string]*index.Index
}

func newEngineIxs(t *testing.T) *engineIxs {
	t.Helper()
	dir := t.TempDir()
	x := &engineIxs{byNS: map[string]*index.Index{}}
	var err error
	if x.all, err = index.Create(filepath.Join(dir, "all")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.all.Close() })
	for _, ns := range []string{"", "n1", "n2", "nosuch"} {
		ix, err := index.Create(filepath.Join(dir, "ns-"+ns))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		x.byNS[ns] = ix
	}
	return x
}

// applyParts applies docs to every embedded index that should hold them.
func (x *engineIxs) applyParts(t *testing.T, docs []index.Doc, parts [][]string, deletes []string, gen uint64) {
	t.Helper()
	if err := x.all.ApplyParts(docs, parts, deletes, gen); err != nil {
		t.Fatal(err)
	}
	for ns, ix := range x.byNS {
		var ds []index.Doc
		var ps [][]string
		for i, d := range docs {
			if d.NS == ns {
				ds = append(ds, d)
				if i < len(parts) {
					ps = append(ps, parts[i])
				} else {
					ps = append(ps, nil)
				}
			}
		}
		if err := ix.ApplyParts(ds, ps, deletes, gen); err != nil {
			t.Fatal(err)
		}
	}
}

var approx = cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) })

// compareEngine runs every search, Matching, IDF, Presence, Count and
// Gen on both and reports the differences. With fromCopy, it waits for
// got's in-memory copy and has the copy answer every search with text,
// IDF and Presence (failing where it cannot); without, got's copy must be
// closed, and the SQL answers.
func compareEngine(t *testing.T, stage string, want *engineIxs, got *EngineIndex, fromCopy bool) {
	t.Helper()
	ctx := t.Context()
	if fromCopy {
		if err := got.m.waitReady(ctx); err != nil {
			t.Fatalf("%s: loading the copy: %v", stage, err)
		}
	}
	search := func(s index.Search) ([]index.Match, error) {
		if !fromCopy || s.Text == "" {
			return got.Search(ctx, s)
		}
		ms, ok := got.m.search(ctx, s)
		if !ok {
			t.Fatalf("%s: the copy did not answer %+v", stage, s)
		}
		return ms, nil
	}
	idf := got.IDF
	presence := got.Presence
	if fromCopy {
		idf = func(ctx context.Context, terms []string) ([]float64, uint64, error) {
			out, n, ok := got.m.idf(ctx, terms)
			if !ok {
				t.Fatalf("%s: the copy did not answer IDF", stage)
			}
			return out, n, nil
		}
		presence = func(ctx context.Context, ids, terms []string) ([][]uint8, error) {
			out, ok := got.m.presence(ctx, ids, terms)
			if !ok {
				t.Fatalf("%s: the copy did not answer Presence", stage)
			}
			return out, nil
		}
	}
	loc := time.FixedZone("UTC+8", 8*3600)
	for _, c := range engineSearches {
		s := c.s
		if s.Size == 0 {
			s.Size = 20
		}
		if c.filter != "" {
			e, err := filter.Parse(c.filter, loc)
			if err != nil {
				t.Fatalf("%s: parsing %q: %v", c.name, c.filter, err)
			}
			s.Filter = e
		}
		wm, err := want.byNS[s.NS].Search(ctx, s)
		if err != nil {
			t.Fatalf("%s: %s: bleve: %v", stage, c.name, err)
		}
		gm, err := search(s)
		if err != nil {
			t.Fatalf("%s: %s: postgres: %v", stage, c.name, err)
		}
		if diff := cmp.Diff(wm, gm, approx); diff != "" {
			t.Errorf("%s: Search %s (-bleve +postgres):\n%s", stage, c.name, diff)
		}
		wi, err := want.all.Matching(ctx, s)
		if err != nil {
			t.Fatalf("%s: %s: bleve Matching: %v", stage, c.name, err)
		}
		gi, err := got.Matching(ctx, s)
		if err != nil {
			t.Fatalf("%s: %s: postgres Matching: %v", stage, c.name, err)
		}
		if diff := cmp.Diff(wi, gi); diff != "" {
			t.Errorf("%s: Matching %s (-bleve +postgres):\n%s", stage, c.name, diff)
		}
	}

	wf, wn, err := want.all.IDF(ctx, engineTerms)
	if err != nil {
		t.Fatal(err)
	}
	gf, gn, err := idf(ctx, engineTerms)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wf, gf, approx); diff != "" || wn != gn {
		t.Errorf("%s: IDF: N = %d (bleve), %d (postgres); (-bleve +postgres):\n%s", stage, wn, gn, diff)
	}

	var ids []string
	for _, d := range engineDocs {
		ids = append(ids, d.ID)
	}
	ids = append(ids, "nosuch", "a3")
	wp, err := want.all.Presence(ctx, ids, engineTerms)
	if err != nil {
		t.Fatal(err)
	}
	gp, err := presence(ctx, ids, engineTerms)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wp, gp); diff != "" {
		t.Errorf("%s: Presence (-bleve +postgres):\n%s", stage, diff)
	}

	for _, f := range []struct {
		name      string
		want, got func() (uint64, error)
	}{{"Count", want.all.Count, got.Count}, {"Gen", want.all.Gen, got.Gen}} {
		w, err := f.want()
		if err != nil {
			t.Fatal(err)
		}
		g, err := f.got()
		if err != nil {
			t.Fatal(err)
		}
		if w != g {
			t.Errorf("%s: %s = %d, bleve says %d", stage, f.name, g, w)
		}
	}
}

// TestEngineIndexMatchesBleve indexes the same documents into bleve and
// into an EngineIndex, then compares every search, Matching, IDF,
// Presence, Count and Gen: after indexing, after replacing and deleting
// documents, and after a reset and a fresh fill; once answered by the SQL
// and once by the in-memory copy, which follows the changes through the
// log and loads again after the reset.
func TestEngineIndexMatchesBleve(t *testing.T) {
	for _, fromCopy := range []bool{false, true} {
		t.Run(map[bool]string{false: "sql", true: "copy"}[fromCopy], func(t *testing.T) {
			testEngineIndexMatchesBleve(t, fromCopy)
		})
	}
}

func testEngineIndexMatchesBleve(t *testing.T, fromCopy bool) {
	db := open(t)
	got := db.EngineIndex()
	if !fromCopy {
		got.m.close()
	}
	defer got.Close()
	want := newEngineIxs(t)

	// Two batches, as the engine indexes in batches; the second replaces
	// a document of the first.
	first, rest := engineDocs[:4], engineDocs[4:]
	want.applyParts(t, first, engineParts[:4], nil, 1)
	if err := got.ApplyParts(first, engineParts[:4], nil, 1); err != nil {
		t.Fatal(err)
	}
	want.applyParts(t, rest, engineParts[4:], nil, 2)
	if err := got.ApplyParts(rest, engineParts[4:], nil, 2); err != nil {
		t.Fatal(err)
	}
	compareEngine(t, "indexed", want, got, fromCopy)

	// Replace a2 (with its context from Doc.Context this time), delete
	// chunks of two namespaces and an unknown id, and add one; a doc also
	// in deletes is deleted, and of two docs with one id the last wins.
	changed := engineDocs[1]
	changed.Text = "Melanie: the budget for painting classes in Beijing"
	changed.Context = "Caroline: 北京 budget"
	added := index.Doc{ID: "b4", NS: "n1", Session: "s9", Time: engineBase.Add(31 * time.Hour), Text: "Bob: more budget dogs", Roles: []string{"user"}}
	dropped := index.Doc{ID: "a9", Session: "s1", Time: engineBase, Text: "never indexed budget"}
	docs := []index.Doc{added, changed, dropped, added}
	docs[3].Text = "Bob: more budget dogs than before"
	deletes := []string{"a3", "b2", "nosuch", "a9"}
	want.applyParts(t, docs, nil, deletes, 7)
	if err := got.Apply(docs, deletes, 7); err != nil {
		t.Fatal(err)
	}
	compareEngine(t, "updated", want, got, fromCopy)

	// Only a generation.
	want.applyParts(t, nil, nil, nil, 8)
	if err := got.Apply(nil, nil, 8); err != nil {
		t.Fatal(err)
	}
	compareEngine(t, "generation", want, got, fromCopy)

	if err := got.Reset(); err != nil {
		t.Fatal(err)
	}
	fresh := newEngineIxs(t)
	fresh.applyParts(t, nil, nil, nil, 0)
	compareEngine(t, "reset", fresh, got, fromCopy)
	for _, ns := range []string{"", "n1", "n2"} {
		st, err := db.Lexical().Stats(t.Context(), ns)
		if err != nil {
			t.Fatal(err)
		}
		if st != (Stats{}) {
			t.Errorf("statistics of %q after Reset: %+v", ns, st)
		}
	}

	fresh.applyParts(t, engineDocs, engineParts, nil, 3)
	if err := got.ApplyParts(engineDocs, engineParts, nil, 3); err != nil {
		t.Fatal(err)
	}
	compareEngine(t, "refilled", fresh, got, fromCopy)
}

// TestEngineIndexStatisticsAfterDeletes checks that deleting across
// namespaces leaves the statistics of indexing what is left from scratch.
func TestEngineIndexStatisticsAfterDeletes(t *testing.T) {
	ctx := t.Context()
	a, b := open(t), open(t)
	x, y := a.EngineIndex(), b.EngineIndex()
	if err := x.ApplyParts(engineDocs, engineParts, nil, 1); err != nil {
		t.Fatal(err)
	}
	deletes := []string{"a1", "b3", "c2", "nosuch"}
	if err := x.Apply(nil, deletes, 2); err != nil {
		t.Fatal(err)
	}
	var docs []index.Doc
	var parts [][]string
	for i, d := range engineDocs {
		if !slices.Contains(deletes, d.ID) {
			docs, parts = append(docs, d), append(parts, engineParts[i])
		}
	}
	if err := y.ApplyParts(docs, parts, nil, 2); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"", "n1", "n2"} {
		gs, err := a.Lexical().Stats(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := b.Lexical().Stats(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ws, gs); diff != "" {
			t.Errorf("statistics of %q (-fresh +after deletes):\n%s", ns, diff)
		}
	}
	if n, err := x.Count(); err != nil || n != uint64(len(docs)) {
		t.Errorf("Count = %d, %v; want %d", n, err, len(docs))
	}
}

// evalRecord is a document as filter.Eval sees it; an empty topic is no
// value, as the index does not index it.
type evalRecord struct{ d *index.Doc }

func (r evalRecord) Time() time.Time { return r.d.Time }

func (r evalRecord) Values(field string) []string {
	switch field {
	case "session":
		return []string{r.d.Session}
	case "id":
		return []string{r.d.ID}
	case "namespace":
		return []string{r.d.NS}
	case "topic":
		if r.d.Topic == "" {
			return nil
		}
		return []string{r.d.Topic}
	case "role":
		return r.d.Roles
	case "speaker":
		return r.d.Speakers
	case "type":
		return r.d.Types
	}
	return nil
}

// TestFilterMatchesEval checks the SQL translation of filters against
// filter.Eval, on parsed expressions and on hand-built trees with the
// operators the parser never produces (!= on a string field, < on one).
func TestFilterMatchesEval(t *testing.T) {
	db := open(t)
	x := db.EngineIndex()
	if err := x.ApplyParts(engineDocs, engineParts, nil, 1); err != nil {
		t.Fatal(err)
	}
	loc := time.FixedZone("UTC+8", 8*3600)
	var exprs []filter.Expr
	for _, c := range engineSearches {
		if c.filter == "" || slices.Contains([]string{"namespace tilde"}, c.name) {
			continue
		}
		e, err := filter.Parse(c.filter, loc)
		if err != nil {
			t.Fatal(err)
		}
		exprs = append(exprs, e)
	}
	day := time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC)
	exprs = append(exprs,
		&filter.Compare{Field: "speaker", Op: filter.Ne, Value: "Bob"},
		&filter.Compare{Field: "type", Op: filter.Ne, Value: "fact"},
		&filter.Compare{Field: "topic", Op: filter.Ne, Value: ""},
		&filter.Compare{Field: "session", Op: filter.Lt, Value: "s2"},
		&filter.Compare{Field: "timestamp", Op: filter.Ne, Start: day, End: day.Add(24 * time.Hour)},
		&filter.Or{L: &filter.Compare{Field: "role", Op: filter.Ne, Value: "user"}, R: &filter.Not{X: &filter.Compare{Field: "id", Op: filter.Eq, Value: "b1"}}},
	)
	for _, e := range exprs {
		for _, ns := range []string{"", "n1", "n2"} {
			want := []string{}
			for i := range engineDocs {
				if d := &engineDocs[i]; d.NS == ns && filter.Eval(e, evalRecord{d}) {
					want = append(want, d.ID)
				}
			}
			slices.Sort(want)
			got, err := x.Matching(t.Context(), index.Search{NS: ns, Filter: e})
			if err != nil {
				t.Fatalf("%s: %v", e, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s in %q (-Eval +postgres):\n%s", e, ns, diff)
			}
		}
	}
}

// TestEngineIndexStale: the first documents of a new database record the
// analyzer's version; rows without one (an older build's) or with
// another are stale until a Reset.
func TestEngineIndexStale(t *testing.T) {
	ctx := t.Context()
	db := open(t)
	x := db.EngineIndex()
	stale := func() string {
		t.Helper()
		why, err := x.Stale(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return why
	}
	if why := stale(); why != "" {
		t.Errorf("a new database is stale: %s", why)
	}
	if err := x.ApplyParts(engineDocs, engineParts, nil, 1); err != nil {
		t.Fatal(err)
	}
	if why := stale(); why != "" {
		t.Errorf("after the first documents: stale: %s", why)
	}
	for _, c := range []struct {
		name, sql, want string
	}{
		{"no version", `DELETE FROM meta WHERE ns = '' AND key = 'lex_version'`, "older than version"},
		{"another version", `UPDATE meta SET value = '7' WHERE ns = '' AND key = 'lex_version'`, "analyzer version 7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := x.Reset(); err != nil {
				t.Fatal(err)
			}
			if err := x.ApplyParts(engineDocs, engineParts, nil, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Pool().Exec(ctx, c.sql); err != nil {
				t.Fatal(err)
			}
			// More documents do not make old rows current.
			if err := x.Apply(engineDocs[:1], nil, 2); err != nil {
				t.Fatal(err)
			}
			if why := stale(); !strings.Contains(why, c.want) {
				t.Errorf("Stale = %q, want it to say %q", why, c.want)
			}
			if err := x.Reset(); err != nil {
				t.Fatal(err)
			}
			if why := stale(); why != "" {
				t.Errorf("after Reset: stale: %s", why)
			}
		})
	}
}
