package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core/proxy"
	"github.com/huimemory/huimemory/core/proxy/proxytest"
	"github.com/huimemory/huimemory/core/tools"
)

var servingLine = regexp.MustCompile(`serving (\w+) on (http://[0-9.:]+)`)

// serveInProcess runs `huimem serve` with args until the test ends and
// returns the mode it reports and its base URL.
func serveInProcess(t *testing.T, home string, args ...string) (mode, url string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		full := append([]string{"--home", home, "serve", "--addr", "127.0.0.1:0"}, args...)
		done <- run(ctx, full, strings.NewReader(""), io.Discard, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited with %d:\n%s", code, stderr.String())
		}
	})
	for range 500 {
		if m := servingLine.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], m[2]
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("serve exited with %d:\n%s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not start:\n%s", stderr.String())
	return "", ""
}

func TestServeTakeoverProxy(t *testing.T) {
	home := ingested(t)
	llm := proxytest.New(t, func(r proxytest.Request) proxytest.Reply {
		if strings.Contains(r.System(), "[id:") {
			return proxytest.Reply{Content: "I remember that conversation."}
		}
		return proxytest.Reply{Content: "I have no memory of it."}
	})
	t.Setenv("TEST_UPSTREAM_KEY", "sk-upstream")
	t.Setenv("HUIMEM_TAKEOVER_API_KEY_ENV", "TEST_UPSTREAM_KEY")
	mode, url := serveInProcess(t, home, "--mode", "takeover", "--upstream", llm.URL())
	if mode != "takeover" {
		t.Errorf("serving %q", mode)
	}
	body, _ := json.Marshal(map[string]any{"model": "fake", "messages": []any{map[string]any{"role": "user", "content": "你觉得 AI 意识是真的吗？"}}})
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set(proxy.HeaderSession, "takeover-cli")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(out), "I remember that conversation.") {
		t.Fatalf("%d %s", resp.StatusCode, out)
	}
	reqs := llm.Requests()
	if len(reqs) != 1 || reqs[0].Authorization != "Bearer sk-upstream" {
		t.Errorf("upstream requests %d, Authorization %q", len(reqs), reqs[0].Authorization)
	}
	if !strings.Contains(strings.Join(reqs[0].ToolNames(), ","), tools.RecallMemory) {
		t.Errorf("no memory tools upstream: %v", reqs[0].ToolNames())
	}
}

func TestServeTakeoverEnhanceHasNoProxy(t *testing.T) {
	home := ingested(t)
	mode, url := serveInProcess(t, home)
	if mode != "enhance" {
		t.Errorf("serving %q", mode)
	}
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(out), "no_route") {
		t.Errorf("enhance mode: %d %s", resp.StatusCode, out)
	}
}

func TestServeTakeoverBadFlags(t *testing.T) {
	home := ingested(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "takeover"}, "--upstream"},
		{[]string{"--mode", "takeover", "--upstream", "localhost:11434"}, "is not an http(s) URL"},
		{[]string{"--mode", "sidecar"}, "mode"},
	}
	for _, tt := range tests {
		_, errs, code := cli(t, home, append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
		if code != exitUsage || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: code %d, stderr %q, want one line with %q", tt.args, code, errs, tt.want)
		}
	}
}
