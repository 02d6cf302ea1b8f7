package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/gobuild"
	"github.com/huimemory/huimemory/plugins/host"
)

// bin is the example, built once by TestMain.
var bin string

func TestMain(m *testing.M) { gobuild.Main(m, ".", "llm-loop", &bin) }

// The chat-completions wire format, as the fake LLM reads it.
type chatRequest struct {
	Model      string          `json:"model"`
	Messages   []chatMessage   `json:"messages"`
	Tools      json.RawMessage `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  []toolCall      `json:"tool_calls,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// text returns a message's content, given as a string or as text parts.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// fakeLLM is an OpenAI-compatible /v1/chat/completions server. It records
// every request and answers with what its model function returns: either
// tool calls or a final text.
type fakeLLM struct {
	t     *testing.T
	model func(req chatRequest) (calls []toolCall, answer string)
	// status, when set, fails every request with that HTTP status.
	status int

	mu       sync.Mutex
	requests []chatRequest
	auth     []string
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.t.Errorf("fake LLM: unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("fake LLM: bad request JSON: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	n := len(f.requests)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if f.status != 0 {
		w.WriteHeader(f.status)
		fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
		return
	}
	calls, answer := f.model(req)
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	finish := "tool_calls"
	if len(calls) == 0 {
		msg["content"], finish = answer, "stop"
	} else {
		msg["tool_calls"] = calls
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1764400000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	})
}

func (f *fakeLLM) recorded() ([]chatRequest, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatRequest(nil), f.requests...), append([]string(nil), f.auth...)
}

var (
	anchorRe   = regexp.MustCompile(`\[id:([0-9a-z]+) \| prev: ([0-9a-z]+|-) \| next: ([0-9a-z]+|-)`)
	turnLineRe = regexp.MustCompile(`(?m)^\s+\d+ \| ([^#].*)$`)
)

func call(id, name, args string) toolCall {
	c := toolCall{ID: id, Type: "function"}
	c.Function.Name, c.Function.Arguments = name, args
	return c
}

// walker is the fake model of the main test. For each question it calls
// recall_memory, then recall_by_id on the prev id it reads in that result,
// then answers by quoting the first line of the turn it got.
func walker(req chatRequest) ([]toolCall, string) {
	last := 0 // the last user message
	for i, m := range req.Messages {
		if m.Role == "user" {
			last = i
		}
	}
	var results []string
	for _, m := range req.Messages[last:] {
		if m.Role == "tool" {
			results = append(results, m.text())
		}
	}
	switch len(results) {
	case 0:
		return []toolCall{call(fmt.Sprintf("call_%d_1", last), tools.RecallMemory, `{"query":"ryokan near Gion","top_k":1}`)}, ""
	case 1:
		m := anchorRe.FindStringSubmatch(results[0])
		if m == nil || m[2] == "-" {
			return nil, "I found no earlier turn."
		}
		return []toolCall{call(fmt.Sprintf("call_%d_2", last), tools.RecallByID, fmt.Sprintf(`{"turn_id":%q}`, m[2]))}, ""
	}
	m, line := anchorRe.FindStringSubmatch(results[1]), turnLineRe.FindStringSubmatch(results[1])
	if m == nil || line == nil {
		return nil, "I could not read the earlier turn."
	}
	return nil, fmt.Sprintf("Before booking the ryokan you said: %q [id:%s]", line[1], m[1])
}

