package postgres

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/index"
)

var lexDocs = []index.Doc{
	{ID: "aaaaaa", Session: "s1", Text: "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.", Reply: "", Context: "Melanie: How are you doing? Caroline: I painted a sunset."},
	{ID: "bbbbbb", Session: "s1", Text: "Melanie: I painted a lake sunrise last year, painting is my therapy.", Context: "Caroline: I went to the support group."},
	{ID: "cccccc", Session: "s2", Text: "user: 我们明天去北京开会，讨论预算。", Reply: "assistant: 好的，我会准备北京会议的预算表格。", Context: ""},
	{ID: "dddddd", Session: "s2", Text: "user: what did we decide about the budget for Beijing?", Reply: "assistant: You decided to cut the travel budget by ten percent and keep the meeting in Beijing.", Context: "user: 我们明天去北京开会"},
	{ID: "eeeeee", Session: "s3", Text: "user: dogs dogs dogs running in the park", Reply: "assistant: Running dogs are happy dogs.", Context: "user: the budget"},
}

func TestAnalyzeMatchesEmbeddedIndex(t *testing.T) {
	ix, err := index.Create(filepath.Join(t.TempDir(), "ix"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, text := range []string{"Running dogs aren't Caroline's", "我们明天去北京开会", "the budget, THE BUDGET!", ""} {
		got, err := Analyze(text)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ix.Analyze(text), got); diff != "" {
			t.Errorf("Analyze(%q) (-index +postgres):\n%s", text, diff)
		}
	}
}

func TestDocLiterals(t *testing.T) {
	for _, tc := range []struct {
		fs      [3]field
		tsv, tf string
	}{
		{
			fs: [3]field{
				{tf: map[string]int{"dog": 3, "it's": 1}},
				{tf: map[string]int{"dog": 1}},
				{tf: map[string]int{"dog": 3, `a\b`: 2}},
			},
			tsv: `'a\\b':11C 'dog':13A,6B,15C 'it''s':5A`,
			tf:  `{"a\\b":33554432,"dog":50335747,"it's":1}`,
		},
		{
			fs:  [3]field{{tf: map[string]int{"猫": 1, "a\"b": 2, "\x01": 1}}, {}, {}},
			tsv: "'\x01':5A 'a\"b':9A '猫':5A",
			tf:  `{"\u0001":1,"a\"b":2,"猫":1}`,
		},
		{
			fs:  [3]field{{}, {tf: map[string]int{"x": 5000}}, {}},
			tsv: `'x':16382B`,
			tf:  `{"x":16773120}`,
		},
		{tsv: ``, tf: `{}`},
	} {
		tsv, tf := docLiterals(tc.fs)
		if tsv != tc.tsv || tf != tc.tf {
			t.Errorf("docLiterals(%v) = %s, %s; want %s, %s", tc.fs, tsv, tf, tc.tsv, tc.tf)
		}
	}
}

// TestTFMatchesTsvector checks that the tf map written with each document
// holds what migration 7 computes from its tsvector, and that PostgreSQL
// reads both literals back as written.
func TestTFMatchesTsvector(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	docs := []index.Doc{
		{ID: "a1", Session: "s", Text: "It's the dog's dog, the dog", Reply: "a dog and a cat", Context: "猫 and dog"},
		{ID: "a2", Session: "s", Text: `back\slash "quoted" words`, Reply: "", Context: ""},
		{ID: "a3", Session: "s", Text: "", Reply: "", Context: ""},
	}
	if err := db.Lexical().Apply(ctx, "", docs, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := db.pool.Query(ctx, `SELECT id, tf = coalesce((
			SELECT jsonb_object_agg(u.lexeme, (
				SELECT sum(CASE p % 4 WHEN 1 THEN (p / 4)::bigint WHEN 2 THEN (p / 4)::bigint << 12 ELSE (p / 4)::bigint << 24 END)
				FROM unnest(u.positions) AS p))
			FROM unnest(d.tsv) AS u), '{}'::jsonb), tf::text
		FROM lex_docs d ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, tf string
		var same bool
		if err := rows.Scan(&id, &same, &tf); err != nil {
			t.Fatal(err)
		}
		n++
		if !same {
			t.Errorf("%s: tf %s differs from its tsvector's", id, tf)
		}
	}
	if n != len(docs) {
		t.Errorf("%d documents, want %d", n, len(docs))
	}
}

// TestBM25MatchesBleve indexes the same documents in bleve (core/index)
// and PostgreSQL and checks that every query ranks and scores them the
// same.
func TestBM25MatchesBleve(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	base := time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)
	docs := make([]index.Doc, len(lexDocs))
	for i, d := range lexDocs {
		d.Time = base.Add(time.Duration(i) * time.Hour)
		d.NS = "n1"
		docs[i] = d
	}
	ix, err := index.Create(filepath.Join(t.TempDir(), "ix"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Apply(docs, nil, 1); err != nil {
		t.Fatal(err)
	}
	lx := db.Lexical()
	if err := lx.Apply(ctx, "n1", docs, nil); err != nil {
		t.Fatal(err)
	}
	// Noise in another namespace must change nothing.
	if err := lx.Apply(ctx, "n2", []index.Doc{{ID: "zzzzzz", Text: "budget budget dogs Beijing"}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		text       string
		ctx, reply float64
	}{
		{"budget", 0, 0},
		{"budget Beijing", 1, 0.3},
		{"北京预算", 1, 0.3},
		{"dogs dogs park", 1, 0.3},
		{"What did Caroline paint?", 1, 0.3},
		{"support group sunset", 0.5, 0},
		{"the", 1, 0.3},
		{"unknownword", 1, 0.3},
	} {
		want, err := ix.Search(ctx, index.Search{Text: q.text, ContextBoost: q.ctx, ReplyBoost: q.reply, NS: "n1", Size: 10})
		if err != nil {
			t.Fatal(err)
		}
		got, err := lx.Search(ctx, Search{Text: q.text, ContextBoost: q.ctx, ReplyBoost: q.reply, NS: "n1", Size: 10})
		if err != nil {
			t.Fatalf("%q: %v", q.text, err)
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool {
			return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a))
		})); diff != "" {
			t.Errorf("%q (-bleve +postgres):\n%s", q.text, diff)
		}
	}
}

// TestApplyKeepsStatistics replaces and deletes documents and checks the
// statistics against a fresh index of what is left.
func TestApplyKeepsStatistics(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	lx := db.Lexical()
	if err := lx.Apply(ctx, "", lexDocs, nil); err != nil {
		t.Fatal(err)
	}
	changed := lexDocs[1]
	changed.Text = "Melanie: something else entirely"
	if err := lx.Apply(ctx, "", []index.Doc{changed}, []string{"cccccc", "nosuch"}); err != nil {
		t.Fatal(err)
	}
	left := []index.Doc{lexDocs[0], changed, lexDocs[3], lexDocs[4]}
	if err := lx.Apply(ctx, "fresh", left, nil); err != nil {
		t.Fatal(err)
	}
	got, err := lx.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := lx.Stats(ctx, "fresh")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statistics after updates (-fresh +updated):\n%s", diff)
	}
	if got.Docs != 4 {
		t.Errorf("%d documents, want 4", got.Docs)
	}
	var a, b []string
	for _, ns := range []string{"", "fresh"} {
		rows, err := db.pool.Query(ctx, `SELECT field::text || ':' || term || '=' || df FROM lex_terms WHERE ns = $1 ORDER BY 1`, ns)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		rows.Close()
		if ns == "" {
			a = out
		} else {
			b = out
		}
	}
	if diff := cmp.Diff(b, a); diff != "" {
		t.Errorf("term statistics (-fresh +updated):\n%s", diff)
	}
}
