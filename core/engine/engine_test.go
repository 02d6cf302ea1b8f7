package engine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// sampleMessages is a small bilingual conversation.
func sampleMessages() []core.Message {
	base := time.Date(2026, 3, 5, 10, 0, 7, 0, cst)
	at := func(min int) time.Time { return base.Add(time.Duration(min) * time.Minute) }
	return []core.Message{
		msg("s1", at(0), core.RoleUser, "我想在服务器上部署本地模型，用 Ollama 还是 vLLM？"),
		msg("s1", at(1), core.RoleAssistant, "Ollama 更容易上手，vLLM 吞吐更好。"),
		msg("s1", at(2), core.RoleUser, "你觉得 AI 意识 是真的存在吗？"),
		msg("s1", at(3), core.RoleAssistant, "关于AI意识，目前没有科学共识。"),
		msg("s1", at(4), core.RoleUser, "Let's plan the trip to Kyoto next spring; I prefer quiet temples."),
		msg("s1", at(5), core.RoleAssistant, "Noted. Cherry blossoms peak in early April."),
		msg("s1", at(6), core.RoleUser, "What was the budget for the marketing campaign?"),
		msg("s1", at(7), core.RoleAssistant, "The campaign budget was 40,000 dollars."),
		msg("s2", at(60*24), core.RoleUser, "Remind me to renew the passport before the trip."),
		msg("s2", at(60*24+1), core.RoleAssistant, "Done: renew passport before Kyoto."),
	}
}

func ingest(t testing.TB, e *Engine, msgs []core.Message) IngestResult {
	t.Helper()
	res, err := e.Ingest(t.Context(), msgs)
	if err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	return res
}

func firstText(h core.Hit) string { return h.Messages[0].Text }

