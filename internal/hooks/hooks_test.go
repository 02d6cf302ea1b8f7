package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/kernel"
)

func TestReadPayload(t *testing.T) {
	tests := []struct {
		name, in string
		want     Payload
		err      string
	}{
		{"claude code Stop", `{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false}`,
			Payload{SessionID: "s1", TranscriptPath: "/t.jsonl", Cwd: "/p", Event: Stop}, ""},
		{"codex UserPromptSubmit with a null transcript", `{"session_id":"s1","turn_id":"t","transcript_path":null,"cwd":"/p","hook_event_name":"UserPromptSubmit","model":"gpt-5","permission_mode":"default","prompt":"hi"}`,
			Payload{SessionID: "s1", Cwd: "/p", Event: UserPromptSubmit, Prompt: "hi"}, ""},
		{"SessionStart", `{"hook_event_name":"SessionStart","source":"compact"}`, Payload{Event: SessionStart, Source: "compact"}, ""},
		{"empty", " \n", Payload{}, "no hook input"},
		{"not JSON", `{"hook_event_name":`, Payload{}, "not a JSON object"},
		{"an array", `[]`, Payload{}, "not a JSON object"},
		{"no event", `{"session_id":"s1"}`, Payload{SessionID: "s1"}, "no hook_event_name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadPayload(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestActionOf(t *testing.T) {
	want := map[string]Action{SessionStart: Wake, UserPromptSubmit: Recall, Stop: Capture, SubagentStop: Capture,
		PreCompact: Capture, SessionEnd: Capture, "PreToolUse": Ignore, "Notification": Ignore, "stop": Ignore}
	for ev, a := range want {
		if got := ActionOf(ev); got != a {
			t.Errorf("%s: %v, want %v", ev, got, a)
		}
	}
	for _, a := range Agents {
		for _, ev := range a.Events() {
			if ActionOf(ev) == Ignore {
				t.Errorf("%s installs %s, which does nothing", a, ev)
			}
		}
	}
}

func TestProjectNamespace(t *testing.T) {
	tests := []struct{ root, prefix string }{
		{"/home/u/src/huimemory", "huimemory-"},
		{"/home/u/src/My Project (old)", "my-project-old-"},
		{"/home/u/src/项目", "project-"},
		{"/", "project-"},
		{"/x/" + strings.Repeat("ab", 40), strings.Repeat("ab", 20) + "-"},
	}
	for _, tt := range tests {
		ns := ProjectNamespace(tt.root)
		if !strings.HasPrefix(ns, tt.prefix) || len(ns) != len(tt.prefix)+8 {
			t.Errorf("%s: %q, want %s + 8 hex digits", tt.root, ns, tt.prefix)
		}
		if err := core.ValidateNamespace(ns); err != nil {
			t.Errorf("%s: %v", tt.root, err)
		}
	}
	if a, b := ProjectNamespace("/a/app"), ProjectNamespace("/b/app"); a == b {
		t.Errorf("two folders named app share %s", a)
	}
}

func TestProjectRoot(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	sub := filepath.Join(repo, "a", "b")
	plain := filepath.Join(dir, "plain")
	for _, d := range []string{filepath.Join(repo, ".git"), sub, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	real := func(p string) string { r, _ := filepath.EvalSymlinks(p); return r }
	for in, want := range map[string]string{repo: real(repo), sub: real(repo), plain: real(plain)} {
		got, err := ProjectRoot(in)
		if err != nil || got != want {
			t.Errorf("ProjectRoot(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
}

// fakeMemory holds sessions of chunks, newest first.
type fakeMemory struct {
	sessions []engine.SessionInfo
	turns    map[string][]core.Chunk
	hits     []core.Hit
	query    core.Query
}

func (m *fakeMemory) Recall(_ context.Context, q core.Query) (*core.Results, error) {
	m.query = q
	return &core.Results{Query: q.Text, Hits: m.hits}, nil
}

func (m *fakeMemory) Sessions(context.Context, string) ([]engine.SessionInfo, error) {
	return m.sessions, nil
}

func (m *fakeMemory) SessionTurns(_ context.Context, _, s string, n int) ([]core.Chunk, error) {
	c := m.turns[s]
	return c[max(len(c)-n, 0):], nil
}

func chunk(id, session string, at time.Time, prompt string, mems ...core.Memory) core.Chunk {
	return core.Chunk{Anchor: core.Anchor{ID: id}, Session: session, Time: at, End: at, File: "f.md", LineStart: 1, LineEnd: 2,
		Memories: mems,
		Messages: []core.Message{{Session: session, Time: at, Role: core.RoleUser, Text: prompt}, {Session: session, Time: at, Role: core.RoleAssistant, Text: "ok"}}}
}

func TestWakeUpWithinBudget(t *testing.T) {
	m := &fakeMemory{turns: map[string][]core.Chunk{}}
	at := time.Date(2026, 11, 17, 10, 0, 0, 0, time.UTC)
	for s := range 8 {
		name := fmt.Sprintf("s%d", s)
		m.sessions = append(m.sessions, engine.SessionInfo{Session: name, First: at, Last: at.Add(time.Hour), Chunks: 3})
		for i := range 3 {
			var mems []core.Memory
			if i == 1 {
				mems = []core.Memory{{Type: "decision", Facts: []string{fmt.Sprintf("we use plan %d", s)}}}
			}
			m.turns[name] = append(m.turns[name], chunk(fmt.Sprintf("c%d%d", s, i), name, at, strings.Repeat(fmt.Sprintf("prompt %d of session %d ", i, s), 8), mems...))
		}
	}
	for _, budget := range []int{50, 200, 600, 5000} {
		out, err := WakeUp(t.Context(), m, 5, Options{Namespace: "p-1", Budget: budget, Skip: "s0", Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		if n := kernel.EstimateTokens(out); n > max(budget, kernel.EstimateTokens(strings.SplitAfter(out, "\n")[0])) {
			t.Errorf("budget %d: %d tokens:\n%s", budget, n, out)
		}
		if strings.Contains(out, "session 0 ") {
			t.Errorf("budget %d: the skipped session is there:\n%s", budget, out)
		}
		if budget >= 200 && !strings.Contains(out, "[id:c10] \"prompt 0 of session 1") {
			t.Errorf("budget %d: no first prompt of the newest session:\n%s", budget, out)
		}
		if budget == 5000 {
			if got := strings.Count(out, "\n- 2026-11-17 Tue 10:00–11:00, 3 turns"); got != 5 {
				t.Errorf("%d sessions, want 5:\n%s", got, out)
			}
			if !strings.Contains(out, "Decisions recorded in them:\n- 2026-11-17 [id:c11] we use plan 1") {
				t.Errorf("no decisions:\n%s", out)
			}
		}
	}
	if out, err := WakeUp(t.Context(), &fakeMemory{}, 5, Options{Budget: 600}); out != "" || err != nil {
		t.Errorf("an empty memory: %q, %v", out, err)
	}
}

func TestPromptContextFloor(t *testing.T) {
	at := time.Date(2026, 11, 17, 10, 0, 0, 0, time.UTC)
	hit := func(id string, rel float64, role core.ContextRole) core.Hit {
		return core.Hit{Chunk: chunk(id, "s", at, "deploy with ollama "+id), Relevance: rel, ContextRole: role}
	}
	current := hit("ddd444", 0.9, core.RoleHit)
	current.Session = "cur"
	m := &fakeMemory{hits: []core.Hit{current, hit("aaa111", 0.8, core.RoleHit), hit("bbb222", 0.2, core.RoleHit), hit("ccc333", 0, core.RoleNeighbor), hit("eee555", 0.7, core.RoleHit)}}
	out, err := PromptContext(t.Context(), m, "how do we deploy", 1, 0.3, Options{Namespace: "p-1", Budget: 800, Skip: "cur"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "[id:aaa111 | prev: - | next: -]") || strings.Count(out, "[id:") != 2 {
		t.Errorf("want only the best hit above the floor outside the current session:\n%s", out)
	}
	if m.query.Namespace != "p-1" || m.query.TopK != 2 {
		t.Errorf("query %+v", m.query)
	}
	m.hits = m.hits[2:4]
	if out, err := PromptContext(t.Context(), m, "how do we deploy", 3, 0.3, Options{Budget: 800}); out != "" || err != nil {
		t.Errorf("nothing above the floor: %q, %v", out, err)
	}
}
