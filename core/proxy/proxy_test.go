package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/kernel"
	"github.com/huimemory/huimemory/core/proxy"
	"github.com/huimemory/huimemory/core/proxy/proxytest"
	"github.com/huimemory/huimemory/core/server"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/plugins/host"
)

const (
	aliceToken = "alice-token"
	bobToken   = "bob-token"
)

// env is a HuiMemory server in takeover mode over a fresh home, with the
// proxy mounted behind its tokens, in front of a fake LLM.
type env struct {
	t   *testing.T
	e   *engine.Engine
	llm *proxytest.LLM
	url string // the proxy's base URL, up to /v1
}

func newEnv(t *testing.T, model func(proxytest.Request) proxytest.Reply, cfg core.TakeoverConfig) *env {
	t.Helper()
	e, err := host.Open(t.Context(), core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}, engine.Options{Logf: t.Logf}, host.Options{})
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	llm := proxytest.New(t, model)
	if cfg.Upstream == "" {
		cfg.Upstream = llm.URL()
	}
	srv, err := server.New(e, server.Options{Config: core.ServerConfig{Tokens: []core.TokenSpec{
		{Token: aliceToken, Namespace: "alice"}, {Token: bobToken, Namespace: "bob"}}}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := proxy.New(e, proxy.Options{Config: cfg, APIKey: "upstream-key"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Handle("/v1/chat/completions", h)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &env{t: t, e: e, llm: llm, url: ts.URL + "/v1"}
}

// post sends a raw chat completions request as alice.
func (v *env) post(session string, body any) (int, http.Header, []byte) {
	v.t.Helper()
	return v.postAs(aliceToken, session, body)
}

func (v *env) postAs(token, session string, body any) (int, http.Header, []byte) {
	v.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(v.t.Context(), http.MethodPost, v.url+"/chat/completions", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if session != "" {
		req.Header.Set(proxy.HeaderSession, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		v.t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out
}

// client is the official OpenAI client pointed at the proxy, as alice.
func (v *env) client(session string, opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(v.url), option.WithAPIKey(aliceToken),
		option.WithHeader(proxy.HeaderSession, session), option.WithMaxRetries(0)}, opts...)...)
}

// stored returns a session's messages in alice's namespace, as role:text.
func (v *env) stored(ns, session string) []string {
	v.t.Helper()
	turns, err := v.e.SessionTurns(v.t.Context(), ns, session, 0)
	if err != nil {
		v.t.Fatalf("reading session %s: %v", session, err)
	}
	var out []string
	for _, c := range turns {
		for _, m := range c.Messages {
			out = append(out, string(m.Role)+": "+m.Text)
		}
	}
	return out
}

func userMsg(text string) map[string]any {
	return map[string]any{"model": "fake-model", "messages": []any{map[string]any{"role": "user", "content": text}}}
}

func errorCode(t *testing.T, body []byte) string {
	t.Helper()
	var eb struct {
		Error struct{ Message, Type, Code string }
	}
	if err := json.Unmarshal(body, &eb); err != nil || eb.Error.Message == "" {
		t.Fatalf("not an OpenAI-style error: %s", body)
	}
	return eb.Error.Code
}

var anchorID = regexp.MustCompile(`\[id:([0-9a-z]+) \|`)

const catFact = "My cat is called Mochi and she is three years old."

// echo answers every request with a fixed text.
func echo(proxytest.Request) proxytest.Reply { return proxytest.Reply{Content: "Noted."} }

func TestTakeoverThreeSessionsRecallAcrossSessions(t *testing.T) {
	var mu sync.Mutex
	var sys3 string
	model := func(r proxytest.Request) proxytest.Reply {
		last := r.Last()
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "name of my cat"):
			mu.Lock()
			sys3 = r.System()
			mu.Unlock()
			// Search further, as a model would.
			return proxytest.Reply{ToolCalls: []proxytest.ToolCall{{ID: "call_1", Name: tools.RecallMemory, Arguments: `{"query":"cat called"}`}}}
		case last.Role == "tool" && last.ToolCallID == "call_1":
			id := anchorID.FindStringSubmatch(last.Content)
			if id == nil {
				return proxytest.Reply{Content: "no anchor"}
			}
			return proxytest.Reply{ToolCalls: []proxytest.ToolCall{{ID: "call_2", Name: tools.RecallByID, Arguments: `{"turn_id":"` + id[1] + `"}`}}}
		case last.Role == "tool" && last.ToolCallID == "call_2":
			if strings.Contains(last.Content, "Mochi") {
				return proxytest.Reply{Content: "Your cat is called Mochi."}
			}
			return proxytest.Reply{Content: "I don't know."}
		}
		return proxytest.Reply{Content: "Noted."}
	}
	v := newEnv(t, model, core.TakeoverConfig{})

	for _, step := range []struct{ session, text string }{
		{"s1", catFact},
		{"s2", "We are planning a trip to Kyoto to see the temples in autumn."},
		{"s3", "What is the name of my cat?"},
	} {
		code, hdr, body := v.post(step.session, userMsg(step.text))
		if code != 200 {
			t.Fatalf("%s: %d %s", step.session, code, body)
		}
		var cc openai.ChatCompletion
		if err := json.Unmarshal(body, &cc); err != nil || len(cc.Choices) == 0 {
			t.Fatalf("%s: not a chat completion: %s", step.session, body)
		}
		if step.session == "s3" {
			if got := cc.Choices[0].Message.Content; got != "Your cat is called Mochi." {
				t.Errorf("s3 answer %q", got)
			}
			if len(cc.Choices[0].Message.ToolCalls) != 0 {
				t.Errorf("the host got the memory tool calls: %s", body)
			}
			if hdr.Get(proxy.HeaderRecalled) == "" {
				t.Errorf("no %s header", proxy.HeaderRecalled)
			}
		}
	}
	// Session 3's context recalled session 1's fact in the memory block.
	if !strings.Contains(sys3, "Mochi") || !strings.Contains(sys3, "[id:") {
		t.Errorf("session 3's system message does not recall session 1's fact with its anchor:\n%s", sys3)
	}
	if strings.Contains(sys3, "Kyoto") && !strings.Contains(sys3, "Mochi") {
		t.Errorf("recalled the wrong session")
	}
	// The fake model got the anchor text back from recall_memory.
	reqs := v.llm.Requests()
	var toolText string
	for _, r := range reqs {
		if l := r.Last(); l.Role == "tool" && l.ToolCallID == "call_1" {
			toolText = l.Content
		}
	}
	if !strings.Contains(toolText, "Mochi") || !anchorID.MatchString(toolText) {
		t.Errorf("recall_memory's tool message has no anchor and fact:\n%s", toolText)
	}
	// Every request carried the memory tools, with no namespace argument.
	for i, r := range reqs {
		if d := cmp.Diff([]string{tools.RecallMemory, tools.RecallByID}, r.ToolNames()); d != "" {
			t.Errorf("request %d tools (-want +got):\n%s", i, d)
		}
		for _, tl := range r.Tools {
			if strings.Contains(string(tl.Raw), `"namespace"`) {
				t.Errorf("request %d: a memory tool takes a namespace: %s", i, tl.Raw)
			}
		}
		if r.Authorization != "Bearer upstream-key" {
			t.Errorf("request %d: upstream Authorization %q (the host's token must not leak)", i, r.Authorization)
		}
	}
	// Each session holds exactly its exchange; tool rounds are not stored.
	want := map[string][]string{
		"s1": {"user: " + catFact, "assistant: Noted."},
		"s3": {"user: What is the name of my cat?", "assistant: Your cat is called Mochi."},
	}
	for s, w := range want {
		if d := cmp.Diff(w, v.stored("alice", s)); d != "" {
			t.Errorf("session %s (-want +got):\n%s", s, d)
		}
	}
	// Namespaces: bob's context never sees alice's memory.
	code, _, body := v.postAs(bobToken, "b1", userMsg("What is the name of my cat?"))
	if code != 200 {
		t.Fatalf("bob: %d %s", code, body)
	}
	reqs = v.llm.Requests()
	for _, r := range reqs[len(reqs)-1:] {
		if strings.Contains(r.System(), "Mochi") {
			t.Errorf("bob's context holds alice's fact:\n%s", r.System())
		}
	}
	if _, err := v.e.SessionTurns(t.Context(), "bob", "b1", 0); err != nil {
		t.Errorf("bob's message is not in bob's namespace: %v", err)
	}
}

// contextTokens counts what the upstream received as the kernel counts:
// each message's text plus its overhead, and the tool schemas' JSON.
func contextTokens(t *testing.T, tok kernel.Tokenizer, r proxytest.Request) int {
	t.Helper()
	n := 0
	for _, m := range r.Messages {
		n += tok.Count(m.Content) + kernel.MessageOverhead
	}
	if len(r.Tools) > 0 {
		var raws []json.RawMessage
		for _, tl := range r.Tools {
			raws = append(raws, tl.Raw)
		}
		b, _ := json.Marshal(raws)
		n += tok.Count(string(b))
	}
	return n
}

func TestTakeoverBudgetHoldsChineseAndEnglish(t *testing.T) {
	v := newEnv(t, echo, core.TakeoverConfig{})
	tok, err := kernel.NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	zh := strings.Repeat("上周三下午部署的时候 Ollama 一直报 CUDA out of memory，我们把上下文长度从 32k 降到 8k。", 12)
	en := strings.Repeat("We moved the deployment to Friday because the staging cluster ran out of GPU memory. ", 12)
	// Fill the memory: long turns in both languages over a few sessions.
	for i := range 6 {
		s := fmt.Sprintf("fill-%d", i)
		for j, text := range []string{zh, en} {
			if code, _, body := v.post(s, userMsg(fmt.Sprintf("%d.%d %s", i, j, text))); code != 200 {
				t.Fatalf("filling: %d %s", code, body)
			}
		}
	}
	huge := strings.Repeat("这是一条非常长的消息。This is a very long message. ", 400)
	tests := []struct {
		name    string
		budget  int
		message string
		system  string
	}{
		{"small budget, Chinese", 300, "部署的时候出了什么问题？", ""},
		{"small budget, English", 300, "What went wrong with the deployment?", ""},
		{"medium budget, mixed", 1500, "CUDA out of memory 怎么办？", ""},
		{"host system prompt counts", 1500, "What went wrong with the deployment?", "You are a terse assistant. Answer in one sentence."},
		{"large budget", 8000, "部署 deployment GPU memory", ""},
		{"message larger than the budget", 500, huge, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []any{map[string]any{"role": "user", "content": tt.message}}
			if tt.system != "" {
				msgs = append([]any{map[string]any{"role": "system", "content": tt.system}}, msgs...)
			}
			b, _ := json.Marshal(map[string]any{"model": "fake-model", "messages": msgs})
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, v.url+"/chat/completions", bytes.NewReader(b))
			req.Header.Set("Authorization", "Bearer "+aliceToken)
			req.Header.Set(proxy.HeaderSession, "fill-5")
			req.Header.Set(proxy.HeaderBudget, fmt.Sprint(tt.budget))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			reqs := v.llm.Requests()
			got := contextTokens(t, tok, reqs[len(reqs)-1])
			if got > tt.budget {
				t.Errorf("the upstream got %d tokens, over the budget of %d", got, tt.budget)
			}
			var hdr int
			fmt.Sscan(resp.Header.Get(proxy.HeaderContextTokens), &hdr)
			if hdr != got {
				t.Errorf("%s says %d tokens, the upstream got %d", proxy.HeaderContextTokens, hdr, got)
			}
			if tt.system != "" && reqs[len(reqs)-1].Messages[0].Content != tt.system {
				t.Errorf("the host's system prompt is not first: %+v", reqs[len(reqs)-1].Messages[0])
			}
			last := reqs[len(reqs)-1].Last()
			if tt.message == huge && !strings.Contains(last.Content, "tokens cut") {
				t.Errorf("the huge message was not cut with a marker")
			}
		})
	}
	// The huge message is stored whole.
	stored := v.stored("alice", "fill-5")
	if !slices.Contains(stored, "user: "+huge) {
		t.Errorf("the huge message is not stored whole")
	}
}

