package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/proxy/proxytest"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/gobuild"
	"github.com/huimemory/huimemory/plugins/host"
)

// huimem is the real binary, built once by TestMain.
var huimem string

func TestMain(m *testing.M) { gobuild.Main(m, "../../cmd/huimem", "huimem", &huimem) }

const token = "example-secret-token-0123"

var serving = regexp.MustCompile(`serving takeover on (http://[0-9.:]+)`)

// serve starts `huimem serve --mode takeover` on home in front of
// upstream and returns its base URL and a function that stops it and
// returns its stderr.
func serve(t *testing.T, home, upstream string) (string, func() string) {
	t.Helper()
	cmd := exec.Command(huimem, "--home", home, "serve", "--mode", "takeover", "--upstream", upstream, "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "HUIMEM_SERVER_TOKEN="+token)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log strings.Builder
	urlc := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
	}()
	stopped := false
	stop := func() string {
		if !stopped {
			stopped = true
			cmd.Process.Signal(os.Interrupt)
			<-done
			if err := cmd.Wait(); err != nil {
				t.Errorf("huimem serve: %v", err)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}
	t.Cleanup(func() { stop() })
	select {
	case u := <-urlc:
		return u + "/v1", stop
	case <-done:
		t.Fatalf("huimem serve exited:\n%s", stop())
	case <-time.After(60 * time.Second):
		t.Fatalf("huimem serve did not start:\n%s", stop())
	}
	return "", stop
}

func TestTakeoverDemoAgainstRealServe(t *testing.T) {
	var mu sync.Mutex
	var s3System, s3Tool string
	llm := proxytest.New(t, func(r proxytest.Request) proxytest.Reply {
		last := r.Last()
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "dinner recipes"):
			mu.Lock()
			s3System = r.System()
			mu.Unlock()
			return proxytest.Reply{ToolCalls: []proxytest.ToolCall{{ID: "call_1", Name: tools.RecallMemory, Arguments: `{"query":"allergic"}`}}}
		case last.Role == "tool":
			mu.Lock()
			s3Tool = last.Content
			mu.Unlock()
			if strings.Contains(last.Content, "peanuts") {
				return proxytest.Reply{Content: "Since you're allergic to peanuts: try bacalhau à brás, no peanuts. [id:…]"}
			}
			return proxytest.Reply{Content: "I don't remember any allergy."}
		}
		return proxytest.Reply{Content: "Noted."}
	})
	home := t.TempDir()
	url, stop := serve(t, home, llm.URL())

	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"-base-url", url, "-token", token, "-model", "fake-model", "-demo"}, &out, &errb); code != 0 {
		t.Fatalf("demo: exit %d: %s\n%s", code, errb.String(), out.String())
	}
	wantOut := `[s1-moving] user: I just moved to Lisbon and I'm allergic to peanuts, so keep that in mind for recipes.
[s1-moving] assistant: Noted.
[s2-work] user: Our deployment moved to Friday because the staging cluster ran out of GPU memory.
[s2-work] assistant: Noted.
[s3-dinner] user: Any ideas for dinner recipes? Remember what I'm allergic to.
[s3-dinner] assistant: Since you're allergic to peanuts: try bacalhau à brás, no peanuts. [id:…]
`
	if d := cmp.Diff(wantOut, out.String()); d != "" {
		t.Errorf("demo output (-want +got):\n%s", d)
	}
	if !strings.Contains(s3System, "allergic to peanuts") || !strings.Contains(s3System, "chat_s1-moving.md") {
		t.Errorf("session 3's system message does not recall session 1:\n%s", s3System)
	}
	if !strings.Contains(s3Tool, "[id:") || !strings.Contains(s3Tool, "peanuts") {
		t.Errorf("recall_memory's result has no anchor or fact:\n%s", s3Tool)
	}
	for i, r := range llm.Requests() {
		if r.Model != "fake-model" {
			t.Errorf("request %d: model %q", i, r.Model)
		}
		if i == len(llm.Requests())-1 && !r.Stream {
			t.Errorf("session 3 was not streamed upstream")
		}
	}

	// A dead upstream: the host gets an error, the message is kept.
	llm.Close()
	out.Reset()
	errb.Reset()
	if code := run(t.Context(), []string{"-base-url", url, "-token", token, "-session", "s4-down", "Is anyone there?"}, &out, &errb); code != 1 {
		t.Errorf("dead upstream: exit %d, stderr %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "502") || !strings.Contains(errb.String(), "upstream_unreachable") {
		t.Errorf("dead upstream stderr: %s", errb.String())
	}

	// After the server stops, every message is on disk, once.
	stop()
	// The embedder as `huimem serve` chose it: use-lite when its weights
	// are installed, else hash.
	cfg := core.Config{Storage: core.StorageConfig{Home: home}, Embedding: core.EmbeddingConfig{PluginSpec: core.PluginSpec{Name: host.EmbedderAuto}}}
	e, err := host.Open(t.Context(), cfg, engine.Options{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	want := map[string][]string{
		"s1-moving": {"user: I just moved to Lisbon and I'm allergic to peanuts, so keep that in mind for recipes.", "assistant: Noted."},
		"s3-dinner": {"user: Any ideas for dinner recipes? Remember what I'm allergic to.", "assistant: Since you're allergic to peanuts: try bacalhau à brás, no peanuts. [id:…]"},
		"s4-down":   {"user: Is anyone there?"},
	}
	for s, w := range want {
		turns, err := e.SessionTurns(t.Context(), "", s, 0)
		if err != nil {
			t.Errorf("session %s: %v", s, err)
			continue
		}
		var got []string
		for _, c := range turns {
			for _, m := range c.Messages {
				got = append(got, string(m.Role)+": "+m.Text)
			}
		}
		if d := cmp.Diff(w, got); d != "" {
			t.Errorf("session %s (-want +got):\n%s", s, d)
		}
	}
}

func TestTakeoverBadCommandLines(t *testing.T) {
	for _, args := range [][]string{{}, {"-session", "x"}, {"hello"}, {"-demo", "hello"}, {"-nope"}} {
		var out, errb bytes.Buffer
		if code := run(t.Context(), args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
