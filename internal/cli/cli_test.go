package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/render"
)

// run executes one huimem command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Huimem.Run(ctx, args, stdin, stdout, stderr)
}

// cli runs one command line in process against home.
func cli(t *testing.T, home string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	full := append([]string{"--home", home}, args...)
	code = run(t.Context(), full, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

const sampleFile = "../../examples/quickstart/conversation.jsonl"

func ingested(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if out, errs, code := cli(t, home, "ingest", sampleFile); code != 0 {
		t.Fatalf("ingest: code %d, %s %s", code, out, errs)
	}
	return home
}

func TestRecallTextAndJSON(t *testing.T) {
	home := ingested(t)
	out, errs, code := cli(t, home, "recall", "--top-k", "1", "AI 意识")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "[id:") || !strings.Contains(lines[0], "| prev: - | next: ") || !strings.Contains(lines[0], "相似度: ") {
		t.Errorf("anchor line %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "📁 2026-W25/2026-06-18/chat_ai-consciousness.md:L9-L13 | 话题: ") {
		t.Errorf("file line %q", lines[1])
	}
	if !strings.Contains(out, "  10 | 你觉得 AI 意识 是真的存在吗？") {
		t.Errorf("numbered text missing:\n%s", out)
	}

	out, _, code = cli(t, home, "recall", "--json", "--top-k", "1", "--context", "1", "Kyoto temples")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	var res render.JSONResults
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("bad JSON %v:\n%s", err, out)
	}
	if res.Query != "Kyoto temples" || len(res.Results) == 0 {
		t.Fatalf("results %+v", res)
	}
	var raw map[string]any
	json.Unmarshal([]byte(out), &raw)
	first := raw["results"].([]any)[0].(map[string]any)
	for _, key := range []string{"id", "prev", "next", "session", "time", "file", "line_start", "line_end", "topic", "score", "scores", "context_role", "refs", "messages"} {
		if _, ok := first[key]; !ok {
			t.Errorf("result lacks %q: %v", key, first)
		}
	}
	msg := first["messages"].([]any)[0].(map[string]any)
	for _, key := range []string{"role", "speaker", "time", "text", "ref"} {
		if _, ok := msg[key]; !ok {
			t.Errorf("message lacks %q: %v", key, msg)
		}
	}
	roles := map[string]int{}
	for _, r := range res.Results {
		roles[string(r.ContextRole)]++
		if len(r.Refs) == 0 {
			t.Errorf("result %s has no refs", r.ID)
		}
	}
	if roles["hit"] != 1 || roles["neighbor"] == 0 {
		t.Errorf("roles %v, want 1 hit and its neighbours", roles)
	}
}

func TestGetWalksAnchors(t *testing.T) {
	home := ingested(t)
	out, _, _ := cli(t, home, "recall", "--json", "--top-k", "1", "ryokan near Gion")
	var res render.JSONResults
	json.Unmarshal([]byte(out), &res)
	hit := res.Results[0]
	out, errs, code := cli(t, home, "get", "--json", hit.Prev)
	if code != 0 {
		t.Fatalf("get prev: %d %s", code, errs)
	}
	var prev render.JSONResults
	json.Unmarshal([]byte(out), &prev)
	if len(prev.Results) != 1 || prev.Results[0].Next != hit.ID {
		t.Errorf("prev of %s is %+v, want its next to point back", hit.ID, prev.Results)
	}
	out, _, code = cli(t, home, "get", "--context", "1", hit.ID)
	if code != 0 || strings.Count(out, "[id:") != 2 || strings.Contains(out, "相似度") {
		t.Errorf("get --context 1: code %d\n%s", code, out)
	}
}

func TestErrorsAreOneLineWithExitCodes(t *testing.T) {
	home := ingested(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"session":"s","time":"2026-01-01T00:00:00Z","role":"user","text":"ok"}`+"\n"+`{"session":"s",`+"\n"), 0o600)
	for _, tt := range []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"unknown id", []string{"get", "zzzzzz"}, exitNotFound, `chunk "zzzzzz": not found in the default namespace`},
		{"malformed id", []string{"get", "../x"}, exitNotFound, "not found"},
		{"no query", []string{"recall"}, exitUsage, "recall: requires at least 1 arg"},
		{"bad flag", []string{"recall", "--top-k", "x", "q"}, exitUsage, `invalid argument "x"`},
		{"bad top-k", []string{"recall", "--top-k", "5000", "q"}, exitUsage, "top_k 5000"},
		{"bad since", []string{"recall", "--since", "someday", "q"}, exitUsage, `--since "someday"`},
		{"bad namespace", []string{"recall", "-n", "a/b", "q"}, exitUsage, "namespace"},
		{"bad line", []string{"ingest", bad}, exitUsage, bad + ":2: invalid JSON"},
		{"missing file", []string{"ingest", filepath.Join(dir, "nope.jsonl")}, exitUsage, "no such file"},
		{"unknown command", []string{"frobnicate"}, exitError, `unknown command "frobnicate"`},
		{"add without session", []string{"add", "--role", "user", "hi"}, exitError, `"session" not set`},
		{"add bad role", []string{"add", "--session", "s", "--role", "robot", "hi"}, exitUsage, `unknown role "robot"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, code := cli(t, home, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, errs)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "huimem: ") {
				t.Errorf("stderr is not one line: %q", errs)
			}
			if !strings.Contains(errs, tt.wantErr) {
				t.Errorf("stderr %q, want %q", errs, tt.wantErr)
			}
			if strings.Contains(errs, "goroutine ") || strings.Contains(errs, ".go:") {
				t.Errorf("stack trace on stderr: %q", errs)
			}
		})
	}
	// Nothing from the bad file was stored.
	out, _, _ := cli(t, home, "stats", "--json")
	var s struct{ Messages int }
	json.Unmarshal([]byte(out), &s)
	if s.Messages != 22 {
		t.Errorf("messages = %d after a failed ingest, want 22", s.Messages)
	}
}

