package llm_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-plugin"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/extractor/llm"
	"github.com/huimemory/huimemory/plugins/host"
)

// build holds the huimem binary, built at the first process test: it
// serves the built-in extractor as a real subprocess, as
// `huimem plugin serve extractor llm`. Fuzz workers never build it.
var build struct {
	once      sync.Once
	dir, path string
	err       error
}

func huimemBin(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		if build.dir, build.err = os.MkdirTemp("", "huimem-llm-test-"); build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "huimem")
		out, err := exec.Command("go", "build", "-o", build.path, "github.com/huimemory/huimemory/cmd/huimem").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("building huimem: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	plugin.CleanupClients()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// processHost starts a plugin host whose llm extractor is a huimem
// subprocess talking to srv.
func processHost(t *testing.T, srv *fakeChat, timeout time.Duration, options map[string]string) core.Extractor {
	t.Helper()
	var cfg core.Config
	cfg.Storage.Home = t.TempDir()
	cfg.Plugins.Timeout = timeout
	cfg.Plugins.Subprocess = true // a real plugin process, not the in-process default
	opts := map[string]string{"base_url": srv.URL, "model": "fake-chat"}
	for k, v := range options {
		opts[k] = v
	}
	cfg.Extractors = []core.PluginSpec{{Name: llm.Name, Options: opts}}
	cfg.SetDefaults()
	h, err := host.New(t.Context(), cfg, host.Options{Executable: huimemBin(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	st := h.Check(t.Context())
	if len(st) != 3 || st[2].Kind != host.KindExtractor || st[2].InProcess || st[2].Err != nil || st[2].Info.Name != llm.Name {
		t.Fatalf("the llm extractor is not a running process: %+v", st)
	}
	return h.Extractors()[0]
}

func TestProcess(t *testing.T) {
	// The key travels by the variable's name; the plugin process reads it
	// from its inherited environment.
	t.Setenv("HUIMEM_TEST_LLM_KEY", "sk-process")
	srv := newFakeChat(t, reply{echo: true}, reply{status: 500}, reply{echo: true}, reply{content: `{"memories": [{"type": "fact", "facts": ["x"]}]}`})
	x := processHost(t, srv, 0, map[string]string{"max_retries": "1", "api_key_env": "HUIMEM_TEST_LLM_KEY"})

	mems, err := x.Extract(t.Context(), sample())
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Memory{{Type: "decision", Facts: []string{"Alice: 我们决定五月去京都，我更喜欢住在岚山附近。"}, Topic: "echo", Extractor: "llm"}}
	if d := cmp.Diff(want, mems); d != "" {
		t.Errorf("memories (-want +got):\n%s", d)
	}
	// 500, then the retry inside the plugin succeeds.
	if mems, err := x.Extract(t.Context(), sample()); err != nil || len(mems) != 1 {
		t.Errorf("after a 500: %+v, %v", mems, err)
	}
	// A bad answer is the plugin's error on that chunk, and the plugin
	// keeps running.
	_, err = x.Extract(t.Context(), sample())
	const bad = `bad answer from the model: memory 1: type "fact" is not one of decision, preference, milestone, problem, emotional`
	if err == nil || !strings.Contains(err.Error(), where+bad) {
		t.Errorf("error %v\nwant it to contain %s", err, where+bad)
	}
	for i, c := range srv.requests() {
		if c.auth != "Bearer sk-process" {
			t.Errorf("request %d: Authorization %q", i+1, c.auth)
		}
	}
	if n := len(srv.requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}

// TestProcessTimeout: a model slower than plugins.timeout gives the
// extractor's own error, in time, not a plugin killed for hanging.
func TestProcessTimeout(t *testing.T) {
	srv := newFakeChat(t, reply{hang: true}, reply{content: `{"memories": []}`})
	x := processHost(t, srv, 2*time.Second, nil)
	_, err := x.Extract(t.Context(), sample())
	if err == nil || !strings.Contains(err.Error(), where+"POST "+srv.URL+"/v1/chat/completions: no answer within") ||
		!strings.Contains(err.Error(), "not retried: the call's deadline is") {
		t.Fatalf("error %v: want the extractor's own timeout", err)
	}
	if errors.Is(err, host.ErrTimeout) {
		t.Errorf("the host took the slow model for a hung plugin: %v", err)
	}
	// The same process answers the next call.
	if mems, err := x.Extract(t.Context(), sample()); err != nil || len(mems) != 0 {
		t.Errorf("next call: %+v, %v", mems, err)
	}
}