func TestTakeoverRetryIsStoredOnce(t *testing.T) {
	var mu sync.Mutex
	fail := true
	// The copies of the parallel request below are answered only when
	// all four have reached the model, so that they are at once: a copy
	// that came after another's answer was stored would be a new message
	// (as the sequential part of this test shows), and whether one does
	// depended on how fast the engine stores.
	const copies = 4
	parallel := "Parallel copies of one request."
	var arrived sync.WaitGroup
	arrived.Add(copies)
	v := newEnv(t, func(r proxytest.Request) proxytest.Reply {
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Content == parallel {
			arrived.Done()
			waitOrTimeout(&arrived, 10*time.Second)
		}
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return proxytest.Reply{Status: 500}
		}
		return proxytest.Reply{Content: "Deployment is on Friday."}
	}, core.TakeoverConfig{})
	q := "When is the deployment?"
	for range 3 {
		code, _, body := v.post("r1", userMsg(q))
		if code != http.StatusBadGateway || errorCode(t, body) != proxy.CodeUpstreamError {
			t.Fatalf("failing upstream: %d %s", code, body)
		}
	}
	if d := cmp.Diff([]string{"user: " + q}, v.stored("alice", "r1")); d != "" {
		t.Errorf("after three failed tries (-want +got):\n%s", d)
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	if code, _, body := v.post("r1", userMsg(q)); code != 200 {
		t.Fatalf("retry: %d %s", code, body)
	}
	// The same message after an answer is a new message.
	if code, _, body := v.post("r1", userMsg(q)); code != 200 {
		t.Fatalf("again: %d %s", code, body)
	}
	want := []string{"user: " + q, "assistant: Deployment is on Friday.", "user: " + q, "assistant: Deployment is on Friday."}
	if d := cmp.Diff(want, v.stored("alice", "r1")); d != "" {
		t.Errorf("session (-want +got):\n%s", d)
	}
	// Two copies of one request at once store it once.
	var wg sync.WaitGroup
	for range copies {
		wg.Go(func() { v.post("r2", userMsg(parallel)) })
	}
	wg.Wait()
	var users int
	for _, m := range v.stored("alice", "r2") {
		if strings.HasPrefix(m, "user: ") {
			users++
		}
	}
	if users != 1 {
		t.Errorf("4 concurrent copies stored %d user messages, want 1", users)
	}
}