func TestAddIngestIsIdempotentAndStats(t *testing.T) {
	home := t.TempDir()
	for i := 0; i < 2; i++ {
		out, errs, code := cli(t, home, "add", "--session", "s1", "--role", "user", "--speaker", "Bob", "--time", "2026-04-06 10:00", "we decided to use bbolt")
		if code != 0 {
			t.Fatalf("add: %d %s", code, errs)
		}
		if i == 1 && !strings.Contains(out, "already stored") {
			t.Errorf("second add: %q", out)
		}
	}
	out, _, code := cli(t, home, "ingest", sampleFile, sampleFile)
	if code != 0 || !strings.Contains(out, "unchanged since it was last ingested") {
		t.Errorf("ingesting a file twice: %d %q", code, out)
	}
	out, _, _ = cli(t, home, "stats")
	for _, want := range []string{"chunks:     12", "messages:   23", "sessions:   6", "hash (fnv1a",
		"floor:      nothing found unless relevance reaches 0.3 (from 500 chunks)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	t.Setenv("HUIMEM_RETRIEVER_FLOOR_SIMILARITY", "2,0.4")
	out, _, _ = cli(t, home, "stats")
	if want := "floor:      nothing found unless relevance + 2 × (cosine − 0.4) reaches 0.3"; !strings.Contains(out, want) {
		t.Errorf("stats with floor_similarity 2,0.4 lacks %q:\n%s", want, out)
	}
}

func TestInitReindexAndConfig(t *testing.T) {
	home := ingested(t)
	out, _, code := cli(t, home, "init")
	if code != 0 || !strings.Contains(out, "config: ") {
		t.Errorf("init: %d %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(home, "config.yaml")); err != nil {
		t.Errorf("init wrote no config: %v", err)
	}
	os.RemoveAll(filepath.Join(home, "index"))
	out, _, code = cli(t, home, "reindex")
	if code != 0 || !strings.Contains(out, "indexed 11 chunks") {
		t.Errorf("reindex: %d %q", code, out)
	}
	t.Setenv("HUIMEM_RETRIEVER_TOP_K", "7")
	out, _, code = cli(t, home, "config")
	if code != 0 || !strings.Contains(out, "top_k: 7") || !strings.Contains(out, "home: "+home) {
		t.Errorf("config: %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("retriver:\n  top_k: 3\n"), 0o600)
	_, errs, code := cli(t, home, "stats")
	if code != exitUsage || !strings.Contains(errs, "retriver") {
		t.Errorf("a misspelt config key: %d %q", code, errs)
	}
}

func TestDemo(t *testing.T) {
	out, errs, code := cli(t, t.TempDir(), "demo")
	if code != 0 {
		t.Fatalf("demo: %d %s", code, errs)
	}
	for _, want := range []string{"ingested 22 messages", "你觉得 AI 意识", "OLLAMA_NUM_PARALLEL=1", "quiet temples", "recall_by_id"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
}

func TestTimeCommand(t *testing.T) {
	home := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"time", "--json", "--now", "2026-11-29T15:00:00+08:00", "上周三下午"},
			`{"start":"2026-11-18T12:00:00+08:00","end":"2026-11-18T18:00:00+08:00","granularity":"hour","fuzzy":false,"text":"上周三下午"}`, 0},
		{[]string{"time", "--json", "--now", "2026-11-30T09:00:00-05:00", "last", "week"},
			`{"start":"2026-11-23T00:00:00-05:00","end":"2026-11-30T00:00:00-05:00","granularity":"week","fuzzy":false,"text":"last week"}`, 0},
		{[]string{"time", "--now", "2026-11-29T15:00:00+08:00", "前段时间"}, "(fuzzy)", 0},
		{[]string{"time", "2月30日"}, `invalid date "2月30日"`, exitUsage},
		{[]string{"time", "hello"}, `no time phrase in "hello"`, exitUsage},
		{[]string{"time", "--now", "tomorrowish", "today"}, `--now "tomorrowish"`, exitUsage},
	} {
		out, errs, code := cli(t, home, tt.args...)
		if code != tt.code || !strings.Contains(out+errs, tt.want) {
			t.Errorf("%v: code %d, out %q, err %q; want %d and %q", tt.args, code, out, errs, tt.code, tt.want)
		}
	}
}

func TestRecallTimeFilterAndBatch(t *testing.T) {
	home := ingested(t)
	now := "2026-11-29T15:00:00+08:00"
	out, errs, code := cli(t, home, "recall", "--json", "--now", now, "上周三下午部署的时候出了什么问题")
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	var res render.JSONResults
	json.Unmarshal([]byte(out), &res)
	if res.ResolvedTime == nil || res.ResolvedTime.Text != "上周三下午" || len(res.Results) == 0 || res.Results[0].Session != "deploy-bug" {
		t.Errorf("time-scoped recall: %+v", res)
	}
	out, _, _ = cli(t, home, "recall", "--json", "--now", now, "--no-time", "上周三下午部署的时候出了什么问题")
	res = render.JSONResults{}
	json.Unmarshal([]byte(out), &res)
	if res.ResolvedTime != nil {
		t.Errorf("--no-time resolved %+v", res.ResolvedTime)
	}
	out, _, _ = cli(t, home, "recall", "--json", "--now", now, "最近聊过的书")
	res = render.JSONResults{}
	json.Unmarshal([]byte(out), &res)
	if res.ResolvedTime == nil || !res.ResolvedTime.Fuzzy || len(res.ScannedWeeks) == 0 || res.ScannedWeeks[0] != "2026-W48" {
		t.Errorf("fuzzy recall: resolved %+v, scanned %v", res.ResolvedTime, res.ScannedWeeks)
	}
	out, _, code = cli(t, home, "recall", "--json", "--filter", "session = 'kyoto-trip' AND role = 'user'", "--top-k", "10", "Kyoto ryokan")
	res = render.JSONResults{}
	json.Unmarshal([]byte(out), &res)
	if code != 0 || len(res.Results) != 2 {
		t.Errorf("filtered recall: %d results", len(res.Results))
	}
	_, errs, code = cli(t, home, "recall", "--filter", "session = 'a' ANDD x", "q")
	if code != exitUsage || !strings.Contains(errs, `filter: unexpected "ANDD" at column 15`) {
		t.Errorf("bad filter: %d %q", code, errs)
	}

	qfile := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(qfile, []byte(`{"id":"a","query":"AI 意识","top_k":1}
not json
{"id":"c","query":"ryokan","top_k":2,"now":"2026-11-29"}
`), 0o600)
	out, errs, code = cli(t, home, "recall", "--json", "--batch", qfile)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitError || len(lines) != 3 || errs != "huimem: 1 of 3 queries failed; see their \"error\" fields\n" {
		t.Fatalf("batch: code %d, %d lines, stderr %q", code, len(lines), errs)
	}
	var l2 struct {
		Line  int    `json:"line"`
		Error string `json:"error"`
	}
	json.Unmarshal([]byte(lines[1]), &l2)
	if l2.Line != 2 || l2.Error == "" {
		t.Errorf("bad line result %s", lines[1])
	}
	var l3 struct {
		ID      string
		Results []struct{ Refs []string }
	}
	json.Unmarshal([]byte(lines[2]), &l3)
	if l3.ID != "c" || len(l3.Results) != 2 || len(l3.Results[0].Refs) == 0 {
		t.Errorf("third line %s", lines[2])
	}
	if _, errs, code := cli(t, home, "recall", "--batch", qfile); code != exitUsage || !strings.Contains(errs, "add --json") {
		t.Errorf("batch without --json: %d %q", code, errs)
	}
}

func TestProgressLine(t *testing.T) {
	r := core.Round{Week: "2026-W47", Start: time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Hits: make([]core.Hit, 3)}
	if got, want := progressLine(r), "scanning 2026-W47 (2026-11-16 .. 2026-11-22): 3 hits"; got != want {
		t.Errorf("progressLine = %q, want %q", got, want)
	}
}

func TestPluginNamedByItsCommand(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("embedding:\n  command: /opt/bin/my-embedder\n  args: [--fast]\n"), 0o600)
	out, errs, code := cli(t, home, "config")
	if code != 0 || !strings.Contains(out, "name: my-embedder") || !strings.Contains(out, "command: /opt/bin/my-embedder") {
		t.Errorf("config: %d %q\n%s", code, errs, out)
	}
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("embedding:\n  name: mine\n  command: /opt/bin/my-embedder\n"), 0o600)
	if out, _, _ := cli(t, home, "config"); !strings.Contains(out, "name: mine") {
		t.Errorf("an explicit name was replaced:\n%s", out)
	}
}
