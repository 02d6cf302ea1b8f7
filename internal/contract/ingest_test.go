package contract

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
)

// sessionTexts returns the texts of a session's messages, in order; nil
// for an unknown session.
func sessionTexts(t *testing.T, e *engine.Engine, ns, session string) []string {
	t.Helper()
	turns, err := e.SessionTurns(t.Context(), ns, session, 0)
	if errors.Is(err, core.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("SessionTurns(%q, %q): %v", ns, session, err)
	}
	var out []string
	for _, c := range turns {
		for _, m := range c.Messages {
			out = append(out, m.Text)
		}
	}
	return out
}

// snapshot is what a memory holds, as the public API shows it: the
// export of every namespace, the chains, and the counts.
type snapshot struct {
	Export string
	Chains map[string]map[string][]string
	Stats  engine.Stats
}

func snap(t *testing.T, e *engine.Engine, namespaces ...string) snapshot {
	t.Helper()
	s := snapshot{Chains: map[string]map[string][]string{}, Stats: stats(t, e)}
	s.Export, _ = export(t, e, engine.ExportOptions{All: true})
	for _, ns := range append([]string{""}, namespaces...) {
		s.Chains[ns] = chains(t, e, ns)
	}
	return s
}

func TestIngestIsIdempotent(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		msgs := append(bilingual(""), bilingual("bob")...)
		ingest(t, e, msgs)
		before := snap(t, e, "bob")
		if before.Stats.Messages != 20 || before.Stats.Chunks != 10 {
			t.Fatalf("stats %+v, want 20 messages in 10 chunks", before.Stats)
		}
		res := ingest(t, e, msgs)
		if res.Added != 0 || res.Duplicates != 20 || res.Chunks != 0 || len(res.DuplicateIndexes) != 20 {
			t.Errorf("second ingest %+v, want nothing added", res)
		}
		// In another order, and a message twice in one batch.
		rev := make([]core.Message, 0, len(msgs)+1)
		for i := len(msgs) - 1; i >= 0; i-- {
			rev = append(rev, msgs[i])
		}
		rev = append(rev, msgs[3])
		if res := ingest(t, e, rev); res.Added != 0 || res.Chunks != 0 {
			t.Errorf("reversed ingest %+v, want nothing added", res)
		}
		if diff := cmp.Diff(before, snap(t, e, "bob")); diff != "" {
			t.Errorf("an ingest of stored messages changed the memory (-before +after):\n%s", diff)
		}
		// Half old, half new: only the new ones go in, once.
		extra := core.Message{Session: "s2", Time: msgs[9].Time.Add(time.Minute), Role: core.RoleUser, Text: "and the visa?"}
		res = ingest(t, e, []core.Message{msgs[8], extra, msgs[9], extra})
		if res.Added != 1 || res.Duplicates != 3 || !cmp.Equal(res.DuplicateIndexes, []int{0, 2, 3}) {
			t.Errorf("mixed ingest %+v, want 1 added, duplicates at 0, 2, 3", res)
		}
		if got := sessionTexts(t, e, "", "s2"); len(got) != 3 || got[2] != extra.Text {
			t.Errorf("s2 holds %q", got)
		}
		// A file ingested twice adds nothing the second time.
		path := tempFile(t, "chat.jsonl", `{"session":"f","time":"2026-03-05T10:00:07+08:00","role":"user","speaker":"Alice","text":"hello there","ref":"D1:1"}
{"session":"f","time":"2026-03-05T10:01:07+08:00","role":"assistant","text":"hi Alice"}
`)
		if res, err := e.IngestFile(t.Context(), path, engine.FileOptions{}); err != nil || res.Added != 2 {
			t.Fatalf("first IngestFile %+v, %v", res, err)
		}
		mid := snap(t, e, "bob")
		if res, err := e.IngestFile(t.Context(), path, engine.FileOptions{}); err != nil || res.Added != 0 {
			t.Errorf("second IngestFile %+v, %v; want nothing added", res, err)
		}
		if diff := cmp.Diff(mid, snap(t, e, "bob")); diff != "" {
			t.Errorf("a second IngestFile changed the memory (-before +after):\n%s", diff)
		}
	})
}

