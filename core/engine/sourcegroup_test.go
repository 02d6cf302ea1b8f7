package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"

	"github.com/huimemory/huimemory/core/store"
)

// TestIngestSourcesMatchesOneByOne ingests the same files with
// IngestSources and with IngestSource one at a time, into two homes, and
// compares what each file's result says and what the store holds: the
// messages of every session, its chunks, the tracked sources and their
// claims.
func TestIngestSourcesMatchesOneByOne(t *testing.T) {
	line := func(session string, minute int, text string) string {
		return fmt.Sprintf(`{"session":%q,"time":"2026-11-16T09:%02d:00Z","role":"user","text":%q}`+"\n", session, minute, text)
	}
	// session writes a file of n messages in its own session.
	session := func(name string, n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(line(name, i, fmt.Sprintf("%s message %d about the deploy", name, i)))
		}
		return b.String()
	}
	type file struct{ name, data string }
	for _, tt := range []struct {
		name  string
		batch int
		// before are ingested one at a time first, into both homes;
		// then before's files are rewritten as files says.
		before []file
		files  []file
		// paths are the names given to IngestSources, in order
		// (default: files' names).
		paths []string
		// chunks: compare each file's chunk count (not when files add
		// to one session, whose chunks a group plans together).
		chunks bool
		// byHand are stored untracked first (Engine.Ingest).
		byHand []core.Message
	}{
		{name: "one session a file", batch: 8, chunks: true,
			files: []file{{"a.jsonl", session("a", 3)}, {"b.jsonl", session("b", 4)}, {"c.jsonl", session("c", 2)}, {"d.jsonl", session("d", 5)}, {"e.jsonl", session("e", 1)}}},
		{name: "a file larger than a batch among small ones", batch: 4, chunks: true,
			files: []file{{"a.jsonl", session("a", 2)}, {"big.jsonl", session("big", 11)}, {"c.jsonl", session("c", 3)}}},
		{name: "messages and sessions shared between files", batch: 50,
			files: []file{
				{"a.jsonl", line("s", 0, "shared question") + line("s", 1, "only in a")},
				{"b.jsonl", line("s", 0, "shared question") + line("s", 2, "only in b")},
				{"c.jsonl", line("s", 1, "only in a")},
			}},
		{name: "a bad file fails alone", batch: 50, chunks: true,
			files: []file{{"a.jsonl", session("a", 2)}, {"bad.jsonl", line("x", 0, "fine") + `{"session":"x","time":"2026-11-16T`}, {"c.jsonl", session("c", 2)}}},
		{name: "unchanged and changed files between new ones", batch: 50, chunks: true,
			before: []file{{"old.jsonl", session("old", 2)}, {"edit.jsonl", session("edit", 3)}},
			files:  []file{{"a.jsonl", session("a", 2)}, {"old.jsonl", session("old", 2)}, {"b.jsonl", session("b", 2)}, {"edit.jsonl", session("edit", 2)}, {"c.jsonl", session("c", 2)}}},
		{name: "adding to sessions stored before", batch: 50,
			byHand: []core.Message{msg("s", time.Date(2026, 11, 16, 9, 2, 0, 0, time.UTC), core.RoleUser, "added by hand")},
			before: []file{{"old.jsonl", line("s", 0, "first") + line("s", 1, "second")}},
			files: []file{
				{"old.jsonl", line("s", 0, "first") + line("s", 1, "second")},
				{"a.jsonl", line("s", 0, "first") + line("s", 5, "more in s from a") + line("s", 2, "added by hand")},
				{"b.jsonl", session("b", 3)},
				{"c.jsonl", line("s", 1, "second") + line("s", 6, "more in s from c") + line("s", 5, "more in s from a")},
				{"d.jsonl", session("d", 2)},
			}},
		{name: "the same file twice", batch: 50, chunks: true,
			files: []file{{"a.jsonl", session("a", 2)}, {"b.jsonl", session("b", 2)}},
			paths: []string{"a.jsonl", "b.jsonl", "a.jsonl"}},
		{name: "an empty file", batch: 50, chunks: true,
			files: []file{{"a.jsonl", session("a", 2)}, {"empty.jsonl", ""}, {"c.jsonl", session("c", 2)}}},
	} {
		// Each case as it is, and in batches of 4 messages, which
		// takes the files through grouped stages.
		for _, batch := range []int{tt.batch, 4} {
			t.Run(fmt.Sprintf("%s/batch %d", tt.name, batch), func(t *testing.T) {
				dir := t.TempDir()
				var paths []string
				for _, p := range tt.paths {
					paths = append(paths, p)
				}
				if paths == nil {
					for _, f := range tt.files {
						paths = append(paths, f.name)
					}
				}
				for i := range paths {
					paths[i] = filepath.Join(dir, paths[i])
				}
				one, grouped := openTest(t), openTest(t)
				opts := SourceOptions{Location: time.UTC, BatchMessages: batch, DeferTidy: true}
				for _, e := range []*Engine{one, grouped} {
					if len(tt.byHand) > 0 {
						ingest(t, e, tt.byHand)
					}
				}
				for _, f := range tt.before {
					writeFile(t, filepath.Join(dir, f.name), f.data)
					for _, e := range []*Engine{one, grouped} {
						if _, err := e.IngestSource(t.Context(), filepath.Join(dir, f.name), opts); err != nil {
							t.Fatal(err)
						}
					}
				}
				for _, f := range tt.files {
					writeFile(t, filepath.Join(dir, f.name), f.data)
				}
				type result struct {
					Path, Status, Format                string
					Messages, Added, Duplicates, Chunks int
					Sessions, Dropped                   int
					Failed                              bool
				}
				row := func(path string, res SourceResult, err error) result {
					r := result{Path: filepath.Base(path), Status: res.Status, Format: res.Format, Messages: res.Messages, Added: res.Added,
						Duplicates: res.Duplicates, Sessions: res.Sessions, Dropped: res.Dropped, Failed: err != nil}
					if tt.chunks {
						r.Chunks = res.Chunks
					}
					return r
				}
				var want, got []result
				for _, p := range paths {
					res, err := one.IngestSource(t.Context(), p, opts)
					want = append(want, row(p, res, err))
				}
				var order []int
				err := grouped.IngestSources(t.Context(), paths, opts, func(i int, res SourceResult, err error) {
					order = append(order, i)
					got = append(got, row(paths[i], res, err))
				})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.IsSorted(order) || len(order) != len(paths) {
					t.Errorf("reported files %v, want each of %d once, in order", order, len(paths))
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("results (-one by one +grouped):\n%s", diff)
				}
				if diff := cmp.Diff(storeContent(t, one, tt.chunks), storeContent(t, grouped, tt.chunks)); diff != "" {
					t.Errorf("store (-one by one +grouped):\n%s", diff)
				}
				for _, e := range []*Engine{one, grouped} {
					if s := statsOf(t, e); s.IndexDocs != uint64(s.Chunks) || s.Pending != 0 {
						t.Errorf("index not in step: %+v", s)
					}
				}
			})
		}
	}
}

