//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/internal/hooks"
)

// The agents' own session files, as core/formats reads them.
const (
	claudeTranscript = "../../core/formats/testdata/claude-code/4c1e6a9b-2f3d-4e5a-8b7c-9d0e1f2a3b4c.jsonl"
	claudeSession    = "4c1e6a9b-2f3d-4e5a-8b7c-9d0e1f2a3b4c"
	codexTranscript  = "../../core/formats/testdata/codex/rollout-2026-11-18T09-30-12-019a8f3c-7d21-7e40-b5a1-3c2d1e0f9a8b.jsonl"
	codexSession     = "019a8f3c-7d21-7e40-b5a1-3c2d1e0f9a8b"
)

// procIn runs bin with args in dir ("" for this process's), with env
// added to the environment and stdin, and returns stdout, stderr and the
// exit code.
func procIn(t *testing.T, bin, dir string, env []string, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	c.Stdin = bytes.NewReader(stdin)
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// hookProc runs `huimem --home HOME hook AGENT` as an agent does, with
// the payload on stdin, in dir.
func hookProc(t *testing.T, bin, home, dir string, env []string, agent string, payload []byte) (stdout, stderr string, code int) {
	t.Helper()
	return procIn(t, bin, dir, env, payload, "--home", home, "hook", agent)
}

// holdWriterLock takes a home's writer lock as another huimem process
// would, naming holder; release lets it go.
func holdWriterLock(t *testing.T, home, holder string) (release func()) {
	t.Helper()
	lock, err := os.OpenFile(filepath.Join(home, store.FileName+".writer"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close() })
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("flock: %v", err)
	}
	lock.WriteString(holder + "\n")
	return func() { syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }
}

// payload is a hook input as the agents write it: Claude Code's common
// fields, or Codex's (turn_id, model, a permission mode, and a
// transcript_path that may be null).
func payload(t *testing.T, agent, event, transcript, cwd string, extra map[string]any) []byte {
	t.Helper()
	p := map[string]any{"session_id": claudeSession, "transcript_path": transcript, "cwd": cwd,
		"permission_mode": "default", "hook_event_name": event}
	if agent == "codex" {
		p["session_id"], p["turn_id"], p["model"] = codexSession, "019a8f3c-0000-7000-8000-000000000001", "gpt-5-codex"
		if transcript == "" {
			p["transcript_path"] = nil
		}
	}
	for k, v := range extra {
		p[k] = v
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// homeStats reads `huimem stats --json`.
type homeStats struct {
	Chunks     int            `json:"chunks"`
	Messages   int            `json:"messages"`
	Sessions   int            `json:"sessions"`
	Namespaces map[string]int `json:"namespaces"`
}

func statsOf(t *testing.T, bin, home string) homeStats {
	t.Helper()
	out, errs, code := huimemCmd(t, nil, bin, home, "stats", "--json")
	if code != 0 {
		t.Fatalf("stats: %d %s", code, errs)
	}
	var s homeStats
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// additionalContext returns the context a SessionStart or
// UserPromptSubmit hook printed, checking the JSON both agents read.
func additionalContext(t *testing.T, event, stdout string) string {
	t.Helper()
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%s printed %q: %v", event, stdout, err)
	}
	if out.HookSpecificOutput.HookEventName != event {
		t.Errorf("hookEventName %q, want %q", out.HookSpecificOutput.HookEventName, event)
	}
	return out.HookSpecificOutput.AdditionalContext
}

// growing writes the first n lines of a session file to path, as an agent
// writes its transcript turn by turn.
func growing(t *testing.T, src, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:min(n, len(lines))], "")), 0o600); err != nil {
		t.Fatal(err)
	}
}