func TestTakeoverUpstreamFailuresLoseNothing(t *testing.T) {
	tests := []struct {
		name   string
		reply  proxytest.Reply
		closed bool // the upstream is gone
		stream bool
		status int
		code   string
	}{
		{name: "500", reply: proxytest.Reply{Status: 500}, status: 502, code: proxy.CodeUpstreamError},
		{name: "401 from upstream", reply: proxytest.Reply{Status: 401}, status: 502, code: proxy.CodeUpstreamError},
		{name: "timeout", reply: proxytest.Reply{Hang: true}, status: 504, code: proxy.CodeUpstreamTimeout},
		{name: "connection refused", closed: true, status: 502, code: proxy.CodeUpstreamUnreachable},
		{name: "streaming 503", reply: proxytest.Reply{Status: 503}, stream: true, status: 502, code: proxy.CodeUpstreamError},
		{name: "streaming timeout", reply: proxytest.Reply{Hang: true}, stream: true, status: 504, code: proxy.CodeUpstreamTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newEnv(t, func(proxytest.Request) proxytest.Reply { return tt.reply }, core.TakeoverConfig{UpstreamTimeout: 300 * time.Millisecond})
			if tt.closed {
				v.llm.Close()
			}
			q := "Remember that the release is on 2026-12-24."
			body := userMsg(q)
			body["stream"] = tt.stream
			code, hdr, out := v.post("f1", body)
			if code != tt.status {
				t.Fatalf("status %d, want %d: %s", code, tt.status, out)
			}
			if !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Errorf("Content-Type %q", hdr.Get("Content-Type"))
			}
			if got := errorCode(t, out); got != tt.code {
				t.Errorf("code %q, want %q: %s", got, tt.code, out)
			}
			if d := cmp.Diff([]string{"user: " + q}, v.stored("alice", "f1")); d != "" {
				t.Errorf("stored (-want +got):\n%s", d)
			}
			// And the message is recallable.
			res, err := v.e.Recall(t.Context(), core.Query{Text: "release 2026-12-24", Namespace: "alice", TopK: 3, NoTime: true})
			if err != nil || len(res.Hits) == 0 || res.Hits[0].Session != "f1" {
				t.Errorf("the stored message is not recallable: %v %+v", err, res)
			}
		})
	}

	t.Run("killed mid-stream", func(t *testing.T) {
		v := newEnv(t, func(proxytest.Request) proxytest.Reply {
			return proxytest.Reply{Content: "This answer is cut off by a dying upstream.", Break: true}
		}, core.TakeoverConfig{})
		c := v.client("k1")
		stream := c.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{
			Model: "fake-model", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Tell me about the release.")}})
		for stream.Next() {
		}
		if stream.Err() == nil {
			t.Errorf("a stream cut by the upstream ended without an error")
		}
		// The user's message is stored, the partial answer is not.
		if d := cmp.Diff([]string{"user: Tell me about the release."}, v.stored("alice", "k1")); d != "" {
			t.Errorf("stored (-want +got):\n%s", d)
		}
	})
}