// storeContent describes what a store holds, for comparing two homes:
// each session's messages (and chunk count, with chunks), each tracked
// source's hash and how many messages it claims.
func storeContent(t *testing.T, e *Engine, chunks bool) []string {
	t.Helper()
	var out []string
	err := e.st.View(func(tx *store.Tx) error {
		err := tx.ForEachSession(func(s *store.Session) error {
			texts := storedTexts(t, e, s.NS, s.Session)
			line := fmt.Sprintf("session %s/%s: %q", s.NS, s.Session, texts)
			if chunks {
				line += fmt.Sprintf(", %d chunks", len(tx.SessionChunkIDs(s.NS, s.Session)))
			}
			out = append(out, line)
			return nil
		})
		for p, h := range tx.Sources() {
			out = append(out, fmt.Sprintf("source %s %s: %d claims", filepath.Base(p), h, len(tx.SourceMessages(p))))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestIngestSourcesGroups checks that small new files share transactions:
// a hundred one-session files of three messages, in batches of 60
// messages, cost a handful of commits, not a hundred.
func TestIngestSourcesGroups(t *testing.T) {
	e := openTest(t)
	dir := t.TempDir()
	var paths []string
	for i := range 100 {
		p := filepath.Join(dir, fmt.Sprintf("s%03d.jsonl", i))
		var b strings.Builder
		for j := range 3 {
			fmt.Fprintf(&b, `{"session":"s%03d","time":"2026-11-16T09:%02d:00Z","role":"user","text":"message %d of session %d"}`+"\n", i, j, j, i)
		}
		writeFile(t, p, b.String())
		paths = append(paths, p)
	}
	var gen0 uint64
	e.st.View(func(tx *store.Tx) error { gen0 = tx.Gen(); return nil })
	added := 0
	err := e.IngestSources(t.Context(), paths, SourceOptions{Location: time.UTC, BatchMessages: 60}, func(i int, res SourceResult, err error) {
		if err != nil || res.Status != SourceNew || res.Added != 3 || res.Sessions != 1 || res.Chunks == 0 {
			t.Errorf("%s: %+v, %v; want new, 3 added, 1 session, chunks", paths[i], res, err)
		}
		added += res.Added
	})
	if err != nil {
		t.Fatal(err)
	}
	if added != 300 {
		t.Errorf("added %d messages, want 300", added)
	}
	var commits uint64
	e.st.View(func(tx *store.Tx) error { commits = tx.Gen() - gen0; return nil })
	if commits > 10 {
		t.Errorf("%d store generations for 5 groups of files, want one per group", commits)
	}
	// Again: every file unchanged.
	err = e.IngestSources(t.Context(), paths, SourceOptions{Location: time.UTC}, func(i int, res SourceResult, err error) {
		if err != nil || res.Status != SourceUnchanged {
			t.Errorf("re-ingest of %s: %+v, %v; want unchanged", paths[i], res, err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIngestSourcesCancelled stops at a cancelled context, before
// writing anything.
func TestIngestSourcesCancelled(t *testing.T) {
	e := openTest(t)
	p := filepath.Join(t.TempDir(), "a.jsonl")
	writeFile(t, p, `{"session":"s","time":"2026-11-16T09:00:00Z","role":"user","text":"hello"}`+"\n")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := e.IngestSources(ctx, []string{p}, SourceOptions{}, func(int, SourceResult, error) {
		t.Error("a file was reported after the context ended")
	})
	if !errors.Is(err, ctx.Err()) {
		t.Errorf("IngestSources = %v, want %v", err, ctx.Err())
	}
	if s := statsOf(t, e); s.Messages != 0 {
		t.Errorf("%d messages stored after a cancelled ingest", s.Messages)
	}
}