// project makes a git project folder with a subfolder, and returns both.
func project(t *testing.T, name string) (root, sub string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), name)
	sub = filepath.Join(root, "src")
	for _, d := range []string{filepath.Join(root, ".git"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, sub
}

// TestHookSubprocess drives `huimem hook` as Claude Code and Codex do:
// Stop captures a transcript that grows between two calls, only what is
// new and the same as `huimem ingest` would; a third Stop changes
// nothing; SessionStart wakes the next session up with anchors that
// `huimem get` reads; UserPromptSubmit adds the relevant turns, and
// nothing for a prompt about nothing stored.
func TestHookSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs huimem processes")
	}
	bin := buildHuimem(t)
	home := filepath.Join(t.TempDir(), "home")
	tests := []struct {
		agent, src, session string
		first               int // lines the first Stop sees
		prompt, context     string
	}{
		{"claude-code", claudeTranscript, claudeSession, 6, "TestIngest fails on CI", "TestIngest fails on CI about one run in five"},
		{"codex", codexTranscript, codexSession, 8, "npm run build Cannot find module routes", "Cannot find module './routes'"},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			root, sub := project(t, "shop-"+tt.agent)
			ns := hooks.ProjectNamespace(root)
			transcript := filepath.Join(t.TempDir(), filepath.Base(tt.src))
			growing(t, tt.src, transcript, tt.first)
			stop := payload(t, tt.agent, "Stop", transcript, sub, map[string]any{"stop_hook_active": false})

			var base homeStats // what the other agent's subtest stored
			if homeExists(home) {
				base = statsOf(t, bin, home)
			}
			out, errs, code := hookProc(t, bin, home, sub, nil, tt.agent, stop)
			if code != 0 || out != "" || errs != "" {
				t.Fatalf("first Stop: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			first := statsOf(t, bin, home)
			if first.Namespaces[ns] == 0 {
				t.Fatalf("the first Stop stored nothing in %s", ns)
			}
			growing(t, tt.src, transcript, 1000)
			if out, errs, code := hookProc(t, bin, home, sub, nil, tt.agent, stop); code != 0 || out != "" || errs != "" {
				t.Fatalf("second Stop: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			after := statsOf(t, bin, home)
			if after.Messages <= first.Messages {
				t.Errorf("the second Stop added nothing: %d messages, %d before", after.Messages, first.Messages)
			}
			// What two captures stored is what one ingest of the whole
			// file stores.
			ref := filepath.Join(t.TempDir(), "ref")
			if _, errs, code := huimemCmd(t, nil, bin, ref, "ingest", "-q", "-n", ns, "--format", tt.agent, transcript); code != 0 {
				t.Fatalf("reference ingest: %s", errs)
			}
			want := statsOf(t, bin, ref)
			if got := after.Namespaces[ns]; got != want.Chunks || after.Messages-base.Messages != want.Messages {
				t.Errorf("%d chunks and %d messages after two captures, %d and %d from one ingest",
					got, after.Messages-base.Messages, want.Chunks, want.Messages)
			}
			// A capture that finds nothing new changes nothing; so does
			// PreCompact or SessionEnd on the same file.
			for _, ev := range []string{"Stop", "PreCompact", "SubagentStop", "SessionEnd"} {
				if tt.agent == "codex" && ev == "SessionEnd" {
					continue
				}
				if out, errs, code := hookProc(t, bin, home, sub, nil, tt.agent, payload(t, tt.agent, ev, transcript, sub, map[string]any{"trigger": "auto", "reason": "other"})); code != 0 || out != "" || errs != "" {
					t.Fatalf("%s: exit %d, stdout %q, stderr %q", ev, code, out, errs)
				}
			}
			if again := statsOf(t, bin, home); !cmp.Equal(again, after) {
				t.Errorf("captures of an unchanged transcript changed the home: %+v, before %+v", again, after)
			}

			// The next session starts: a wake-up context with anchors.
			start := payload(t, tt.agent, "SessionStart", "", sub, map[string]any{"session_id": "next-session", "source": "startup"})
			out, errs, code = hookProc(t, bin, home, sub, nil, tt.agent, start)
			if code != 0 || errs != "" {
				t.Fatalf("SessionStart: exit %d, stderr %q", code, errs)
			}
			wake := additionalContext(t, "SessionStart", out)
			if !strings.Contains(wake, ns) || !strings.Contains(wake, tt.context) {
				t.Errorf("wake-up context:\n%s", wake)
			}
			id := anchorIn(t, wake)
			if out, errs, code := huimemCmd(t, nil, bin, home, "get", "-n", ns, id); code != 0 || !strings.Contains(out, "[id:"+id) {
				t.Errorf("get %s: exit %d: %s %s", id, code, out, errs)
			}
			// The session being resumed is left out: the agent has it.
			resume := payload(t, tt.agent, "SessionStart", transcript, sub, map[string]any{"source": "resume"})
			if out, errs, code := hookProc(t, bin, home, sub, nil, tt.agent, resume); code != 0 || out != "" || errs != "" {
				t.Errorf("SessionStart resuming the only session: exit %d, stdout %q, stderr %q", code, out, errs)
			}

			// A prompt about something stored gets it, with anchors.
			ask := payload(t, tt.agent, "UserPromptSubmit", "", sub, map[string]any{"session_id": "next-session", "prompt": tt.prompt})
			out, errs, code = hookProc(t, bin, home, sub, nil, tt.agent, ask)
			if code != 0 || errs != "" {
				t.Fatalf("UserPromptSubmit: exit %d, stderr %q", code, errs)
			}
			recalled := additionalContext(t, "UserPromptSubmit", out)
			if !strings.Contains(recalled, tt.context) || !strings.Contains(recalled, "[id:"+anchorIn(t, recalled)+" | prev:") {
				t.Errorf("prompt context:\n%s", recalled)
			}
			// A prompt about nothing stored gets nothing.
			offTopic := payload(t, tt.agent, "UserPromptSubmit", "", sub, map[string]any{"session_id": "next-session", "prompt": "what is the capital of Peru"})
			if out, errs, code := hookProc(t, bin, home, sub, nil, tt.agent, offTopic); code != 0 || out != "" || errs != "" {
				t.Errorf("an off-topic prompt: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			// Another project sees none of it.
			other, _ := project(t, "elsewhere")
			if out, errs, code := hookProc(t, bin, home, other, nil, tt.agent, payload(t, tt.agent, "SessionStart", "", other, map[string]any{"source": "startup"})); code != 0 || out != "" {
				t.Errorf("SessionStart in another project: exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}

// anchorIn returns the first [id:...] anchor in text that names a turn.
func anchorIn(t *testing.T, text string) string {
	t.Helper()
	for rest := text; ; {
		_, after, ok := strings.Cut(rest, "[id:")
		if !ok {
			t.Fatalf("no anchor in:\n%s", text)
		}
		if id := strings.FieldsFunc(after, func(r rune) bool { return r == ' ' || r == ']' || r == '|' })[0]; id != "…" {
			return id
		}
		rest = after
	}
}

// TestHookFailures: whatever goes wrong, a hook exits 1 (never 2, which
// Claude Code reads as "block the prompt") with one line on stderr and
// nothing on stdout, and loses nothing: the next capture takes what a
// failed one missed. An event it does not act on exits 0.
func TestHookFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs huimem processes")
	}
	bin := buildHuimem(t)
	root, sub := project(t, "app")
	ns := hooks.ProjectNamespace(root)
	home := filepath.Join(t.TempDir(), "home")
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	growing(t, claudeTranscript, transcript, 6)
	stop := payload(t, "claude-code", "Stop", transcript, sub, nil)
	if _, errs, code := hookProc(t, bin, home, sub, nil, "claude-code", stop); code != 0 {
		t.Fatalf("Stop: %d %s", code, errs)
	}
	before := statsOf(t, bin, home)
	badConfig := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(badConfig, []byte("retriever: {top_k: -1}\n"), 0o600)
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o600)

	tests := []struct {
		name    string
		args    []string // after the binary; nil: --home HOME hook claude-code
		env     []string
		payload []byte
		code    int
		stderr  string
	}{
		{name: "input that is not JSON", payload: []byte(`{"hook_event_name": "Stop", `), code: 1, stderr: "not a JSON object"},
		{name: "no input", payload: nil, code: 1, stderr: "no hook input"},
		{name: "no event", payload: []byte(`{"session_id": "s"}`), code: 1, stderr: "no hook_event_name"},
		{name: "an unknown agent", args: []string{"--home", home, "hook", "cursor"}, payload: stop, code: 1, stderr: `unknown agent "cursor"`},
		{name: "no agent", args: []string{"--home", home, "hook"}, payload: stop, code: 1, stderr: "give the agent"},
		{name: "a bad flag", args: []string{"--home", home, "hook", "--bogus", "claude-code"}, payload: stop, code: 1, stderr: "unknown flag"},
		{name: "a bad config", args: []string{"--home", home, "--config", badConfig, "hook", "claude-code"}, payload: stop, code: 1, stderr: "retriever.top_k"},
		{name: "a missing transcript", payload: payload(t, "claude-code", "Stop", filepath.Join(sub, "gone.jsonl"), sub, nil), code: 1, stderr: "no such file"},
		{name: "no transcript_path", payload: payload(t, "codex", "Stop", "", sub, nil), args: []string{"--home", home, "hook", "codex"}, code: 1, stderr: "no transcript_path"},
		{name: "a transcript that is not one", payload: payload(t, "claude-code", "Stop", badConfig, sub, nil), code: 1, stderr: "bad.yaml"},
		{name: "a home that cannot be made", args: []string{"--home", filepath.Join(file, "home"), "hook", "claude-code"}, payload: stop, code: 1, stderr: "hook claude-code: Stop:"},
		{name: "an event it does not act on", payload: payload(t, "claude-code", "PreToolUse", transcript, sub, map[string]any{"tool_name": "Bash"}), code: 0, stderr: "nothing to do for PreToolUse"},
		{name: "a bad namespace", env: []string{"HUIMEM_HOOKS_NAMESPACE=a b"}, payload: stop, code: 1, stderr: "hooks.namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == nil {
				args = []string{"--home", home, "hook", "claude-code"}
			}
			out, errs, code := procIn(t, bin, sub, tt.env, tt.payload, args...)
			if code != tt.code || out != "" {
				t.Errorf("exit %d, stdout %q; want %d and nothing", code, out, tt.code)
			}
			if lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n"); len(lines) != 1 || !strings.Contains(lines[0], tt.stderr) {
				t.Errorf("stderr %q, want one line with %q", errs, tt.stderr)
			}
		})
	}
	if after := statsOf(t, bin, home); !cmp.Equal(after, before) {
		t.Errorf("the failures changed the home: %+v, before %+v", after, before)
	}

	// A home whose writer is busy for longer than hooks.lock_wait: the
	// capture gives up at once, and the next one takes it all.
	release := holdWriterLock(t, home, "huimem ingest (pid 1)")
	growing(t, claudeTranscript, transcript, 1000)
	_, errs, code := hookProc(t, bin, home, sub, []string{"HUIMEM_HOOKS_LOCK_WAIT=200ms"}, "claude-code", stop)
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "huimem ingest") || !strings.Contains(errs, "next capture") {
		t.Errorf("Stop on a busy home: exit %d, stderr %q", code, errs)
	}
	// Reading goes on beside the writer.
	start := payload(t, "claude-code", "SessionStart", "", sub, map[string]any{"session_id": "next", "source": "startup"})
	if out, errs, code := hookProc(t, bin, home, sub, []string{"HUIMEM_HOOKS_LOCK_WAIT=200ms"}, "claude-code", start); code != 0 || !strings.Contains(out, "additionalContext") {
		t.Errorf("SessionStart beside a writer: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	release()
	if _, errs, code := hookProc(t, bin, home, sub, nil, "claude-code", stop); code != 0 {
		t.Fatalf("Stop after the writer: %d %s", code, errs)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	huimemCmd(t, nil, bin, ref, "ingest", "-q", "-n", ns, transcript)
	if got, want := statsOf(t, bin, home).Namespaces[ns], statsOf(t, bin, ref).Chunks; got != want {
		t.Errorf("%d chunks after the skipped capture and the next, want %d", got, want)
	}
	// Reading a home that does not exist yet is nothing to say.
	if out, errs, code := hookProc(t, bin, filepath.Join(t.TempDir(), "none"), sub, nil, "claude-code", start); code != 0 || out != "" || errs != "" {
		t.Errorf("SessionStart without a home: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestHookReadOnlyHome: on a home the agent's user may not write, a
// capture fails with one line and exit 1, the wake-up context still
// reads, and once the home is writable again the next capture takes
// everything.
func TestHookReadOnlyHome(t *testing.T) {
	huimem, dir := asNobody(t)
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o777)
	transcript := filepath.Join(dir, "session.jsonl")
	growing(t, claudeTranscript, transcript, 6)
	os.Chmod(transcript, 0o644)
	stop := payload(t, "claude-code", "Stop", transcript, proj, nil)
	hook := func(input []byte) (string, string, int) {
		c := huimem("--home", home, "hook", "claude-code")
		c.Dir, c.Stdin = proj, bytes.NewReader(input)
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		code := 0
		if ee, ok := c.Run().(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return out.String(), errb.String(), code
	}
	if _, errs, code := hook(stop); code != 0 {
		t.Fatalf("Stop: %d %s", code, errs)
	}
	if out, err := exec.Command("chmod", "-R", "a-w", home).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v %s", err, out)
	}
	growing(t, claudeTranscript, transcript, 1000)
	if out, errs, code := hook(stop); code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "read-only") {
		t.Errorf("Stop on a read-only home: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	start := payload(t, "claude-code", "SessionStart", "", proj, map[string]any{"session_id": "next", "source": "startup"})
	if out, errs, code := hook(start); code != 0 || !strings.Contains(additionalContext(t, "SessionStart", out), "TestIngest fails on CI") {
		t.Errorf("SessionStart on a read-only home: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	exec.Command("chmod", "-R", "u+w", home).Run()
	if _, errs, code := hook(stop); code != 0 {
		t.Fatalf("Stop once the home is writable: %d %s", code, errs)
	}
	out, code := runOut(t, huimem("--home", home, "recall", "-n", hooks.ProjectNamespace(realPath(t, proj)), "Remove the go statement"))
	if code != 0 || !strings.Contains(out, "Line 86 starts a second") {
		t.Errorf("the turns the read-only capture missed: exit %d:\n%s", code, out)
	}
}