// memoryHome makes a home holding the quickstart conversation and returns
// it with what the dispatcher gives for the two calls the walker makes.
func memoryHome(t *testing.T) (home, recallText, prevID, byIDText string) {
	t.Helper()
	home = t.TempDir()
	ctx := t.Context()
	e, err := host.Open(ctx, core.Config{Storage: core.StorageConfig{Home: home}}, engine.Options{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.IngestFile(ctx, "../quickstart/conversation.jsonl", engine.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	d := tools.New(e, tools.Options{})
	r, err := d.Call(ctx, tools.RecallMemory, []byte(`{"query":"ryokan near Gion","top_k":1}`))
	if err != nil {
		t.Fatal(err)
	}
	prevID = r.Recall.Hits[0].Prev
	if prevID == "" {
		t.Fatalf("the ryokan turn has no prev:\n%s", r.Text)
	}
	byID, err := d.Dispatch(ctx, tools.RecallByID, fmt.Sprintf(`{"turn_id":%q}`, prevID))
	if err != nil {
		t.Fatal(err)
	}
	return home, r.Text, prevID, byID
}

// runLoop runs the example as a real process against the fake LLM.
func runLoop(t *testing.T, srv *httptest.Server, home, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	full := append([]string{"-base-url", srv.URL + "/v1", "-model", "fake-model", "-api-key-env", "FAKE_LLM_KEY", "-home", home}, args...)
	cmd := exec.CommandContext(t.Context(), bin, full...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "FAKE_LLM_KEY=sk-test-123"}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code <= 0 {
		t.Fatalf("running llm-loop: %v", err)
	}
	return out.String(), errb.String(), code
}

func openAISchemas(t *testing.T) any {
	t.Helper()
	data, err := tools.SchemasJSON(tools.Definitions(tools.Options{}), tools.FormatOpenAI)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(data, &v)
	return v
}

// TestToolsLoopWalksMemory is the whole protocol: the model calls recall_memory,
// then recall_by_id on the prev id it read, then answers.
func TestToolsLoopWalksMemory(t *testing.T) {
	home, recallText, prevID, byIDText := memoryHome(t)
	fake := &fakeLLM{t: t, model: walker}
	srv := httptest.NewServer(fake)
	defer srv.Close()

	const question = "Where did I want to stay in Kyoto, and what did I say before that?"
	stdout, stderr, code := runLoop(t, srv, home, "", "-v", question)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	wantAnswer := fmt.Sprintf("Before booking the ryokan you said: %q [id:%s]\n", "Let's plan the trip to Kyoto next spring. I prefer quiet temples over crowded places.", prevID)
	if stdout != wantAnswer {
		t.Errorf("stdout:\n got %q\nwant %q", stdout, wantAnswer)
	}

	reqs, auth := fake.recorded()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	prompt, _ := tools.Prompt("en")
	schemas := openAISchemas(t)
	for i, r := range reqs {
		if r.Model != "fake-model" || auth[i] != "Bearer sk-test-123" {
			t.Errorf("request %d: model %q, authorization %q", i+1, r.Model, auth[i])
		}
		if r.Messages[0].Role != "system" || r.Messages[0].text() != prompt {
			t.Errorf("request %d: first message is not the memory-rules prompt: %s %.80q", i+1, r.Messages[0].Role, r.Messages[0].text())
		}
		var got any
		json.Unmarshal(r.Tools, &got)
		if d := cmp.Diff(schemas, got); d != "" {
			t.Errorf("request %d: tools are not the openai schemas (-want +got):\n%s", i+1, d)
		}
	}

	// What the model said and what the dispatcher answered, in order.
	type turn struct{ Role, ToolCallID, Call, Args, Text string }
	var got []turn
	for _, m := range reqs[2].Messages[1:] {
		tr := turn{Role: m.Role, ToolCallID: m.ToolCallID, Text: m.text()}
		for _, c := range m.ToolCalls {
			tr.Call, tr.Args = c.ID+" "+c.Type+" "+c.Function.Name, c.Function.Arguments
		}
		got = append(got, tr)
	}
	want := []turn{
		{Role: "user", Text: question},
		{Role: "assistant", Call: "call_1_1 function recall_memory", Args: `{"query":"ryokan near Gion","top_k":1}`},
		{Role: "tool", ToolCallID: "call_1_1", Text: recallText},
		{Role: "assistant", Call: "call_1_2 function recall_by_id", Args: fmt.Sprintf(`{"turn_id":%q}`, prevID)},
		{Role: "tool", ToolCallID: "call_1_2", Text: byIDText},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("conversation sent with the third call (-want +got):\n%s", d)
	}
	if !strings.Contains(byIDText, "[id:"+prevID+" |") {
		t.Errorf("recall_by_id result is not the prev turn:\n%s", byIDText)
	}
	for _, want := range []string{"tool recall_memory {\"query\":\"ryokan near Gion\",\"top_k\":1} -> ", "tool recall_by_id {\"turn_id\":\"" + prevID + "\"} -> "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("-v log lacks %q:\n%s", want, stderr)
		}
	}

	// -save stored the exchange: a later chat can recall it.
	e, err := host.Open(context.Background(), core.Config{Storage: core.StorageConfig{Home: home}}, engine.Options{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Recall(t.Context(), core.Query{Text: "Where did I want to stay in Kyoto", TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	saved := false
	for _, h := range res.Hits {
		if strings.HasPrefix(h.Session, "llm-loop-") && len(h.Messages) == 2 && h.Messages[0].Text == question && h.Messages[1].Text+"\n" == wantAnswer {
			saved = true
		}
	}
	if !saved {
		t.Errorf("the exchange was not saved in memory: %+v", res.Hits)
	}
}

// TestToolsLoopChatKeepsHistory chats two questions on stdin: the second call
// for the second question carries the whole first exchange.
func TestToolsLoopChatKeepsHistory(t *testing.T) {
	home, _, _, _ := memoryHome(t)
	fake := &fakeLLM{t: t, model: walker}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	stdout, stderr, code := runLoop(t, srv, home, "first question\n\nsecond question\n", "-save=false", "-lang", "zh")
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	if n := strings.Count(stdout, "Before booking the ryokan you said: "); n != 2 {
		t.Errorf("%d answers, want 2:\n%s", n, stdout)
	}
	reqs, _ := fake.recorded()
	if len(reqs) != 6 {
		t.Fatalf("%d model calls, want 6", len(reqs))
	}
	var roles []string
	for _, m := range reqs[3].Messages {
		roles = append(roles, m.Role)
	}
	if d := cmp.Diff([]string{"system", "user", "assistant", "tool", "assistant", "tool", "assistant", "user"}, roles); d != "" {
		t.Errorf("history of the second question (-want +got):\n%s", d)
	}
	zh, _ := tools.Prompt("zh")
	if reqs[0].Messages[0].text() != zh || reqs[3].Messages[1].text() != "first question" || reqs[3].Messages[7].text() != "second question" {
		t.Errorf("history: system %.40q, user %q, user %q", reqs[0].Messages[0].text(), reqs[3].Messages[1].text(), reqs[3].Messages[7].text())
	}
}

// TestToolsLoopBoundedRounds: a model that never stops calling tools is cut off
// after -max-rounds calls, the last of which forbids tools.
func TestToolsLoopBoundedRounds(t *testing.T) {
	home, _, _, _ := memoryHome(t)
	fake := &fakeLLM{t: t, model: func(chatRequest) ([]toolCall, string) {
		return []toolCall{call("call_x", tools.RecallMemory, `{"query":"Kyoto"}`), call("call_y", "search_web", `{"q":"x"}`)}, ""
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	stdout, stderr, code := runLoop(t, srv, home, "", "-max-rounds", "3", "question")
	if code != 1 || stdout != "" || stderr != "llm-loop: no answer after 3 model calls\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	reqs, _ := fake.recorded()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	if string(reqs[0].ToolChoice) != "" || string(reqs[2].ToolChoice) != `"none"` {
		t.Errorf("tool_choice: first %s, last %s", reqs[0].ToolChoice, reqs[2].ToolChoice)
	}
	// An unknown tool comes back to the model as a message it can act on.
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || last.ToolCallID != "call_y" || !strings.HasPrefix(last.text(), `error: unknown tool "search_web"`) {
		t.Errorf("unknown tool result: %+v %q", last, last.text())
	}
}

func TestToolsLoopErrors(t *testing.T) {
	home, _, _, _ := memoryHome(t)
	fake := &fakeLLM{t: t, status: http.StatusUnauthorized}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	_, stderr, code := runLoop(t, srv, home, "", "question")
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "llm-loop: chat completion: ") || !strings.Contains(stderr, "401") {
		t.Errorf("401: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{{"-lang", "fr", "q"}, {"-max-rounds", "0", "q"}, {"-nope"}} {
		_, stderr, code := runLoop(t, srv, home, "", args...)
		if code != 2 || !strings.Contains(stderr, "llm-loop") && !strings.Contains(stderr, "flag provided but not defined") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
