package llm_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// reply is one answer of the fake chat server.
type reply struct {
	status     int    // 0 means 200
	retryAfter string // Retry-After header
	content    string // the message content of a 200 answer
	body       string // when set, the whole body, in place of a completion
	hang       bool   // answer nothing until the client gives up
	echo       bool   // answer echoAnswer of the user message
}

// call is one request the fake server received.
type call struct {
	auth string
	req  struct {
		Model          string   `json:"model"`
		Temperature    *float64 `json:"temperature"`
		Stream         bool     `json:"stream"`
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Name   string          `json:"name"`
				Strict bool            `json:"strict"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
}

// fakeChat is an OpenAI-compatible chat completions server on the
// loopback interface. It answers the scripted replies in order, the last
// one for every request after, and keeps the requests.
type fakeChat struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	calls   []call
}

func newFakeChat(t *testing.T, replies ...reply) *fakeChat {
	t.Helper()
	f := &fakeChat{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeChat) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":{"message":"Unknown request URL: %s %s","type":"invalid_request_error"}}`, r.Method, r.URL.Path)
		return
	}
	var c call
	c.auth = r.Header.Get("Authorization")
	if err := json.NewDecoder(r.Body).Decode(&c.req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error())
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	rep := f.replies[min(len(f.calls), len(f.replies))-1]
	f.mu.Unlock()
	switch {
	case rep.hang:
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
		return
	case rep.status != 0 && rep.status != http.StatusOK:
		if rep.retryAfter != "" {
			w.Header().Set("Retry-After", rep.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		fmt.Fprintf(w, `{"error":{"message":"fake failure %d","type":"server_error","code":null}}`, rep.status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.body != "" {
		fmt.Fprint(w, rep.body)
		return
	}
	content := rep.content
	if rep.echo && len(c.req.Messages) == 2 {
		content = echoAnswer(c.req.Messages[1].Content)
	}
	fmt.Fprint(w, completion(c.req.Model, content))
}

// completion renders a chat.completion object as OpenAI sends it.
func completion(model, content string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1767225600, "model": model,
		"system_fingerprint": "fp_fake",
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": nil},
			"logprobs":      nil,
			"finish_reason": "stop",
		}},
		"usage": map[string]any{"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160},
	})
	return string(b)
}

func (f *fakeChat) requests() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// echoAnswer is a deterministic answer for a user prompt: one decision
// whose fact is the prompt's first line of turn text, for the contract
// and process tests.
func echoAnswer(prompt string) string {
	_, turn, _ := strings.Cut(prompt, "\nTurn:\n")
	first, _, _ := strings.Cut(turn, "\n")
	b, _ := json.Marshal(map[string]any{"memories": []any{map[string]any{
		"type": "decision", "facts": []string{first}, "entities": []string{}, "topic": "echo",
	}}})
	return string(b)
}
