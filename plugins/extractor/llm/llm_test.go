package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/builtin"
	"github.com/huimemory/huimemory/plugins/extractor"
	"github.com/huimemory/huimemory/plugins/extractor/llm"
)

func init() {
	// plugin.TestPluginGRPCConn logs every stream at debug level.
	hclog.DefaultOutput = io.Discard
}

var cst = time.FixedZone("CST", 8*3600)

// sample is a turn chunk as the engine hands it to an extractor: no id
// yet.
func sample() *core.Chunk {
	at := time.Date(2026, 3, 5, 21, 14, 3, 0, cst)
	return &core.Chunk{
		Session: "kyoto", Time: at, End: at.Add(2 * time.Minute),
		File: "2026-W10/2026-03-05/chat_kyoto.md", LineStart: 9, LineEnd: 13,
		Messages: []core.Message{
			{Session: "kyoto", Time: at, Role: core.RoleUser, Speaker: "Alice", Text: "我们决定五月去京都，我更喜欢住在岚山附近。"},
			{Session: "kyoto", Time: at.Add(2 * time.Minute), Role: core.RoleAssistant, Text: "好的，记下了：五月，京都，岚山。"},
		},
	}
}

// where is how errors name sample().
const where = `llm extractor: chunk of session "kyoto" at 2026-03-05T21:14:03+08:00 (2026-W10/2026-03-05/chat_kyoto.md:L9-L13): `

const goodAnswer = `{"memories": [
 {"type": "decision", "facts": ["Alice 决定五月去京都"], "entities": ["Alice", "京都"], "topic": "京都旅行"},
 {"type": "preference", "facts": ["  Alice 更喜欢住在岚山附近 "], "entities": ["Alice", "岚山", "Alice"], "topic": "京都旅行"}
]}`

// newExtractor returns an extractor for srv that records its backoff
// waits in waits instead of sleeping.
func newExtractor(t *testing.T, srv *fakeChat, cfg llm.Config, waits *[]time.Duration) *llm.Extractor {
	t.Helper()
	cfg.BaseURL, cfg.Model = srv.URL, "fake-chat"
	x, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	llm.SetSleep(x, func(ctx context.Context, d time.Duration) error {
		if waits != nil {
			*waits = append(*waits, d)
		}
		return ctx.Err()
	})
	return x
}

func TestExtract(t *testing.T) {
	srv := newFakeChat(t, reply{content: goodAnswer})
	zero := 0.0
	x := newExtractor(t, srv, llm.Config{APIKey: "sk-test", Temperature: &zero}, nil)
	mems, err := x.Extract(t.Context(), sample())
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Memory{
		{Type: "decision", Facts: []string{"Alice 决定五月去京都"}, Entities: []string{"Alice", "京都"}, Topic: "京都旅行", Extractor: "llm"},
		{Type: "preference", Facts: []string{"Alice 更喜欢住在岚山附近"}, Entities: []string{"Alice", "岚山"}, Topic: "京都旅行", Extractor: "llm"},
	}
	if d := cmp.Diff(want, mems); d != "" {
		t.Errorf("memories (-want +got):\n%s", d)
	}

	calls := srv.requests()
	if len(calls) != 1 {
		t.Fatalf("%d requests, want 1", len(calls))
	}
	c := calls[0]
	if c.auth != "Bearer sk-test" {
		t.Errorf("Authorization %q", c.auth)
	}
	rf := c.req.ResponseFormat
	if c.req.Model != "fake-chat" || c.req.Stream || c.req.Temperature == nil || *c.req.Temperature != 0 ||
		rf.Type != "json_schema" || rf.JSONSchema == nil || !rf.JSONSchema.Strict || rf.JSONSchema.Name != "memories" {
		t.Errorf("request %+v", c.req)
	}
	var schema map[string]any
	if err := json.Unmarshal(rf.JSONSchema.Schema, &schema); err != nil || schema["additionalProperties"] != false {
		t.Errorf("schema %s (%v)", rf.JSONSchema.Schema, err)
	}
	if len(c.req.Messages) != 2 || c.req.Messages[0].Role != "system" || c.req.Messages[1].Role != "user" {
		t.Fatalf("messages %+v", c.req.Messages)
	}
	user := c.req.Messages[1].Content
	for _, part := range []string{"Session: kyoto", "Time: 2026-03-05T21:14:03+08:00", "Alice: 我们决定五月去京都", "assistant: 好的"} {
		if !strings.Contains(user, part) {
			t.Errorf("user message lacks %q:\n%s", part, user)
		}
	}
}