func TestIngestIsAllOrNothing(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		ingest(t, e, bilingual(""))
		before := snap(t, e)
		at := time.Date(2026, 3, 9, 1, 0, 0, 0, time.UTC)
		good := core.Message{Session: "s1", Time: at, Role: core.RoleUser, Text: "a fine message"}
		for _, tt := range []struct {
			name string
			bad  core.Message
		}{
			{"no text", core.Message{Session: "s1", Time: at, Role: core.RoleUser}},
			{"no session", core.Message{Time: at, Role: core.RoleUser, Text: "x"}},
			{"no role or speaker", core.Message{Session: "s1", Time: at, Text: "x"}},
			{"bad role", core.Message{Session: "s1", Time: at, Role: "robot", Text: "x"}},
			{"bad namespace", core.Message{Namespace: "a/b", Session: "s1", Time: at, Role: core.RoleUser, Text: "x"}},
			{"no time", core.Message{Session: "s1", Role: core.RoleUser, Text: "x"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := e.Ingest(t.Context(), []core.Message{good, tt.bad})
				if !errors.Is(err, core.ErrInvalid) {
					t.Errorf("Ingest with a bad message: %v, want ErrInvalid", err)
				}
				if diff := cmp.Diff(before, snap(t, e)); diff != "" {
					t.Errorf("a failed ingest changed the memory (-before +after):\n%s", diff)
				}
			})
		}
		// A file with a bad line: nothing of it goes in.
		path := tempFile(t, "bad.jsonl", `{"session":"s9","time":"2026-03-05T10:00:07+08:00","role":"user","text":"ok"}
{"session":"s9","time":`)
		if _, err := e.IngestFile(t.Context(), path, engine.FileOptions{}); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2:") {
			t.Errorf("IngestFile of a bad file: %v, want bad.jsonl:2: ...", err)
		}
		if diff := cmp.Diff(before, snap(t, e)); diff != "" {
			t.Errorf("a failed IngestFile changed the memory (-before +after):\n%s", diff)
		}
	})
}

const (
	jsonlV1 = `{"session":"s1","time":"2026-11-16T09:00:00Z","role":"user","text":"what port does the staging proxy use?"}
{"session":"s1","time":"2026-11-16T09:00:05Z","role":"assistant","text":"the staging proxy listens on port 8443"}
{"session":"s1","time":"2026-11-16T09:01:00Z","role":"user","text":"and production?"}
{"session":"s1","time":"2026-11-16T09:01:05Z","role":"assistant","text":"production uses 443 behind the load balancer"}
`
	jsonlB = `{"session":"s2","time":"2026-11-17T10:00:00Z","speaker":"Ann","text":"lunch at noon?"}
{"session":"s2","time":"2026-11-17T10:00:30Z","speaker":"Bo","text":"yes, the noodle place"}
`
	textTranscript = "> which bread flour did we buy?\nthe T65 from the mill in Dijon\n"
)

