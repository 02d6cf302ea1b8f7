package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ingestSource(t testing.TB, e *Engine, path string) SourceResult {
	t.Helper()
	res, err := e.IngestSource(t.Context(), path, SourceOptions{Location: time.UTC})
	if err != nil {
		t.Fatalf("IngestSource(%s): %v", path, err)
	}
	return res
}

// storedTexts returns every stored message text of a session, in order.
func storedTexts(t testing.TB, e *Engine, ns, session string) []string {
	t.Helper()
	var out []string
	err := e.st.View(func(tx *store.Tx) error {
		msgs, _, err := tx.SessionMessages(ns, session)
		for _, m := range msgs {
			out = append(out, m.Text)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkSession checks that a session's chunks chain from end to end, that
// the session record counts them, and that every chunk's messages exist.
func checkSession(t testing.TB, e *Engine, ns, session string) []string {
	t.Helper()
	ids := chainOf(t, e, ns, session)
	err := e.st.View(func(tx *store.Tx) error {
		s, err := tx.Session(ns, session)
		if err != nil {
			return err
		}
		if s == nil || s.Chunks != len(ids) {
			t.Errorf("session %s record %+v, want %d chunks", session, s, len(ids))
		}
		n := 0
		for _, id := range ids {
			c, err := tx.Chunk(id)
			if err != nil {
				return err
			}
			for _, ref := range c.Msgs {
				if _, err := tx.Message(ns, session, ref); err != nil {
					t.Errorf("chunk %s refers to a missing message: %v", id, err)
				}
				n++
			}
		}
		if s != nil && n != s.Count {
			t.Errorf("session %s: chunks hold %d messages, record says %d", session, n, s.Count)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

const (
	jsonlV1 = `{"session":"s1","time":"2026-11-16T09:00:00Z","role":"user","text":"what port does the staging proxy use?"}
{"session":"s1","time":"2026-11-16T09:00:05Z","role":"assistant","text":"the staging proxy listens on port 8443"}
{"session":"s1","time":"2026-11-16T09:01:00Z","role":"user","text":"and production?"}
{"session":"s1","time":"2026-11-16T09:01:05Z","role":"assistant","text":"production uses 443 behind the load balancer"}
`
	textTranscript = "> which bread flour did we buy?\nthe T65 from the mill in Dijon\n"
)

func TestIncrementalReingest(t *testing.T) {
	e := openTest(t)
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	c := filepath.Join(dir, "bread.txt")
	writeFile(t, a, jsonlV1)
	writeFile(t, b, `{"session":"s2","time":"2026-11-17T10:00:00Z","speaker":"Ann","text":"lunch at noon?"}
{"session":"s2","time":"2026-11-17T10:00:30Z","speaker":"Bo","text":"yes, the noodle place"}
`)
	writeFile(t, c, textTranscript)
	for _, p := range []string{a, b, c} {
		if res := ingestSource(t, e, p); res.Status != SourceNew || res.Added == 0 {
			t.Fatalf("first ingest of %s: %+v, want new with messages", p, res)
		}
	}
	first := statsOf(t, e)
	if first.Messages != 8 {
		t.Fatalf("messages = %d, want 8", first.Messages)
	}

	// Unchanged: skipped, nothing written.
	for _, p := range []string{a, b, c} {
		if res := ingestSource(t, e, p); res.Status != SourceUnchanged || !res.Unchanged {
			t.Errorf("re-ingest of unchanged %s: %+v", p, res)
		}
	}
	if diff := cmp.Diff(first, statsOf(t, e)); diff != "" {
		t.Errorf("an unchanged re-ingest changed the store (-before +after):\n%s", diff)
	}

	// Changed: the edited message replaces the old one, no duplicate.
	writeFile(t, a, strings.Replace(jsonlV1, "port 8443", "port 9443 since the migration", 1))
	res := ingestSource(t, e, a)
	if res.Status != SourceChanged || res.Added != 1 || res.Dropped != 1 {
		t.Errorf("changed ingest %+v, want changed, 1 added, 1 dropped", res)
	}
	want := []string{"what port does the staging proxy use?", "the staging proxy listens on port 9443 since the migration",
		"and production?", "production uses 443 behind the load balancer"}
	if diff := cmp.Diff(want, storedTexts(t, e, "", "s1")); diff != "" {
		t.Errorf("s1 after the edit (-want +got):\n%s", diff)
	}
	if ids := checkSession(t, e, "", "s1"); len(ids) != 2 {
		t.Errorf("s1 has %d chunks, want 2", len(ids))
	}
	if got := statsOf(t, e); got.Messages != 8 || got.Chunks != first.Chunks {
		t.Errorf("after the edit: %d messages, %d chunks; want 8 and %d", got.Messages, got.Chunks, first.Chunks)
	}
	hits, err := e.Recall(t.Context(), core.Query{Text: "staging proxy port 8443", TopK: 5, NoTime: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits.Hits {
		for _, m := range h.Messages {
			if strings.Contains(m.Text, "8443") {
				t.Errorf("recall still returns the replaced text in chunk %s", h.ID)
			}
		}
	}

	// Shrunk: the last turn removed; the chain is re-linked.
	writeFile(t, a, strings.Join(strings.SplitAfter(strings.Replace(jsonlV1, "port 8443", "port 9443 since the migration", 1), "\n")[:2], ""))
	res = ingestSource(t, e, a)
	if res.Dropped != 2 || res.Removed != 1 {
		t.Errorf("shrinking ingest %+v, want 2 dropped, 1 chunk removed", res)
	}
	if ids := checkSession(t, e, "", "s1"); len(ids) != 1 {
		t.Errorf("s1 has %d chunks, want 1", len(ids))
	}

	// Made bad: the ingest fails naming the line, the old content stays.
	before := statsOf(t, e)
	writeFile(t, b, `{"session":"s2","time":"2026-11-17T10:00:00Z","speaker":"Ann","text":"lunch at noon?"}
{"session":"s2","time":"2026-11-17T10:00:30Z","speaker":"Bo","text":"yes, the noo`)
	_, err = e.IngestSource(t.Context(), b, SourceOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), b+":2: ") || !errors.Is(err, core.ErrInvalid) {
		t.Errorf("bad file error %v, want %s:2: ...", err, b)
	}
	if diff := cmp.Diff(before, statsOf(t, e)); diff != "" {
		t.Errorf("a failed ingest changed the store (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"lunch at noon?", "yes, the noodle place"}, storedTexts(t, e, "", "s2")); diff != "" {
		t.Errorf("s2 after the failed ingest (-want +got):\n%s", diff)
	}
	checkSession(t, e, "", "s2")

	// Deleted: reported, kept until pruned.
	if err := os.Remove(c); err != nil {
		t.Fatal(err)
	}
	missing, err := e.MissingSources(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) != 1 || missing[0].Path != c {
		t.Errorf("missing sources %+v, want %s", missing, c)
	}
	if got := storedTexts(t, e, "", "bread"); len(got) != 2 {
		t.Errorf("a deleted source was removed before --prune: %q", got)
	}
	var file string
	e.st.View(func(tx *store.Tx) error {
		s, _ := tx.Session("", "bread")
		file = filepath.Join(e.sessionsRoot(), filepath.FromSlash(s.File))
		return nil
	})
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("transcript of the deleted source: %v", err)
	}
	pr, err := e.PruneSource(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Dropped != 2 || pr.Removed != 1 {
		t.Errorf("prune %+v, want 2 messages and 1 chunk removed", pr)
	}
	if got := storedTexts(t, e, "", "bread"); len(got) != 0 {
		t.Errorf("pruned session still holds %q", got)
	}
	e.st.View(func(tx *store.Tx) error {
		if s, _ := tx.Session("", "bread"); s != nil {
			t.Errorf("pruned session record %+v remains", s)
		}
		if ids := tx.SessionChunkIDs("", "bread"); len(ids) != 0 {
			t.Errorf("pruned session still lists chunks %v", ids)
		}
		return nil
	})
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("transcript %s of the pruned session: %v, want it removed", file, err)
	}
	if srcs, _ := e.Sources(t.Context(), dir); len(srcs) != 2 {
		t.Errorf("sources after prune %+v, want a and b", srcs)
	}
	got := statsOf(t, e)
	if got.Messages != 4 || got.Sessions != 2 || got.Pending != 0 || got.IndexDocs != uint64(got.Chunks) {
		t.Errorf("after prune: %+v; want 4 messages, 2 sessions, index in step", got)
	}
}

func TestReplaceKeepsSharedAndUntrackedMessages(t *testing.T) {
	e := openTest(t)
	dir := t.TempDir()
	shared := `{"session":"s","time":"2026-11-16T09:00:00Z","role":"user","text":"shared question"}` + "\n"
	own := `{"session":"s","time":"2026-11-16T09:00:05Z","role":"assistant","text":"only in a"}` + "\n"
	added := msg("s", time.Date(2026, 11, 16, 9, 1, 0, 0, time.UTC), core.RoleUser, "added by hand")
	a, d := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "d.jsonl")
	ingest(t, e, []core.Message{added})
	handLine := `{"session":"s","time":"2026-11-16T09:01:00Z","role":"user","text":"added by hand"}` + "\n"
	writeFile(t, a, shared+own+handLine)
	writeFile(t, d, shared)
	ingestSource(t, e, a)
	ingestSource(t, e, d)
	// a drops everything: its own message goes; the one d also holds and
	// the one added by hand stay.
	writeFile(t, a, "")
	res := ingestSource(t, e, a)
	if res.Dropped != 1 {
		t.Errorf("dropped %d, want 1", res.Dropped)
	}
	if diff := cmp.Diff([]string{"shared question", "added by hand"}, storedTexts(t, e, "", "s")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	checkSession(t, e, "", "s")
	// Pruning d removes the shared message now that nobody else holds it.
	if err := os.Remove(d); err != nil {
		t.Fatal(err)
	}
	if _, err := e.PruneSource(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"added by hand"}, storedTexts(t, e, "", "s")); diff != "" {
		t.Errorf("after prune (-want +got):\n%s", diff)
	}
	checkSession(t, e, "", "s")
}

func TestIngestSourceFormats(t *testing.T) {
	e := openTest(t)
	for _, tt := range []struct{ file, format string }{
		{"chatgpt/conversations.json", "chatgpt"},
		{"claude-code/4c1e6a9b-2f3d-4e5a-8b7c-9d0e1f2a3b4c.jsonl", "claude-code"},
		{"slack/export/general/2026-11-19.json", "slack"},
		{"markdown/chat_deploy-bug.md", "markdown"},
	} {
		path := filepath.Join("..", "formats", "testdata", filepath.FromSlash(tt.file))
		res := ingestSource(t, e, path)
		if res.Format != tt.format || res.Added == 0 || res.Chunks == 0 {
			t.Errorf("%s: %+v, want format %s with messages and chunks", tt.file, res, tt.format)
		}
	}
	_, err := e.IngestSource(t.Context(), filepath.Join("..", "formats", "doc.go"), SourceOptions{})
	if err == nil || !strings.Contains(err.Error(), "supported formats are chatgpt") {
		t.Errorf("unknown format error %v, want the list of formats", err)
	}
}

// TestReplaceInSealedWeek changes and then prunes a file whose messages lie
// in a sealed week: the week is re-opened, and the store, chain and
// transcript follow the file.
func TestReplaceInSealedWeek(t *testing.T) {
	e := openTest(t)
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	writeFile(t, a, jsonlV1)
	ingestSource(t, e, a)
	weeks, err := e.Seal(t.Context(), SealOptions{Week: "2026-W47", Now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(weeks) != 1 {
		t.Fatalf("Seal: %v %+v", err, weeks)
	}
	writeFile(t, a, strings.Replace(jsonlV1, "port 8443", "port 9443", 1))
	res := ingestSource(t, e, a)
	if res.Dropped != 1 || res.Added != 1 {
		t.Errorf("replace in a sealed week: %+v", res)
	}
	want := []string{"what port does the staging proxy use?", "the staging proxy listens on port 9443",
		"and production?", "production uses 443 behind the load balancer"}
	if diff := cmp.Diff(want, storedTexts(t, e, "", "s1")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	ids := checkSession(t, e, "", "s1")
	hits, err := e.RecallByID(t.Context(), "", ids[0], 0)
	if err != nil || len(hits) != 1 || hits[0].Messages[1].Text != want[1] {
		t.Errorf("RecallByID after the replace: %v %+v", err, hits)
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if _, err := e.PruneSource(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if got := statsOf(t, e); got.Messages != 0 || got.Chunks != 0 || got.Sessions != 0 {
		t.Errorf("after pruning the only source: %+v", got)
	}
}