func TestOptionalRequestFields(t *testing.T) {
	srv := newFakeChat(t, reply{content: `{"memories": []}`})
	x := newExtractor(t, srv, llm.Config{ResponseFormat: llm.FormatJSONObject}, nil)
	mems, err := x.Extract(t.Context(), sample())
	if err != nil || len(mems) != 0 {
		t.Fatalf("Extract = %v, %v; want no memories and no error", mems, err)
	}
	c := srv.requests()[0]
	if c.auth != "" || c.req.Temperature != nil || c.req.ResponseFormat.Type != "json_object" || c.req.ResponseFormat.JSONSchema != nil {
		t.Errorf("request auth %q %+v: want no key, no temperature, json_object", c.auth, c.req)
	}
}

func TestBadAnswers(t *testing.T) {
	mem := func(s string) string { return `{"memories": [` + s + `]}` }
	for _, tc := range []struct {
		name string
		rep  reply
		want string // after where
	}{
		{"prose", reply{content: "Here are the memories: none."},
			`bad answer from the model: not valid JSON (invalid character 'H' looking for beginning of value at byte 1): "Here are the memories: none."`},
		{"markdown fence", reply{content: "```json\n{\"memories\": []}\n```"},
			"bad answer from the model: not valid JSON (invalid character '`' looking for beginning of value at byte 1)"},
		{"cut short", reply{content: `{"memories": [{"type": "decision"`},
			`bad answer from the model: not valid JSON (it ends early): "{\"memories\": [{\"type\": \"decision\""`},
		{"text after", reply{content: `{"memories": []} {"memories": []}`},
			`bad answer from the model: text after the JSON object`},
		{"no memories", reply{content: `{}`}, `bad answer from the model: no "memories" array`},
		{"null memories", reply{content: `{"memories": null}`}, `bad answer from the model: no "memories" array`},
		{"unknown field", reply{content: `{"memories": [], "notes": "x"}`}, `bad answer from the model: json: unknown field "notes"`},
		{"facts not a list", reply{content: mem(`{"type": "decision", "facts": "we go"}`)},
			`bad answer from the model: field "memories.facts" is string, want []string`},
		{"unknown type", reply{content: mem(`{"type": "fact", "facts": ["x"]}`)},
			`bad answer from the model: memory 1: type "fact" is not one of decision, preference, milestone, problem, emotional`},
		{"no type", reply{content: mem(`{"facts": ["x"]}`)}, `bad answer from the model: memory 1: no type`},
		{"no facts", reply{content: mem(`{"type": "problem", "facts": []}`)}, `bad answer from the model: memory 1: no facts`},
		{"blank fact", reply{content: mem(`{"type": "problem", "facts": ["ok", "  "]}`)}, `bad answer from the model: memory 1: fact 2 is empty`},
		{"long fact", reply{content: mem(`{"type": "problem", "facts": ["` + strings.Repeat("长", 301) + `"]}`)},
			`bad answer from the model: memory 1: fact 1 has 301 characters, more than 300`},
		{"too many facts", reply{content: mem(`{"type": "problem", "facts": ["a","b","c","d","e","f"]}`)},
			`bad answer from the model: memory 1: 6 facts, more than 5`},
		{"too many memories", reply{content: mem(strings.TrimSuffix(strings.Repeat(`{"type": "problem", "facts": ["a"]},`, 9), ","))},
			`bad answer from the model: 9 memories, more than 8`},
		{"blank entity", reply{content: mem(`{"type": "decision", "facts": ["a"], "entities": [""]}`)},
			`bad answer from the model: memory 1: entity 1 is empty`},
		{"long topic", reply{content: mem(`{"type": "decision", "facts": ["a"], "topic": "` + strings.Repeat("t", 61) + `"}`)},
			`bad answer from the model: memory 1: topic has 61 characters, more than 60`},
		{"second memory bad", reply{content: mem(`{"type": "decision", "facts": ["a"]}, {"type": "Decision", "facts": ["b"]}`)},
			`bad answer from the model: memory 2: type "Decision" is not one of`},
		{"not a completion", reply{body: `<html>gateway</html>`},
			`bad answer from the model: the answer is not a chat completion`},
		{"no choices", reply{body: `{"id": "x", "object": "chat.completion", "choices": []}`},
			`bad answer from the model: the answer has no choices`},
		{"refusal", reply{body: `{"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}, "finish_reason": "stop"}]}`},
			`bad answer from the model: the model refused: "I can't help with that."`},
		{"cut at the token limit", reply{body: `{"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"memories\": ["}, "finish_reason": "length"}]}`},
			`bad answer from the model: the answer was cut off at the model's token limit`},
		{"null content", reply{body: `{"choices": [{"index": 0, "message": {"role": "assistant", "content": null}, "finish_reason": "stop"}]}`},
			`bad answer from the model: the answer's message has no content`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeChat(t, tc.rep)
			x := newExtractor(t, srv, llm.Config{}, nil)
			mems, err := x.Extract(t.Context(), sample())
			if err == nil {
				t.Fatalf("no error, memories %+v", mems)
			}
			if !strings.HasPrefix(err.Error(), where+tc.want) {
				t.Errorf("error\n%s\nwant it to start with\n%s", err, where+tc.want)
			}
			if !errors.Is(err, llm.ErrBadAnswer) || llm.Temporary(err) {
				t.Errorf("errors.Is(err, ErrBadAnswer) = %v, Temporary = %v; want true, false", errors.Is(err, llm.ErrBadAnswer), llm.Temporary(err))
			}
			if n := len(srv.requests()); n != 1 {
				t.Errorf("%d requests; a bad answer is not retried in the same call", n)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	ok := reply{content: goodAnswer}
	for _, tc := range []struct {
		name      string
		replies   []reply
		retries   int
		requests  int
		waits     int // backoff waits recorded
		wantErr   string
		temporary bool
	}{
		{"500 then success", []reply{{status: 500}, ok}, 0, 2, 1, "", false},
		{"429 and 503 then success", []reply{{status: 429}, {status: 503}, ok}, 0, 3, 2, "", false},
		{"502 every time", []reply{{status: 502}}, 2, 3, 2,
			where + `POST URL/v1/chat/completions: 502 Bad Gateway: "fake failure 502" (gave up after 3 attempts)`, true},
		{"never retried", []reply{{status: 500}}, -1, 1, 0,
			where + `POST URL/v1/chat/completions: 500 Internal Server Error: "fake failure 500"`, true},
		{"401 is not retried", []reply{{status: 401}, ok}, 0, 1, 0,
			where + `POST URL/v1/chat/completions: 401 Unauthorized: "fake failure 401"`, false},
		{"400 is not retried", []reply{{status: 400}, ok}, 0, 1, 0,
			where + `POST URL/v1/chat/completions: 400 Bad Request: "fake failure 400"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeChat(t, tc.replies...)
			var waits []time.Duration
			x := newExtractor(t, srv, llm.Config{MaxRetries: tc.retries}, &waits)
			mems, err := x.Extract(t.Context(), sample())
			if n := len(srv.requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if len(waits) != tc.waits {
				t.Errorf("waits %v, want %d", waits, tc.waits)
			}
			for i, w := range waits {
				// Jittered: between half and all of 1s·2^i.
				if lo, hi := time.Second<<i/2, time.Second<<i; w < lo || w > hi {
					t.Errorf("wait %d is %s, outside [%s, %s]", i, w, lo, hi)
				}
			}
			if tc.wantErr == "" {
				if err != nil || len(mems) != 2 {
					t.Fatalf("Extract = %d memories, %v; want 2 and no error", len(mems), err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if want := strings.ReplaceAll(tc.wantErr, "URL", srv.URL); err.Error() != want {
				t.Errorf("error\n%s\nwant\n%s", err, want)
			}
			if llm.Temporary(err) != tc.temporary {
				t.Errorf("Temporary = %v, want %v", !tc.temporary, tc.temporary)
			}
			var herr *llm.HTTPError
			if !errors.As(err, &herr) {
				t.Errorf("error is not an *HTTPError: %#v", err)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	srv := newFakeChat(t, reply{status: 429, retryAfter: "7"}, reply{status: 503, retryAfter: "3600"}, reply{content: goodAnswer})
	var waits []time.Duration
	x := newExtractor(t, srv, llm.Config{}, &waits)
	if _, err := x.Extract(t.Context(), sample()); err != nil {
		t.Fatal(err)
	}
	// The server's wait, bounded by MaxRetryDelay (20s).
	if d := cmp.Diff([]time.Duration{7 * time.Second, 20 * time.Second}, waits); d != "" {
		t.Errorf("waits (-want +got):\n%s", d)
	}
}

func TestTimeout(t *testing.T) {
	srv := newFakeChat(t, reply{hang: true}, reply{content: goodAnswer})
	var waits []time.Duration
	x := newExtractor(t, srv, llm.Config{Timeout: 50 * time.Millisecond}, &waits)
	mems, err := x.Extract(t.Context(), sample())
	if err != nil || len(mems) != 2 || len(srv.requests()) != 2 {
		t.Fatalf("Extract = %d memories, %v after %d requests; want the second attempt's 2 memories", len(mems), err, len(srv.requests()))
	}

	srv = newFakeChat(t, reply{hang: true})
	x = newExtractor(t, srv, llm.Config{Timeout: 50 * time.Millisecond, MaxRetries: 1}, nil)
	_, err = x.Extract(t.Context(), sample())
	want := where + "POST " + srv.URL + "/v1/chat/completions: no answer within 50ms (gave up after 2 attempts)"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n%v\nwant\n%s", err, want)
	}
	// A timeout of the extractor's own is not the caller's deadline: a
	// plugin host must not take it for a hung plugin.
	if !llm.Temporary(err) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Temporary = %v, errors.Is(err, context.DeadlineExceeded) = %v; want true, false",
			llm.Temporary(err), errors.Is(err, context.DeadlineExceeded))
	}
}

func TestCallerDeadline(t *testing.T) {
	// The caller allows 1s; one attempt (30s by default) is cut to fit,
	// and no retry starts that the deadline would cut.
	srv := newFakeChat(t, reply{hang: true})
	x := newExtractor(t, srv, llm.Config{}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err := x.Extract(ctx, sample())
	if err == nil || !strings.Contains(err.Error(), "no answer within") || !strings.Contains(err.Error(), "not retried: the call's deadline is") {
		t.Fatalf("error %v: want the attempt's own timeout, not retried", err)
	}
	if errors.Is(err, context.DeadlineExceeded) || len(srv.requests()) != 1 {
		t.Errorf("errors.Is(err, DeadlineExceeded) = %v after %d requests; want false after 1", errors.Is(err, context.DeadlineExceeded), len(srv.requests()))
	}

	// A caller that gives up is told so.
	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	if _, err := x.Extract(ctx, sample()); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestConfig(t *testing.T) {
	two, neg := 2.5, -0.1
	for _, tc := range []struct {
		name string
		cfg  llm.Config
		want string // error, or the endpoint
	}{
		{"ollama", llm.Config{BaseURL: "http://localhost:11434", Model: "qwen2.5"}, "http://localhost:11434/v1/chat/completions"},
		{"v1 suffix", llm.Config{BaseURL: "https://api.openai.com/v1/", Model: "m"}, "https://api.openai.com/v1/chat/completions"},
		{"full path", llm.Config{BaseURL: "http://h:8000/v1/chat/completions", Model: "m"}, "http://h:8000/v1/chat/completions"},
		{"password hidden", llm.Config{BaseURL: "http://u:secret@h/v1", Model: "m"}, "http://u:xxxxx@h/v1/chat/completions"},
		{"no base URL", llm.Config{Model: "m"}, "llm extractor: missing base URL"},
		{"not http", llm.Config{BaseURL: "ftp://h", Model: "m"}, `llm extractor: base URL "ftp://h" is not an http(s) URL`},
		{"no model", llm.Config{BaseURL: "http://h"}, "llm extractor: missing model"},
		{"bad format", llm.Config{BaseURL: "http://h", Model: "m", ResponseFormat: "text"}, `llm extractor: response format "text" is not json_schema or json_object`},
		{"hot", llm.Config{BaseURL: "http://h", Model: "m", Temperature: &two}, "llm extractor: temperature 2.5 is not between 0 and 2"},
		{"cold", llm.Config{BaseURL: "http://h", Model: "m", Temperature: &neg}, "llm extractor: temperature -0.1 is not between 0 and 2"},
		{"negative timeout", llm.Config{BaseURL: "http://h", Model: "m", Timeout: -1}, "llm extractor: timeouts and delays must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := llm.New(tc.cfg)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = x.Endpoint()
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	cfg := llm.Config{BaseURL: "http://h", Model: "m", APIKey: "sk-secret"}
	for _, s := range []string{cfg.String(), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%+v", cfg)} {
		if strings.Contains(s, "sk-secret") {
			t.Errorf("the formatted config shows the key: %s", s)
		}
	}
}

func TestBuiltinOptions(t *testing.T) {
	f, ok := builtin.Extractor("llm")
	if !ok {
		t.Fatal("llm is not a built-in extractor")
	}
	srv := newFakeChat(t, reply{content: goodAnswer})
	t.Setenv("HUIMEM_TEST_LLM_KEY", "sk-from-env")
	t.Setenv("HUIMEM_TEST_LLM_EMPTY", "")
	x, err := f(t.Context(), map[string]string{"base_url": srv.URL, "model": "fake-chat", "api_key_env": "HUIMEM_TEST_LLM_KEY",
		"timeout": "5s", "max_retries": "1", "temperature": "0.2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Extract(t.Context(), sample()); err != nil {
		t.Fatal(err)
	}
	c := srv.requests()[0]
	if c.auth != "Bearer sk-from-env" || c.req.Temperature == nil || *c.req.Temperature != 0.2 {
		t.Errorf("auth %q, temperature %v", c.auth, c.req.Temperature)
	}
	for _, tc := range []struct {
		name    string
		options map[string]string
		want    string
	}{
		{"no options", nil, "extractor llm: llm extractor: missing base URL"},
		{"unknown option", map[string]string{"base_url": "http://h", "model": "m", "max_tokens": "9"},
			"extractor llm: option max_tokens: unknown: the llm extractor takes base_url, model, api_key_env, timeout, max_retries, temperature, response_format"},
		{"bad values", map[string]string{"base_url": "http://h", "model": "m", "timeout": "soon", "temperature": "warm"},
			`extractor llm: option timeout: "soon" is not a duration such as 30s; option temperature: "warm" is not a number or "default"`},
		{"empty key variable", map[string]string{"base_url": "http://h", "model": "m", "api_key_env": "HUIMEM_TEST_LLM_EMPTY"},
			"extractor llm: option api_key_env: the environment variable HUIMEM_TEST_LLM_EMPTY is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f(t.Context(), tc.options)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestGRPC serves the built-in over in-process gRPC: memories and errors,
// with the chunk they are about, cross the wire.
func TestGRPC(t *testing.T) {
	srv := newFakeChat(t, reply{content: goodAnswer}, reply{content: "not json"})
	f, _ := builtin.Extractor("llm")
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{
		"extractor": &extractor.Plugin{Config: extractor.ServeConfig{Name: "llm", Factory: f}}})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense("extractor")
	if err != nil {
		t.Fatal(err)
	}
	x := raw.(*extractor.Client)
	if err := x.Configure(t.Context(), map[string]string{"base_url": srv.URL, "model": "fake-chat"}); err != nil {
		t.Fatal(err)
	}
	info, err := x.PluginInfo(t.Context())
	if err != nil || info != (extractor.PluginInfo{Name: "llm", Version: "model fake-chat"}) {
		t.Errorf("PluginInfo = %+v, %v", info, err)
	}
	mems, err := x.Extract(t.Context(), sample())
	if err != nil || len(mems) != 2 || mems[1].Type != "preference" {
		t.Fatalf("Extract = %+v, %v", mems, err)
	}
	_, err = x.Extract(t.Context(), sample())
	if want := where + `bad answer from the model: not valid JSON (invalid character 'o' in literal null (expecting 'u') at byte 2): "not json"`; err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}