func TestTakeoverStreamingWithTheOpenAIClient(t *testing.T) {
	answer := "Mochi 是你的猫，三岁了。Your cat Mochi is three."
	v := newEnv(t, func(r proxytest.Request) proxytest.Reply {
		if !r.Stream {
			return proxytest.Reply{Content: "Noted."}
		}
		if l := r.Last(); l.Role == "tool" {
			return proxytest.Reply{Content: answer}
		}
		return proxytest.Reply{ToolCalls: []proxytest.ToolCall{{ID: "call_s", Name: tools.RecallMemory, Arguments: `{"query":"猫 cat Mochi","top_k":3}`}}}
	}, core.TakeoverConfig{})
	if code, _, body := v.post("st1", userMsg(catFact)); code != 200 {
		t.Fatalf("%d %s", code, body)
	}

	c := v.client("st2")
	stream := c.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{
		Model:         "fake-model",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("我的猫叫什么名字？")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	acc := openai.ChatCompletionAccumulator{}
	chunks := 0
	for stream.Next() {
		ch := stream.Current()
		if !acc.AddChunk(ch) {
			t.Fatalf("the accumulator rejected chunk %d: %s", chunks, ch.RawJSON())
		}
		for _, choice := range ch.Choices {
			if len(choice.Delta.ToolCalls) > 0 {
				t.Errorf("the host got a memory tool call delta: %s", ch.RawJSON())
			}
		}
		chunks++
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if len(acc.Choices) == 0 || acc.Choices[0].Message.Content != answer {
		t.Fatalf("accumulated %+v, want %q", acc.Choices, answer)
	}
	if chunks < 5 {
		t.Errorf("%d chunks: the answer was not streamed in pieces", chunks)
	}
	if acc.Usage.TotalTokens == 0 {
		t.Errorf("no usage chunk passed through")
	}
	reqs := v.llm.Requests()
	last := reqs[len(reqs)-1]
	if l := last.Last(); l.Role != "tool" || !strings.Contains(l.Content, "Mochi") {
		t.Errorf("the streamed tool round did not return the memory to the model: %+v", l)
	}
	if prev := last.Messages[len(last.Messages)-2]; len(prev.ToolCalls) != 1 || prev.ToolCalls[0].Arguments != `{"query":"猫 cat Mochi","top_k":3}` {
		t.Errorf("tool call deltas were not accumulated: %+v", prev.ToolCalls)
	}
	if d := cmp.Diff([]string{"user: 我的猫叫什么名字？", "assistant: " + answer}, v.stored("alice", "st2")); d != "" {
		t.Errorf("stored (-want +got):\n%s", d)
	}
}

func TestTakeoverHostToolsPassThrough(t *testing.T) {
	weather := json.RawMessage(`{"type":"function","function":{"name":"get_weather","description":"Weather in a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true}}`)
	model := func(r proxytest.Request) proxytest.Reply {
		if l := r.Last(); l.Role == "tool" && l.ToolCallID == "call_w" {
			return proxytest.Reply{Content: "It is " + l.Content + " in Kyoto."}
		}
		return proxytest.Reply{ToolCalls: []proxytest.ToolCall{{ID: "call_w", Name: "get_weather", Arguments: `{"city":"Kyoto"}`}}}
	}
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			v := newEnv(t, model, core.TakeoverConfig{})
			session := "h1"
			q := map[string]any{"role": "user", "content": "What's the weather in Kyoto?"}
			first := map[string]any{"model": "fake-model", "temperature": 0.2, "tools": []json.RawMessage{weather},
				"tool_choice": "auto", "messages": []any{q}, "stream": stream}
			code, _, body := v.post(session, first)
			if code != 200 {
				t.Fatalf("%d %s", code, body)
			}
			reqs := v.llm.Requests()
			r0 := reqs[0]
			// The host's fields and tool go upstream untouched, with the memory tools.
			if d := cmp.Diff([]string{"get_weather", tools.RecallMemory, tools.RecallByID}, r0.ToolNames()); d != "" {
				t.Errorf("tools (-want +got):\n%s", d)
			}
			if string(r0.Tools[0].Raw) != string(weather) {
				t.Errorf("host tool changed:\n got %s\nwant %s", r0.Tools[0].Raw, weather)
			}
			if string(r0.Fields["temperature"]) != "0.2" || r0.ToolChoice != `"auto"` {
				t.Errorf("host fields changed: temperature %s tool_choice %s", r0.Fields["temperature"], r0.ToolChoice)
			}
			var call proxytest.ToolCall
			if stream {
				acc := accumulate(t, body)
				if len(acc.Choices) == 0 || len(acc.Choices[0].Message.ToolCalls) != 1 {
					t.Fatalf("the host did not get its tool call: %s", body)
				}
				tc := acc.Choices[0].Message.ToolCalls[0]
				call = proxytest.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
			} else {
				// Unchanged: byte for byte what the upstream sent.
				if bodies := v.llm.Bodies(); len(bodies) != 1 || strings.TrimSpace(string(body)) != bodies[0] {
					t.Errorf("the response was changed:\n got %s\nwant %v", body, bodies)
				}
				var cc openai.ChatCompletion
				json.Unmarshal(body, &cc)
				tc := cc.Choices[0].Message.ToolCalls[0]
				call = proxytest.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
			}
			if d := cmp.Diff(proxytest.ToolCall{ID: "call_w", Name: "get_weather", Arguments: `{"city":"Kyoto"}`}, call); d != "" {
				t.Fatalf("host tool call (-want +got):\n%s", d)
			}
			// Nothing is stored for a host tool round but the question.
			if d := cmp.Diff([]string{"user: What's the weather in Kyoto?"}, v.stored("alice", session)); d != "" {
				t.Errorf("stored (-want +got):\n%s", d)
			}
			// The host runs its tool and sends the result after the question.
			second := map[string]any{"model": "fake-model", "tools": []json.RawMessage{weather}, "stream": stream, "messages": []any{q,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_w", "type": "function",
					"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Kyoto"}`}}}},
				map[string]any{"role": "tool", "tool_call_id": "call_w", "content": "sunny, 18°C"}}}
			code, _, body = v.post(session, second)
			if code != 200 {
				t.Fatalf("%d %s", code, body)
			}
			want := "It is sunny, 18°C in Kyoto."
			if stream {
				if got := accumulate(t, body).Choices[0].Message.Content; got != want {
					t.Errorf("answer %q", got)
				}
			} else if !strings.Contains(string(body), want) {
				t.Errorf("answer %s", body)
			}
			if d := cmp.Diff([]string{"user: What's the weather in Kyoto?", "assistant: " + want}, v.stored("alice", session)); d != "" {
				t.Errorf("stored (-want +got):\n%s", d)
			}
		})
	}
}

// accumulate reads a server-sent events body with the OpenAI client's
// types.
func accumulate(t *testing.T, body []byte) openai.ChatCompletionAccumulator {
	t.Helper()
	acc := openai.ChatCompletionAccumulator{}
	done := false
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var ch openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("bad chunk %s: %v", data, err)
		}
		if !acc.AddChunk(ch) {
			t.Fatalf("rejected chunk %s", data)
		}
	}
	if !done {
		t.Errorf("the stream did not end with [DONE]:\n%s", body)
	}
	return acc
}

func TestTakeoverToolRoundsAreBounded(t *testing.T) {
	v := newEnv(t, func(r proxytest.Request) proxytest.Reply {
		return proxytest.Reply{ToolCalls: []proxytest.ToolCall{{ID: fmt.Sprintf("c%d", len(r.Messages)), Name: tools.RecallMemory, Arguments: `{"query":"anything"}`}}}
	}, core.TakeoverConfig{MaxToolRounds: 2})
	code, _, body := v.post("t1", userMsg("Loop forever please."))
	if code != 502 || errorCode(t, body) != proxy.CodeToolRoundsExceeded {
		t.Fatalf("%d %s", code, body)
	}
	reqs := v.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d upstream calls, want 3 (2 rounds and a last one)", len(reqs))
	}
	if reqs[2].ToolChoice != `"none"` || reqs[0].ToolChoice != "" {
		t.Errorf("tool_choice: first %q, last %q", reqs[0].ToolChoice, reqs[2].ToolChoice)
	}
}

func TestTakeoverBadRequests(t *testing.T) {
	v := newEnv(t, echo, core.TakeoverConfig{})
	tests := []struct {
		name    string
		token   string
		session string
		body    any
		status  int
		code    string
	}{
		{"no session", aliceToken, "", userMsg("hi"), 400, "missing_session"},
		{"no user message", aliceToken, "s", map[string]any{"model": "m", "messages": []any{map[string]any{"role": "system", "content": "x"}}}, 400, "invalid_messages"},
		{"no messages", aliceToken, "s", map[string]any{"model": "m"}, 400, "invalid_messages"},
		{"empty user message", aliceToken, "s", userMsg("  "), 400, "invalid_messages"},
		{"messages not an array", aliceToken, "s", map[string]any{"model": "m", "messages": "hi"}, 400, "invalid_messages"},
		{"bad tool", aliceToken, "s", map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "x"}}, "tools": []any{map[string]any{"type": "function"}}}, 400, "invalid_request"},
		{"wrong token", "nope", "s", userMsg("hi"), 401, "unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := v.postAs(tt.token, tt.session, tt.body)
			if code != tt.status {
				t.Fatalf("status %d, want %d: %s", code, tt.status, body)
			}
			var eb struct {
				Error struct{ Code, Message string }
			}
			if json.Unmarshal(body, &eb) != nil || eb.Error.Code != tt.code || eb.Error.Message == "" {
				t.Errorf("error %s, want code %q", body, tt.code)
			}
		})
	}
	// The "user" field names the session when there is no header.
	body := userMsg("Session from the user field.")
	body["user"] = "from-user-field"
	if code, _, out := v.post("", body); code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	if got := v.stored("alice", "from-user-field"); len(got) != 2 {
		t.Errorf("session from the user field: %v", got)
	}
	// Malformed JSON and GET.
	req, _ := http.NewRequest(http.MethodPost, v.url+"/chat/completions", strings.NewReader(`{"model": "m", "messages": [`))
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || errorCode(t, out) != "bad_json" {
		t.Errorf("malformed JSON: %d %s", resp.StatusCode, out)
	}
	req, _ = http.NewRequest(http.MethodGet, v.url+"/chat/completions", nil)
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 405 || errorCode(t, out) != "method_not_allowed" {
		t.Errorf("GET: %d %s", resp.StatusCode, out)
	}
	// A bound token may not pick another namespace.
	b, _ := json.Marshal(userMsg("hi"))
	req, _ = http.NewRequest(http.MethodPost, v.url+"/chat/completions", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	req.Header.Set(proxy.HeaderSession, "s")
	req.Header.Set(proxy.HeaderNamespace, "bob")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || errorCode(t, out) != tools.CodeForbidden {
		t.Errorf("other namespace: %d %s", resp.StatusCode, out)
	}
}

func TestTakeoverNewChecksTheUpstream(t *testing.T) {
	e, err := host.Open(t.Context(), core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}, engine.Options{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, up := range []string{"", "localhost:8080", "ftp://x/v1", "http://"} {
		if _, err := proxy.New(e, proxy.Options{Config: core.TakeoverConfig{Upstream: up}}); err == nil {
			t.Errorf("upstream %q accepted", up)
		}
	}
	if _, err := proxy.New(e, proxy.Options{Config: core.TakeoverConfig{Upstream: "http://127.0.0.1:11434/v1"}}); err != nil {
		t.Errorf("a good upstream: %v", err)
	}
}

// waitOrTimeout waits for wg, or for d.
func waitOrTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}
