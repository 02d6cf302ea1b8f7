package migrations

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/huimemory/huimemory/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func pool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(t.Context(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// tables returns the public tables (without schema_version) and their
// columns.
func tables(t *testing.T, p *pgxpool.Pool) map[string][]string {
	t.Helper()
	rows, err := p.Query(t.Context(), `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name <> 'schema_version' ORDER BY table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var tb, col string
		if err := rows.Scan(&tb, &col); err != nil {
			t.Fatal(err)
		}
		out[tb] = append(out[tb], col)
	}
	return out
}

func TestEachVersion(t *testing.T) {
	meta := map[string][]string{
		"meta": {"ns", "key", "value"},
	}
	// Version 1's relational store, dropped by version 6.
	store := map[string][]string{
		"messages":        {"ns", "session", "t", "t_offset", "seq", "msg_key", "role", "speaker", "ref", "text", "lines", "sealed"},
		"chunk_keys":      {"ns", "chunk_key", "id"},
		"chunks":          {"ns", "id", "chunk_key", "session", "ord", "prev", "next", "t", "t_offset", "t_end", "end_offset", "file", "line_start", "line_end", "msgs", "text", "section", "topic", "memories", "roles", "speakers", "hash", "ctx_hash", "pending_extract"},
		"sessions":        {"ns", "session", "file", "first_t", "last_t", "count", "chunks", "stale"},
		"vectors":         {"ns", "id", "t", "vec"},
		"sources":         {"ns", "name", "hash"},
		"source_contents": {"ns", "hash"},
		"source_claims":   {"ns", "source", "msg_key"},
		"transcripts":     {"ns", "path", "data", "sha256", "updated"},
		"weeks":           {"ns", "week", "seal", "archive_path", "archive", "sha256", "archive_bytes", "raw_bytes", "files", "sessions", "sealed_at"},
		"sealed_sessions": {"ns", "session", "week", "seal", "file"},
		"generations":     {"ns", "gen"},
	}
	lex := map[string][]string{
		"lex_docs":  {"ns", "id", "session", "t", "tsv", "len_text", "len_reply", "len_ctx", "roles", "speakers", "topic", "types"},
		"lex_terms": {"ns", "field", "term", "df"},
		"lex_stats": {"ns", "docs", "terms_text", "terms_reply", "terms_ctx", "tokens_text", "tokens_reply", "tokens_ctx"},
	}
	kv := map[string][]string{
		"kv_buckets": {"name", "seq"},
		"kv":         {"bucket", "key", "value"},
	}
	merge := func(ms ...map[string][]string) map[string][]string {
		out := map[string][]string{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	lex7 := merge(lex, map[string][]string{
		"lex_docs": append(slices.Clone(lex["lex_docs"]), "tf"),
	})
	seq := []string{"message_seq"}
	cases := []struct {
		version  int
		tables   map[string][]string
		triggers []string
		funcs    []string
		seqs     []string
	}{
		{1, merge(meta, store), nil, nil, seq},
		{2, merge(meta, store, lex), nil, []string{"lex_bm25", "lex_tf"}, seq},
		{3, merge(meta, store, lex), []string{"vectors_notify_delete", "vectors_notify_insert", "vectors_notify_update"}, []string{"lex_bm25", "lex_tf", "notify_vectors"}, seq},
		{4, merge(meta, store, lex, kv), []string{"vectors_notify_delete", "vectors_notify_insert", "vectors_notify_update"}, []string{"lex_bm25", "lex_tf", "notify_vectors"}, seq},
		{5, merge(meta, store, lex, kv), []string{"vectors_notify_delete", "vectors_notify_insert", "vectors_notify_update"}, []string{"lex_bm25", "lex_tf", "notify_vectors"}, seq},
		{6, merge(meta, lex, kv), nil, []string{"lex_bm25", "lex_tf"}, nil},
		{7, merge(meta, lex7, kv), nil, []string{"lex_bm25", "lex_tf"}, nil},
		{8, merge(meta, lex7, kv), nil, []string{"lex_bm25", "lex_tf"}, nil},
		{9, merge(meta, lex7, kv, map[string][]string{"lex_log": {"seq", "at", "ids"}}), nil, []string{"lex_bm25", "lex_tf"}, []string{"lex_log_seq"}},
	}
	if len(cases) != Latest() {
		t.Fatalf("the test covers %d versions, there are %d: add a case", len(cases), Latest())
	}
	for _, tc := range cases {
		t.Run(strings.TrimSpace(string(rune('0'+tc.version))), func(t *testing.T) {
			p := pool(t)
			got, err := Apply(t.Context(), p, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			for v := 1; v <= tc.version; v++ {
				want = append(want, v)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.tables, tables(t, p)); diff != "" {
				t.Errorf("tables (-want +got):\n%s", diff)
			}
			var trig, funcs []string
			rows, _ := p.Query(t.Context(), "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1")
			for rows.Next() {
				var s string
				rows.Scan(&s)
				trig = append(trig, s)
			}
			rows.Close()
			rows, _ = p.Query(t.Context(), `SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
				WHERE n.nspname = 'public' AND p.prolang <> (SELECT oid FROM pg_language WHERE lanname = 'c') ORDER BY 1`)
			for rows.Next() {
				var s string
				rows.Scan(&s)
				funcs = append(funcs, s)
			}
			rows.Close()
			var seqs []string
			rows, _ = p.Query(t.Context(), `SELECT sequence_name FROM information_schema.sequences
				WHERE sequence_schema = 'public' ORDER BY 1`)
			for rows.Next() {
				var s string
				rows.Scan(&s)
				seqs = append(seqs, s)
			}
			rows.Close()
			if diff := cmp.Diff(tc.seqs, seqs); diff != "" {
				t.Errorf("sequences (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.triggers, trig); diff != "" {
				t.Errorf("triggers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.funcs, funcs); diff != "" {
				t.Errorf("functions (-want +got):\n%s", diff)
			}
			v, err := Version(t.Context(), p)
			if err != nil || v != tc.version {
				t.Errorf("Version = %d, %v; want %d", v, err, tc.version)
			}
			// Applying again does nothing.
			if again, err := Apply(t.Context(), p, tc.version); err != nil || len(again) != 0 {
				t.Errorf("second Apply = %v, %v; want nothing", again, err)
			}
		})
	}
}

// TestIndexesLeadWithNamespace checks that every index of every table
// (but schema_version, the store's kv tables, whose keys start with the
// namespace themselves, and lex_log, the lexical index's change log in
// commit order, whose rows name chunks of any namespace) starts with the
// ns column.
func TestIndexesLeadWithNamespace(t *testing.T) {
	p := pool(t)
	if _, err := Apply(t.Context(), p, 0); err != nil {
		t.Fatal(err)
	}
	rows, err := p.Query(t.Context(), `SELECT i.indexrelid::regclass::text, a.attname
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
		WHERE n.nspname = 'public' AND c.relname NOT IN ('schema_version', 'kv', 'kv_buckets', 'lex_log')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var idx, col string
		if err := rows.Scan(&idx, &col); err != nil {
			t.Fatal(err)
		}
		n++
		if col != "ns" {
			t.Errorf("index %s starts with %s, not ns", idx, col)
		}
	}
	// meta's key; lex_docs' key, time and three field indexes;
	// lex_terms' key; lex_stats' key.
	if n < 8 {
		t.Errorf("found %d indexes; the query is broken", n)
	}
}

func TestConcurrentApply(t *testing.T) {
	p := pool(t)
	var wg sync.WaitGroup
	results := make([][]int, 4)
	errs := make([]error, 4)
	for i := range 4 {
		wg.Go(func() { results[i], errs[i] = Apply(context.Background(), p, 0) })
	}
	wg.Wait()
	var all []int
	for i := range 4 {
		if errs[i] != nil {
			t.Fatalf("Apply %d: %v", i, errs[i])
		}
		all = append(all, results[i]...)
	}
	slices.Sort(all)
	var want []int
	for v := 1; v <= Latest(); v++ {
		want = append(want, v)
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("versions applied across four concurrent Apply calls (-want +got):\n%s", diff)
	}
}

func TestTooNew(t *testing.T) {
	p := pool(t)
	if _, err := Apply(t.Context(), p, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Exec(t.Context(), "INSERT INTO schema_version (version, name) VALUES ($1, 'future')", Latest()+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(t.Context(), p, 0); !errors.Is(err, ErrTooNew) {
		t.Errorf("Apply on a newer schema = %v, want ErrTooNew", err)
	}
	if _, err := Apply(t.Context(), p, 99); err == nil {
		t.Error("Apply to an unknown version succeeded")
	}
}

// TestVersion7FillsTermMaps checks that version 7 gives the chunks indexed
// before it their term maps, read from their tsvectors' 4*tf+field
// positions.
func TestVersion7FillsTermMaps(t *testing.T) {
	p := pool(t)
	if _, err := Apply(t.Context(), p, 6); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]string{
		{"a", `'dog':13A,6B,15C 'it''s':5A 'x':16382B`},
		{"b", `'猫':7C`},
		{"c", ``},
	} {
		_, err := p.Exec(t.Context(), `INSERT INTO lex_docs (ns, id, session, t, tsv, len_text, len_reply, len_ctx)
			VALUES ('', $1, 's', now(), $2::tsvector, 1, 1, 1)`, r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Apply(t.Context(), p, 7); err != nil {
		t.Fatal(err)
	}
	rows, err := p.Query(t.Context(), `SELECT id, tf::text FROM lex_docs ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for rows.Next() {
		var id, tf string
		if err := rows.Scan(&id, &tf); err != nil {
			t.Fatal(err)
		}
		got[id] = tf
	}
	rows.Close()
	want := map[string]string{
		"a": `{"x": 16773120, "dog": 50335747, "it's": 1}`,
		"b": `{"猫": 16777216}`,
		"c": `{}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("term maps (-want +got):\n%s", diff)
	}
}