func TestIngestSourceReplacesAndPrunes(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		dir := t.TempDir()
		a, b, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "bread.txt")
		writeFile(t, a, jsonlV1)
		writeFile(t, b, jsonlB)
		writeFile(t, c, textTranscript)
		ingestSource := func(path string, opts engine.SourceOptions) engine.SourceResult {
			t.Helper()
			if opts.Location == nil {
				opts.Location = time.UTC
			}
			res, err := e.IngestSource(t.Context(), path, opts)
			if err != nil {
				t.Fatalf("IngestSource(%s): %v", path, err)
			}
			return res
		}
		for _, p := range []string{a, b, c} {
			if res := ingestSource(p, engine.SourceOptions{}); res.Status != engine.SourceNew || res.Added == 0 {
				t.Fatalf("first ingest of %s: %+v, want new with messages", p, res)
			}
		}
		first := snap(t, e)
		if first.Stats.Messages != 8 || first.Stats.Sessions != 3 {
			t.Fatalf("stats %+v, want 8 messages in 3 sessions", first.Stats)
		}
		if srcs, err := e.Sources(t.Context(), dir); err != nil || len(srcs) != 3 {
			t.Errorf("Sources = %+v, %v; want 3", srcs, err)
		}

		// Unchanged: nothing written.
		for _, p := range []string{a, b, c} {
			if res := ingestSource(p, engine.SourceOptions{}); res.Status != engine.SourceUnchanged || !res.Unchanged {
				t.Errorf("re-ingest of unchanged %s: %+v", p, res)
			}
		}
		if diff := cmp.Diff(first, snap(t, e)); diff != "" {
			t.Errorf("an unchanged re-ingest changed the memory (-before +after):\n%s", diff)
		}

		// Changed: the edited message replaces the old one, in place.
		oldIDs := first.Chains[""]["s1"]
		writeFile(t, a, strings.Replace(jsonlV1, "port 8443", "port 9443 since the migration", 1))
		res := ingestSource(a, engine.SourceOptions{})
		if res.Status != engine.SourceChanged || res.Added != 1 || res.Dropped != 1 {
			t.Errorf("changed ingest %+v, want changed, 1 added, 1 dropped", res)
		}
		want := []string{"what port does the staging proxy use?", "the staging proxy listens on port 9443 since the migration",
			"and production?", "production uses 443 behind the load balancer"}
		if diff := cmp.Diff(want, sessionTexts(t, e, "", "s1")); diff != "" {
			t.Errorf("s1 after the edit (-want +got):\n%s", diff)
		}
		ids := chains(t, e, "")["s1"]
		if len(ids) != 2 || ids[1] != oldIDs[1] {
			t.Errorf("s1 chunks %v after the edit, was %v: want 2, the untouched second one kept", ids, oldIDs)
		}
		if _, err := e.RecallByID(t.Context(), "", oldIDs[0], 0); ids[0] != oldIDs[0] && !errors.Is(err, core.ErrNotFound) {
			t.Errorf("the replaced chunk %s is still found: %v", oldIDs[0], err)
		}
		if st := stats(t, e); st.Messages != 8 || st.Chunks != first.Stats.Chunks {
			t.Errorf("after the edit %d messages, %d chunks; want 8 and %d", st.Messages, st.Chunks, first.Stats.Chunks)
		}
		if finds(t, e, "", "staging proxy port 8443", "8443", 10) {
			t.Error("recall still returns the replaced text")
		}
		if !finds(t, e, "", "staging proxy port 9443", "9443", 3) {
			t.Error("recall does not find the new text")
		}
		if out, _ := export(t, e, engine.ExportOptions{}); strings.Contains(out, "8443") || !strings.Contains(out, "9443") {
			t.Errorf("export after the edit:\n%s", out)
		}

		// Shrunk: the last turn removed, the chain re-linked.
		writeFile(t, a, strings.Join(strings.SplitAfter(strings.Replace(jsonlV1, "port 8443", "port 9443 since the migration", 1), "\n")[:2], ""))
		res = ingestSource(a, engine.SourceOptions{})
		if res.Dropped != 2 || res.Removed != 1 {
			t.Errorf("shrinking ingest %+v, want 2 dropped, 1 chunk removed", res)
		}
		if ids := chains(t, e, "")["s1"]; len(ids) != 1 {
			t.Errorf("s1 has chunks %v, want 1", ids)
		}
		if finds(t, e, "", "production load balancer", "load balancer", 10) {
			t.Error("recall still returns the removed turn")
		}

		// Made bad: the ingest fails naming the line; the old content stays.
		before := snap(t, e)
		writeFile(t, b, jsonlB[:len(jsonlB)-20])
		_, err := e.IngestSource(t.Context(), b, engine.SourceOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), b+":2: ") || !errors.Is(err, core.ErrInvalid) {
			t.Errorf("bad file error %v, want %s:2: ...", err, b)
		}
		if diff := cmp.Diff(before, snap(t, e)); diff != "" {
			t.Errorf("a failed source ingest changed the memory (-before +after):\n%s", diff)
		}
		// A large new file in batches that fails on its last line.
		var big strings.Builder
		for i := range 40 {
			fmt.Fprintf(&big, `{"session":"big%d","time":"2026-11-%02dT09:00:00Z","role":"user","text":"batch line %d about gardening"}`+"\n", i%3, 1+i%20, i)
		}
		big.WriteString(`{"session":"big0","time":"2026-11-20T09:00:00Z","role":"user","text":` + "\n")
		bigPath := filepath.Join(dir, "big.jsonl")
		writeFile(t, bigPath, big.String())
		_, err = e.IngestSource(t.Context(), bigPath, engine.SourceOptions{Location: time.UTC, BatchMessages: 7})
		var ie *core.InputError
		if !errors.As(err, &ie) || ie.Line != 41 {
			t.Errorf("batched bad file: %v, want an input error at line 41", err)
		}
		if diff := cmp.Diff(before, snap(t, e)); diff != "" {
			t.Errorf("a failed batched ingest changed the memory (-before +after):\n%s", diff)
		}
		if finds(t, e, "", "batch line gardening", "gardening", 10) {
			t.Error("recall finds a message of the failed file")
		}
		os.Remove(bigPath)

		// Deleted: listed as missing, kept until pruned.
		if err := os.Remove(c); err != nil {
			t.Fatal(err)
		}
		missing, err := e.MissingSources(t.Context(), dir)
		if err != nil || len(missing) != 1 || missing[0].Path != c {
			t.Errorf("missing sources %+v, %v; want %s", missing, err, c)
		}
		if got := sessionTexts(t, e, "", "bread"); len(got) != 2 {
			t.Errorf("a deleted source was removed before pruning: %q", got)
		}
		breadIDs := chains(t, e, "")["bread"]
		pr, err := e.PruneSource(t.Context(), c)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Status != engine.SourcePruned || pr.Dropped != 2 || pr.Removed != 1 {
			t.Errorf("prune %+v, want pruned, 2 messages and 1 chunk removed", pr)
		}
		if got := sessionTexts(t, e, "", "bread"); got != nil {
			t.Errorf("the pruned session still holds %q", got)
		}
		if _, err := e.Session(t.Context(), "", "bread"); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("Session(bread) after prune: %v, want ErrNotFound", err)
		}
		for _, id := range breadIDs {
			if _, err := e.RecallByID(t.Context(), "", id, 1); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("RecallByID(%s) of the pruned session: %v, want ErrNotFound", id, err)
			}
		}
		if finds(t, e, "", "bread flour Dijon", "Dijon", 10) {
			t.Error("recall finds the pruned source")
		}
		if srcs, _ := e.Sources(t.Context(), dir); len(srcs) != 2 {
			t.Errorf("sources after prune %+v, want a and b", srcs)
		}
		st := stats(t, e)
		if st.Messages != 4 || st.Sessions != 2 || st.Pending != 0 || st.IndexDocs != uint64(st.Chunks) {
			t.Errorf("after prune: %+v; want 4 messages, 2 sessions, index in step", st)
		}
		chains(t, e, "")
	})
}