func TestRecallFindsTheRightTurn(t *testing.T) {
	e := openTest(t)
	ingest(t, e, sampleMessages())
	tests := []struct {
		query string
		want  string // prefix of the top hit's first message
	}{
		{"AI 意识", "你觉得 AI 意识"},
		{"AI意识", "你觉得 AI 意识"},
		{"本地模型部署", "我想在服务器上部署本地模型"},
		{"Kyoto temples", "Let's plan the trip to Kyoto"},
		{"how much money was budgeted for marketing?", "What was the budget"},
		{"passport renewal", "Remind me to renew the passport"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := e.Recall(t.Context(), core.Query{Text: tt.query, TopK: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 {
				t.Fatalf("no hits")
			}
			if got := firstText(res.Hits[0]); !strings.HasPrefix(got, tt.want) {
				t.Errorf("top hit = %q, want prefix %q", got, tt.want)
			}
			for _, h := range res.Hits {
				if h.ContextRole != core.RoleHit {
					t.Errorf("hit %s has role %q", h.ID, h.ContextRole)
				}
				if h.Scores.Vector < 0 || h.Scores.Vector > 1 || h.Scores.BM25 < 0 || h.Scores.BM25 > 1 {
					t.Errorf("hit %s scores %+v outside [0,1]", h.ID, h.Scores)
				}
				wv, wb := core.DefaultVectorWeight, core.DefaultBM25Weight
				want := round(wv*h.Scores.Vector + wb*h.Scores.BM25)
				if diff := h.Score - want; diff > 1e-5 || diff < -1e-5 {
					t.Errorf("hit %s score %v, want %v·%v + %v·%v = %v", h.ID, h.Score, wv, h.Scores.Vector, wb, h.Scores.BM25, want)
				}
			}
			if !slices.IsSortedFunc(res.Hits, func(a, b core.Hit) int { return -cmpFloat(a.Score, b.Score) }) {
				t.Errorf("hits not sorted by score")
			}
		})
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestChunksAreExchangePairs(t *testing.T) {
	e := openTest(t)
	res := ingest(t, e, sampleMessages())
	if res.Chunks != 5 || res.Added != 10 || res.Sessions != 2 {
		t.Fatalf("ingest result %+v, want 5 chunks, 10 added, 2 sessions", res)
	}
	hits, err := e.RecallByID(t.Context(), "", chainOf(t, e, "", "s1")[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range hits[0].Messages {
		got = append(got, string(m.Role))
	}
	if diff := cmp.Diff([]string{"user", "assistant"}, got); diff != "" {
		t.Errorf("first chunk roles (-want +got):\n%s", diff)
	}
	if hits[0].LineStart != 9 || hits[0].LineEnd != 13 {
		t.Errorf("first chunk lines %d-%d, want 9-13", hits[0].LineStart, hits[0].LineEnd)
	}
	if want := "2026-W10/2026-03-05/chat_s1.md"; hits[0].File != want {
		t.Errorf("file %q, want %q", hits[0].File, want)
	}
}

func TestSpeakerOnlyConversationGetsOneChunkPerMessage(t *testing.T) {
	e := openTest(t)
	base := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var msgs []core.Message
	for i, who := range []string{"Caroline", "Melanie", "Caroline", "Melanie"} {
		msgs = append(msgs, core.Message{Session: "c1", Time: base.Add(time.Duration(i) * time.Minute), Speaker: who, Text: "line " + who, Ref: "D1:" + string(rune('1'+i))})
	}
	res := ingest(t, e, msgs)
	if res.Chunks != 4 {
		t.Fatalf("chunks = %d, want 4", res.Chunks)
	}
	ids := chainOf(t, e, "", "c1")
	hits, err := e.RecallByID(t.Context(), "", ids[2], 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"D1:3"}, hits[0].Refs()); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
}

// chainOf walks a session's anchors from its first chunk and returns the
// ids in order, checking that prev links mirror next links.
func chainOf(t testing.TB, e *Engine, ns, session string) []string {
	t.Helper()
	var ids []string
	err := e.st.View(func(tx *store.Tx) error {
		listed := tx.SessionChunkIDs(ns, session)
		if len(listed) == 0 {
			return errors.New("session has no chunks")
		}
		prev := ""
		id := listed[0]
		for id != "" {
			c, err := tx.Chunk(id)
			if err != nil {
				return err
			}
			if c.Prev != prev {
				return errors.New("chunk " + id + " has prev " + c.Prev + ", want " + prev)
			}
			ids = append(ids, id)
			if len(ids) > len(listed) {
				return errors.New("chain is longer than the session: a cycle")
			}
			prev, id = id, c.Next
		}
		if !slices.Equal(ids, listed) {
			return errors.New("chain differs from the session's chunk list")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking session %q: %v", session, err)
	}
	return ids
}

func TestAnchorsChainEverySessionAt10k(t *testing.T) {
	if testing.Short() {
		t.Skip("10k chunks")
	}
	e := openTest(t)
	msgs := corpus(1, 10000, 50, time.Date(2026, 1, 1, 9, 0, 0, 0, cst))
	// Arrive out of order: reverse each session's second half.
	slices.Reverse(msgs[len(msgs)/2:])
	res := ingest(t, e, msgs)
	if res.Chunks != 10000 {
		t.Fatalf("chunks = %d, want 10000", res.Chunks)
	}
	seen := map[string]bool{}
	err := e.st.View(func(tx *store.Tx) error {
		return tx.ForEachSession(func(s *store.Session) error {
			ids := chainOf(t, e, s.NS, s.Session)
			if len(ids) != s.Chunks || len(ids) != 50 {
				t.Errorf("session %s: chain of %d, want 50", s.Session, len(ids))
			}
			var last time.Time
			for _, id := range ids {
				if seen[id] {
					t.Errorf("id %s appears twice", id)
				}
				seen[id] = true
				c, err := tx.Chunk(id)
				if err != nil {
					return err
				}
				if c.StartTime().Before(last) {
					t.Errorf("session %s: chunk %s out of time order", s.Session, id)
				}
				last = c.StartTime()
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 10000 {
		t.Errorf("%d distinct ids, want 10000", len(seen))
	}
}

func TestLateMessagesRelinkTheSession(t *testing.T) {
	e := openTest(t)
	base := time.Date(2026, 4, 13, 9, 0, 0, 0, cst)
	at := func(min int) time.Time { return base.Add(time.Duration(min) * time.Minute) }
	ingest(t, e, []core.Message{
		msg("s", at(0), core.RoleUser, "first question"),
		msg("s", at(1), core.RoleAssistant, "first answer"),
		msg("s", at(20), core.RoleUser, "third question"),
		msg("s", at(21), core.RoleAssistant, "third answer"),
	})
	before := chainOf(t, e, "", "s")
	// A turn that happened in between arrives late, and so does a second
	// assistant reply to the first question.
	ingest(t, e, []core.Message{
		msg("s", at(10), core.RoleUser, "second question"),
		msg("s", at(11), core.RoleAssistant, "second answer"),
		msg("s", at(2), core.RoleAssistant, "first answer, continued"),
	})
	after := chainOf(t, e, "", "s")
	if len(after) != 3 {
		t.Fatalf("chain %v, want 3 chunks", after)
	}
	if after[0] != before[0] || after[2] != before[1] {
		t.Errorf("ids changed: before %v, after %v; ids must be stable", before, after)
	}
	hits, err := e.RecallByID(t.Context(), "", after[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, h := range hits {
		for _, m := range h.Messages {
			texts = append(texts, m.Text)
		}
	}
	want := []string{"first question", "first answer", "first answer, continued", "second question", "second answer"}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	// The transcript on disk matches the new layout.
	data, err := os.ReadFile(filepath.Join(e.sessionsRoot(), "2026-W16", "2026-04-13", "chat_s.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for _, h := range hits {
		if got := lines[h.LineStart-1]; !strings.HasPrefix(got, "### ") {
			t.Errorf("line %d of the transcript is %q, want a message header", h.LineStart, got)
		}
		if got, want := lines[h.LineEnd-1], h.Messages[len(h.Messages)-1].Text; got != want {
			t.Errorf("line %d of the transcript is %q, want %q", h.LineEnd, got, want)
		}
	}
}

func TestIngestIsIdempotent(t *testing.T) {
	e := openTest(t)
	ingest(t, e, sampleMessages())
	before := statsOf(t, e)
	res := ingest(t, e, sampleMessages())
	if res.Added != 0 || res.Duplicates != 10 || res.Chunks != 0 {
		t.Errorf("second ingest %+v, want nothing added", res)
	}
	if diff := cmp.Diff(before, statsOf(t, e)); diff != "" {
		t.Errorf("stats changed (-before +after):\n%s", diff)
	}
}

func TestIngestFileIsIdempotentAndAllOrNothing(t *testing.T) {
	e := openTest(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"session":"s1","time":"2026-03-05T10:00:07+08:00","role":"user","speaker":"Alice","text":"hello there","ref":"D1:1"}
{"session":"s1","time":"2026-03-05T10:01:07+08:00","role":"assistant","text":"hi Alice"}
`), 0o600)
	res, err := e.IngestFile(t.Context(), good, FileOptions{})
	if err != nil || res.Added != 2 {
		t.Fatalf("first ingest %+v, %v", res, err)
	}
	before := statsOf(t, e)
	res, err = e.IngestFile(t.Context(), good, FileOptions{})
	if err != nil || !res.Unchanged {
		t.Fatalf("second ingest %+v, %v: want unchanged", res, err)
	}

	tests := []struct {
		name, content, wantErr string
	}{
		{"bad json", `{"session":"s2","time":"2026-03-05T10:00:07+08:00","role":"user","text":"ok"}
{"session":"s2","time":`, "bad.jsonl:2: invalid JSON"},
		{"missing text", `{"session":"s2","time":"2026-03-05T10:00:07+08:00","role":"user","text":"ok"}

{"session":"s2","time":"2026-03-05T10:00:07+08:00","role":"user"}`, "bad.jsonl:3: missing text"},
		{"bad time", `{"session":"s2","time":"yesterday","role":"user","text":"ok"}`, `bad.jsonl:1: bad time "yesterday"`},
		{"bad role", `{"session":"s2","time":"2026-03-05T10:00:07Z","role":"robot","text":"ok"}`, `bad.jsonl:1: unknown role "robot"`},
		{"no role or speaker", `{"session":"s2","time":"2026-03-05T10:00:07Z","text":"ok"}`, "bad.jsonl:1: missing role and speaker"},
		{"wrong type", `{"session":2,"time":"2026-03-05T10:00:07Z","role":"user","text":"ok"}`, `bad.jsonl:1: field "session" must be a string`},
		{"trailing data", `{"session":"s2","time":"2026-03-05T10:00:07Z","role":"user","text":"ok"} x`, "bad.jsonl:1: unexpected data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := filepath.Join(dir, "bad.jsonl")
			os.WriteFile(bad, []byte(tt.content), 0o600)
			_, err := e.IngestFile(t.Context(), bad, FileOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if !errors.Is(err, core.ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if diff := cmp.Diff(before, statsOf(t, e)); diff != "" {
				t.Errorf("store changed (-before +after):\n%s", diff)
			}
		})
	}
}

func statsOf(t testing.TB, e *Engine) Stats {
	t.Helper()
	s, err := e.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s.StoreBytes, s.IndexBytes, s.FilesBytes = 0, 0, 0
	return s
}

func TestContextWindowMarksHitsAndNeighbours(t *testing.T) {
	e := openTest(t)
	ingest(t, e, sampleMessages())
	ids := chainOf(t, e, "", "s1")
	// The Kyoto turn is third of four in s1.
	res, err := e.Recall(t.Context(), core.Query{Text: "Kyoto temples cherry blossoms", TopK: 1, Context: 1})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID   string
		Role core.ContextRole
	}
	var got []row
	for _, h := range res.Hits {
		got = append(got, row{h.ID, h.ContextRole})
	}
	want := []row{{ids[1], core.RoleNeighbor}, {ids[2], core.RoleHit}, {ids[3], core.RoleNeighbor}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	// Two hits next to each other: each appears once, as a hit.
	res, err = e.Recall(t.Context(), core.Query{Text: "AI 意识 部署本地模型", TopK: 2, Context: 2, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	hits := 0
	for _, h := range res.Hits {
		seen[h.ID]++
		if h.ContextRole == core.RoleHit {
			hits++
		}
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("chunk %s appears %d times", id, n)
		}
	}
	if hits != 2 {
		t.Errorf("%d hits, want 2", hits)
	}
	// recall_by_id walks the same way.
	byID, err := e.RecallByID(t.Context(), "", ids[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(byID) != 2 || byID[0].ID != ids[0] || byID[0].ContextRole != core.RoleHit || byID[1].ID != ids[1] || byID[1].ContextRole != core.RoleNeighbor {
		t.Errorf("RecallByID(%s, 1) = %v", ids[0], byID)
	}
}

func TestNotFoundIDs(t *testing.T) {
	e := openTest(t)
	ingest(t, e, sampleMessages())
	other := sampleMessages()
	for i := range other {
		other[i].Namespace = "bob"
	}
	ingest(t, e, other)
	bobIDs := chainOf(t, e, "bob", "s1")
	for _, tt := range []struct{ name, ns, id string }{
		{"unknown", "", "zzzzzz"},
		{"malformed", "", "ABC"},
		{"empty", "", ""},
		{"other namespace", "", bobIDs[0]},
		{"unknown namespace", "carol", bobIDs[0]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.RecallByID(t.Context(), tt.ns, tt.id, 1)
			if !errors.Is(err, core.ErrNotFound) {
				t.Errorf("RecallByID(%q, %q) error %v, want ErrNotFound", tt.ns, tt.id, err)
			}
		})
	}
	if _, err := e.RecallByID(t.Context(), "bob", bobIDs[0], 0); err != nil {
		t.Errorf("bob's own chunk: %v", err)
	}
}

func TestNamespacesAreIsolated(t *testing.T) {
	e := openTest(t)
	mine := []core.Message{msg("s", time.Date(2026, 1, 2, 3, 4, 5, 0, cst), core.RoleUser, "my secret is the blue elephant")}
	mine[0].Namespace = "alice"
	ingest(t, e, mine)
	for _, ns := range []string{"", "bob"} {
		res, err := e.Recall(t.Context(), core.Query{Text: "secret blue elephant", Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 0 {
			t.Errorf("namespace %q sees %d of alice's chunks", ns, len(res.Hits))
		}
	}
	res, err := e.Recall(t.Context(), core.Query{Text: "secret blue elephant", Namespace: "alice"})
	if err != nil || len(res.Hits) != 1 {
		t.Errorf("alice's own recall: %v, %v", res, err)
	}
	if _, err := e.Recall(t.Context(), core.Query{Text: "x", Namespace: "../etc"}); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("bad namespace error %v, want ErrInvalid", err)
	}
}

func TestTimeWindowFiltersWithoutChangingScores(t *testing.T) {
	e := openTest(t)
	ingest(t, e, sampleMessages())
	all, err := e.Recall(t.Context(), core.Query{Text: "passport Kyoto trip", TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 3, 6, 0, 0, 0, 0, cst)
	scoped, err := e.Recall(t.Context(), core.Query{Text: "passport Kyoto trip", TopK: 10, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	if len(scoped.Hits) != 1 || !strings.Contains(firstText(scoped.Hits[0]), "passport") {
		t.Fatalf("scoped hits %v, want only the passport turn", scoped.Hits)
	}
	for _, h := range all.Hits {
		if h.Time.Before(since) && strings.Contains(firstText(h), "passport") {
			t.Errorf("passport turn dated before the window")
		}
	}
}

func TestIndexRepairAfterDivergence(t *testing.T) {
	for _, tt := range []struct {
		name   string
		break_ func(t *testing.T, home string)
	}{
		{"deleted", func(t *testing.T, home string) { os.RemoveAll(filepath.Join(home, indexDir)) }},
		{"truncated", func(t *testing.T, home string) {
			filepath.WalkDir(filepath.Join(home, indexDir), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					os.Truncate(p, 0)
				}
				return nil
			})
		}},
		{"emptied", func(t *testing.T, home string) {
			os.RemoveAll(filepath.Join(home, indexDir))
			cfg := core.Config{}
			cfg.Storage.Home = t.TempDir()
			// An empty index from another home stands in for a stale one.
			e, err := openWith(t, cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			e.Close()
			os.Rename(filepath.Join(cfg.Storage.Home, indexDir), filepath.Join(home, indexDir))
		}},
		{"crash between store and index", func(t *testing.T, home string) {
			// Put a chunk back in the outbox and roll the index back a
			// generation, as a crash between the two writes leaves them.
			cfg := core.Config{}
			cfg.Storage.Home = home
			st, err := store.Open(filepath.Join(home, store.FileName), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			st.Update(func(tx *store.Tx) error {
				id := tx.SessionChunkIDs("", "s2")[0]
				return tx.MarkIndexDirty(id)
			})
			st.Close()
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			e := openHome(t, home)
			ingest(t, e, sampleMessages())
			want, err := e.Recall(t.Context(), core.Query{Text: "passport", TopK: 3})
			if err != nil {
				t.Fatal(err)
			}
			e.Close()
			tt.break_(t, home)
			var logs []string
			cfg := core.Config{}
			cfg.Storage.Home = home
			e2, err := openWith(t, cfg, Options{Logf: func(f string, a ...any) { logs = append(logs, f) }})
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer e2.Close()
			if len(logs) == 0 {
				t.Errorf("repair was silent")
			}
			got, err := e2.Recall(t.Context(), core.Query{Text: "passport", TopK: 3})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Hits, got.Hits); diff != "" {
				t.Errorf("recall after repair differs (-want +got):\n%s", diff)
			}
			s := statsOf(t, e2)
			if s.IndexDocs != uint64(s.Chunks) || s.IndexGen != s.Generation || s.Pending != 0 {
				t.Errorf("after repair: %+v", s)
			}
		})
	}
}

func TestSecondProcessIsLockedOut(t *testing.T) {
	home := t.TempDir()
	openHome(t, home)
	cfg := core.Config{}
	cfg.Storage.Home = home
	_, err := openWith(t, cfg, Options{LockWait: 50 * time.Millisecond})
	if !errors.Is(err, core.ErrLocked) {
		t.Fatalf("second open error %v, want ErrLocked", err)
	}
}

func TestEmbedderChangeIsDetected(t *testing.T) {
	home := t.TempDir()
	e := openHome(t, home)
	ingest(t, e, sampleMessages())
	e.Close()
	cfg := core.Config{}
	cfg.Storage.Home = home
	cfg.Embedding.Dim = 128
	_, err := openWith(t, cfg, Options{})
	if !errors.Is(err, core.ErrEmbedderChanged) || !strings.Contains(err.Error(), "huimem reindex") {
		t.Fatalf("error %v, want ErrEmbedderChanged telling to reindex", err)
	}
	e2, err := openWith(t, cfg, Options{AllowEmbedderChange: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if _, err := e2.Ingest(t.Context(), sampleMessages()[:1]); !errors.Is(err, core.ErrEmbedderChanged) {
		t.Errorf("ingest before reindex: %v, want ErrEmbedderChanged", err)
	}
	res, err := e2.Reindex(t.Context(), ReindexOptions{})
	if err != nil || !res.Embedded || res.Chunks != 5 {
		t.Fatalf("Reindex = %+v, %v", res, err)
	}
	r, err := e2.Recall(t.Context(), core.Query{Text: "passport"})
	if err != nil || len(r.Hits) == 0 {
		t.Fatalf("recall after re-embed: %v %v", r, err)
	}
}

func TestRecallRejectsBadQueries(t *testing.T) {
	e := openTest(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, q := range []core.Query{
		{Text: "x", TopK: -1},
		{Text: "x", TopK: 5000},
		{Text: "x", Context: -2},
		{Text: "x", Since: t0, Before: t0},
		{Text: "x", Namespace: "a/b"},
	} {
		if _, err := e.Recall(t.Context(), q); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Recall(%+v) error %v, want ErrInvalid", q, err)
		}
	}
}

func TestTiesGoToTheNewerChunk(t *testing.T) {
	e := openTest(t)
	base := time.Date(2026, 2, 1, 9, 0, 0, 0, cst)
	ingest(t, e, []core.Message{
		{Session: "a", Time: base, Speaker: "X", Text: "the identical sentence"},
		{Session: "b", Time: base.Add(48 * time.Hour), Speaker: "X", Text: "the identical sentence"},
	})
	res, err := e.Recall(t.Context(), core.Query{Text: "identical sentence", TopK: 2})
	if err != nil || len(res.Hits) != 2 {
		t.Fatalf("%v %v", res, err)
	}
	if res.Hits[0].Session != "b" || res.Hits[0].Score != res.Hits[1].Score {
		t.Errorf("hits %s (%v), %s (%v): want the newer session b first with an equal score",
			res.Hits[0].Session, res.Hits[0].Score, res.Hits[1].Session, res.Hits[1].Score)
	}
}
