package postgres

import (
	"encoding/json"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/filter"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/internal/bench/synth"
	"github.com/huimemory/huimemory/internal/pgtest"
)

// synthDocs makes n chunks of the synthetic corpus, some with a context.
func synthDocs(seed uint64, n int, prefix string) []index.Doc {
	msgs := synth.Corpus(synth.Options{Seed: seed, Pairs: n})
	var docs []index.Doc
	for i := 0; i+1 < len(msgs); i += 2 {
		d := index.Doc{ID: fmt.Sprintf("%s%04d", prefix, i/2), Session: msgs[i].Session, Time: msgs[i].Time,
			Text: msgs[i].Text, Reply: msgs[i+1].Text, Roles: []string{"user", "assistant"}}
		if msgs[i+1].Role != core.RoleAssistant {
			d.Text += "\n" + msgs[i+1].Text
			d.Reply = ""
		}
		if k := len(docs); k > 0 && i%3 == 0 {
			d.Context = docs[k-1].Text
		}
		docs = append(docs, d)
	}
	return docs
}

// copySearches are searches over synthDocs: several boosts and sizes,
// windows, ids and a filter.
func copySearches(t *testing.T, docs []index.Doc) []Search {
	t.Helper()
	var queries []string
	for i := range 8 {
		queries = append(queries, fmt.Sprintf("%s and %s", synth.Word(40+i*11), synth.Word(300+i*17)),
			synth.ZhWord(30+i*7)+synth.ZhWord(200+i*13))
	}
	queries = append(queries, synth.Word(3), synth.Word(5000)+" "+synth.Word(5001)+" "+synth.Word(3))
	mid := docs[len(docs)/2].Time
	f, err := filter.Parse("session != '"+docs[1].Session+"'", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < len(docs); i += 7 {
		ids = append(ids, docs[i].ID)
	}
	var out []Search
	for _, b := range []struct{ reply, ctx float64 }{{0.3, 1}, {0, 0}, {2, 0}, {0, 0.5}} {
		for _, q := range queries {
			for _, size := range []int{5, 40} {
				out = append(out, Search{Text: q, Size: size, ReplyBoost: b.reply, ContextBoost: b.ctx})
			}
			out = append(out,
				Search{Text: q, Size: 30, ReplyBoost: b.reply, ContextBoost: b.ctx, Since: mid, NoSession: true},
				Search{Text: q, Size: 30, ReplyBoost: b.reply, ContextBoost: b.ctx, Before: mid, Filter: f},
				Search{Text: q, Size: 1000, ReplyBoost: b.reply, ContextBoost: b.ctx, IDs: ids})
		}
	}
	return out
}

// compareCopy checks that x's copy answers every search, IDF and
// Presence exactly as the SQL does: the same ids, order, sessions and
// scores to the bit.
func compareCopy(t *testing.T, stage string, x *EngineIndex, searches []Search, ids []string) {
	t.Helper()
	ctx := t.Context()
	if err := x.m.waitReady(ctx); err != nil {
		t.Fatalf("%s: loading the copy: %v", stage, err)
	}
	for _, s := range searches {
		want, err := x.lx.Search(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := x.m.search(ctx, s)
		if !ok {
			t.Fatalf("%s: the copy did not answer %q", stage, s.Text)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: %q (reply %g, ctx %g, size %d, ids %d) (-sql +copy):\n%s", stage, s.Text, s.ReplyBoost, s.ContextBoost, s.Size, len(s.IDs), diff)
		}
	}
	terms := []string{synth.Word(3), synth.Word(40), synth.ZhWord(30), "nosuchterm"}
	for i := range terms {
		terms[i] = x.Analyze(terms[i])[0]
	}
	sx := &EngineIndex{db: x.db, lx: x.lx, m: newLexMirror(x.db)}
	sx.m.close() // SQL only
	wf, wn, err := sx.IDF(ctx, terms)
	if err != nil {
		t.Fatal(err)
	}
	gf, gn, ok := x.m.idf(ctx, terms)
	if !ok || wn != gn || !cmp.Equal(wf, gf) {
		t.Errorf("%s: IDF from the copy %v (N %d, answered %v), from SQL %v (N %d)", stage, gf, gn, ok, wf, wn)
	}
	wp, err := sx.Presence(ctx, ids, terms)
	if err != nil {
		t.Fatal(err)
	}
	gp, ok := x.m.presence(ctx, ids, terms)
	if diff := cmp.Diff(wp, gp); !ok || diff != "" {
		t.Errorf("%s: Presence (answered %v) (-sql +copy):\n%s", stage, ok, diff)
	}
}

// TestCopyMatchesSQL checks the in-memory copy against the SQL search on
// a synthetic corpus in two namespaces: loaded, then following the log
// through replacements, deletions and a second namespace's writes made
// by another server, and after many deletions compact it.
func TestCopyMatchesSQL(t *testing.T) {
	dsn := pgtest.DSN(t)
	open := func() *DB {
		db, err := Open(t.Context(), Config{DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		return db
	}
	x, other := open().EngineIndex(), open().EngineIndex()
	defer x.Close()
	defer other.Close()
	docs := synthDocs(7, 1500, "d")
	if err := x.Apply(docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	searches := copySearches(t, docs)
	var ids []string
	for i := 0; i < len(docs); i += 50 {
		ids = append(ids, docs[i].ID)
	}
	ids = append(ids, "nosuch")
	compareCopy(t, "loaded", x, searches, ids)

	// Another server replaces a tenth, deletes a tenth and writes a
	// second namespace.
	var changed []index.Doc
	var deletes []string
	for i := 0; i < len(docs); i += 10 {
		d := docs[i]
		d.Text, d.Reply = docs[len(docs)-1-i].Text, ""
		changed = append(changed, d)
		deletes = append(deletes, docs[i+5].ID)
	}
	if err := other.Apply(changed, deletes, 2); err != nil {
		t.Fatal(err)
	}
	n1 := synthDocs(8, 300, "n")
	for i := range n1 {
		n1[i].NS = "n1"
	}
	if err := other.Apply(n1, nil, 3); err != nil {
		t.Fatal(err)
	}
	compareCopy(t, "after another server's writes", x, searches, ids)
	for i := range searches {
		searches[i].NS = "n1"
	}
	compareCopy(t, "second namespace", x, searches[:40], ids)
	for i := range searches {
		searches[i].NS = ""
	}

	// Deleting most chunks compacts the copy.
	left := len(docs) - len(deletes)
	deletes = deletes[:0]
	for i := range docs {
		if i%5 != 0 && i%10 != 5 {
			deletes = append(deletes, docs[i].ID)
		}
	}
	left -= len(deletes)
	if err := other.Apply(nil, deletes, 4); err != nil {
		t.Fatal(err)
	}
	compareCopy(t, "after deleting most", x, searches, ids)
	x.m.mu.RLock()
	c := x.m.nss[""]
	dead, live := c.dead, len(c.ord)
	x.m.mu.RUnlock()
	if dead != 0 || live != left {
		t.Errorf("after deleting most: %d removed documents kept, %d live; want 0 and %d", dead, live, left)
	}
}

// TestCopyLoadsAgainPastTheFloor checks that a copy left behind by a
// pruned log loads again, and answers with what the log no longer holds.
func TestCopyLoadsAgainPastTheFloor(t *testing.T) {
	db := open(t)
	x := db.EngineIndex()
	defer x.Close()
	docs := synthDocs(9, 200, "d")
	if err := x.Apply(docs[:100], nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := x.m.waitReady(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := x.Apply(docs[100:], nil, 2); err != nil {
		t.Fatal(err)
	}
	// Pruning as logChange does, every row at once.
	if _, err := db.pool.Exec(t.Context(), `WITH gone AS (DELETE FROM lex_log RETURNING seq)
		INSERT INTO meta (ns, key, value) SELECT '', $1, convert_to(max(seq)::text, 'UTF8') FROM gone
		ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value`, floorKey); err != nil {
		t.Fatal(err)
	}
	if _, ok := x.m.search(t.Context(), Search{Text: synth.Word(3), Size: 5}); ok {
		t.Fatal("a copy older than the log's floor answered")
	}
	compareCopy(t, "loaded again", x, copySearches(t, docs), []string{docs[150].ID})
}

// TestNoLexicalCopy checks that storage.postgres.no_lexical_copy leaves
// every search to the SQL.
func TestNoLexicalCopy(t *testing.T) {
	db, err := Open(t.Context(), Config{DSN: pgtest.DSN(t), NoLexicalCopy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	x := db.EngineIndex()
	defer x.Close()
	docs := synthDocs(3, 50, "d")
	if err := x.Apply(docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := x.Warm(t.Context()); err != nil {
		t.Fatalf("Warm with the copy off: %v", err)
	}
	s := Search{Text: synth.Word(3), Size: 5}
	if _, ok := x.m.search(t.Context(), s); ok {
		t.Error("the copy answered with no_lexical_copy set")
	}
	want, err := x.lx.Search(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := x.Search(t.Context(), s)
	if err != nil || !cmp.Equal(got, want) || len(got) == 0 {
		t.Errorf("Search = %v, %v; want the SQL's %v", got, err, want)
	}
}

func TestParseTermMap(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]int64
		err  bool
	}{
		{in: `{}`, want: map[string]int64{}},
		{in: ` { } `, want: map[string]int64{}},
		{in: `{"a": 1}`, want: map[string]int64{"a": 1}},
		{in: `{"a": 1, "北京": 16781313, "x\"y\\z": 4096}`, want: map[string]int64{"a": 1, "北京": 16781313, `x"y\z`: 4096}},
		{in: `{"\u0001b": 2}`, want: map[string]int64{"\x01b": 2}},
		{in: ``, err: true},
		{in: `{"a" 1}`, err: true},
		{in: `{"a": }`, err: true},
		{in: `{"a": 1,}`, err: true},
		{in: `{"a": 1`, err: true},
		{in: `{"a`, err: true},
		{in: `{"a": -1}`, err: true},
	} {
		got := map[string]int64{}
		err := parseTermMap(tc.in, func(term string, v int64) { got[term] = v })
		if tc.err {
			if err == nil {
				t.Errorf("parseTermMap(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("parseTermMap(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// FuzzParseTermMap checks parseTermMap against encoding/json: a map that
// JSON writes is read back the same, and where both accept an input they
// agree (JSON accepts more: signs, exponents, leading zeros, which
// PostgreSQL never writes in a term map).
func FuzzParseTermMap(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": 1, "b": 2}`, `{"x\"\\": 4095}`, `{"\u00e9": 7}`} {
		f.Add(s, "北京", uint32(16781313))
	}
	f.Fuzz(func(t *testing.T, s, term string, v uint32) {
		read := func(s string) (map[string]int64, error) {
			got := map[string]int64{}
			err := parseTermMap(s, func(term string, v int64) { got[term] = v })
			return got, err
		}
		got, err := read(s)
		want := map[string]int64{}
		if err == nil && json.Unmarshal([]byte(s), &want) == nil && !maps.Equal(got, want) {
			t.Fatalf("parseTermMap(%q) = %v, JSON reads %v", s, got, want)
		}
		b, err := json.Marshal(map[string]int64{term: int64(v), "z" + term: 1})
		if err != nil {
			t.Fatal(err)
		}
		want = map[string]int64{}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if got, err := read(string(b)); err != nil || !maps.Equal(got, want) {
			t.Fatalf("parseTermMap(%s) = %v, %v; want %v", b, got, err, want)
		}
	})
}