// TestIngestSourceNamespace: a source's namespace option places its
// messages. A source is its path: ingesting the same file into another
// namespace moves its messages there (the old namespace's are dropped).
func TestIngestSourceNamespace(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		path := tempFile(t, "a.jsonl", jsonlV1)
		for i, ns := range []string{"alice", "bob"} {
			res, err := e.IngestSource(t.Context(), path, engine.SourceOptions{Namespace: ns, Location: time.UTC})
			if err != nil || res.Added != 4 || res.Dropped != 4*i {
				t.Fatalf("IngestSource into %s: %+v, %v; want 4 added, %d dropped", ns, res, err, 4*i)
			}
		}
		for ns, want := range map[string]int{"": 0, "alice": 0, "bob": 4} {
			if got := len(sessionTexts(t, e, ns, "s1")); got != want {
				t.Errorf("namespace %q holds %d messages of s1, want %d", ns, got, want)
			}
			chains(t, e, ns)
		}
		if st := stats(t, e); st.Messages != 4 || !cmp.Equal(st.Namespaces, map[string]int{"bob": 2}) {
			t.Errorf("stats %+v, want 4 messages, 2 chunks in bob", st)
		}
		if finds(t, e, "alice", "staging proxy port", "staging", 10) {
			t.Error("alice still finds the moved source")
		}
	})
}
