// Package proxytest is a fake OpenAI-compatible chat completions server
// for testing the memory proxy and the hosts that use it. It parses the
// real request JSON, checks it the way a strict server would (every tool
// message answers a tool call, tool_choice comes with tools), records it,
// and answers with real chat completion JSON or, for "stream": true,
// server-sent chat completion chunks, with the text and each tool call's
// arguments split over several chunks.
package proxytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Request is a chat completions request as the fake received it.
type Request struct {
	Model      string
	Messages   []Message
	Tools      []Tool
	ToolChoice string // its JSON, "" when absent
	Stream     bool
	// Fields are all of the request's fields, raw.
	Fields map[string]json.RawMessage
	// Authorization is the request's Authorization header.
	Authorization string
}

// Message is one message of a request.
type Message struct {
	Role       string
	Content    string // the string, or the text parts joined
	ToolCallID string
	ToolCalls  []ToolCall
	Raw        json.RawMessage
}

// Tool is one tool schema of a request.
type Tool struct {
	Name string
	Raw  json.RawMessage
}

// ToolCall is a tool call the model makes.
type ToolCall struct {
	ID, Name, Arguments string
}

// Reply is what the fake model answers.
type Reply struct {
	Content   string
	ToolCalls []ToolCall
	// Status, when set, fails the request with this status and an
	// OpenAI-style error body.
	Status int
	// Hang, when set, answers nothing until the client gives up.
	Hang bool
	// Break, when set with a streamed request, sends the first chunks
	// and then drops the connection.
	Break bool
}

// System returns the request's system messages' text, joined.
func (r Request) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// Last returns the request's last message.
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// ToolNames returns the names of the request's tools.
func (r Request) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// LLM is the fake server.
type LLM struct {
	t     testing.TB
	srv   *httptest.Server
	model func(Request) Reply

	mu       sync.Mutex
	requests []Request
	bodies   []string
}

// New starts a fake whose model answers each request with model's reply.
// It stops when the test ends.
func New(t testing.TB, model func(Request) Reply) *LLM {
	l := &LLM{t: t, model: model}
	l.srv = httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(l.Close)
	return l
}

// URL is the base URL to configure, ending in /v1.
func (l *LLM) URL() string { return l.srv.URL + "/v1" }

// Close stops the server; later calls find the connection refused.
func (l *LLM) Close() {
	l.srv.CloseClientConnections()
	l.srv.Close()
}

// Requests returns the requests received so far.
func (l *LLM) Requests() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Request(nil), l.requests...)
}

// Bodies returns the non-streamed response bodies sent so far, in order.
func (l *LLM) Bodies() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.bodies...)
}

func (l *LLM) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		l.t.Errorf("fake LLM: unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	req, err := parse(r)
	if err != nil {
		l.t.Errorf("fake LLM: %v", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error", "code": nil}})
		return
	}
	l.mu.Lock()
	l.requests = append(l.requests, req)
	n := len(l.requests)
	l.mu.Unlock()

	reply := l.model(req)
	if reply.Hang {
		<-r.Context().Done()
		return
	}
	if reply.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		fmt.Fprintf(w, `{"error":{"message":"fake upstream failure %d","type":"server_error","param":null,"code":null}}`, reply.Status)
		return
	}
	id := fmt.Sprintf("chatcmpl-fake%d", n)
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if req.Stream {
		l.stream(w, req, reply, id, finish)
		return
	}
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if reply.Content != "" || len(reply.ToolCalls) == 0 {
		msg["content"] = reply.Content
	}
	if len(reply.ToolCalls) > 0 {
		var calls []map[string]any
		for _, c := range reply.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		msg["tool_calls"] = calls
	}
	body, _ := json.Marshal(map[string]any{
		"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
	})
	l.mu.Lock()
	l.bodies = append(l.bodies, string(body))
	l.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// stream answers with chat completion chunks.
func (l *LLM) stream(w http.ResponseWriter, req Request, reply Reply, id, finish string) {
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	sent := 0
	send := func(delta map[string]any, finishReason any) {
		b, _ := json.Marshal(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finishReason, "logprobs": nil}},
		})
		fmt.Fprintf(w, "data: %s\n\n", b)
		rc.Flush()
		sent++
		if reply.Break && sent == 3 {
			panic(http.ErrAbortHandler) // drops the connection
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, piece := range pieces(reply.Content, 4) {
		send(map[string]any{"content": piece}, nil)
	}
	for i, c := range reply.ToolCalls {
		send(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)
		for _, piece := range pieces(c.Arguments, 5) {
			send(map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]any{"arguments": piece}}}}, nil)
		}
	}
	send(map[string]any{}, finish)
	var so struct {
		IncludeUsage bool `json:"include_usage"`
	}
	if json.Unmarshal(req.Fields["stream_options"], &so) == nil && so.IncludeUsage {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
			"choices": []any{}, "usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	rc.Flush()
}

// pieces splits s into pieces of n runes.
func pieces(s string, n int) []string {
	var out []string
	for s != "" {
		i, k := 0, 0
		for i < len(s) && k < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			k++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// parse reads and checks a request.
func parse(r *http.Request) (Request, error) {
	var req Request
	req.Authorization = r.Header.Get("Authorization")
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return req, fmt.Errorf("Content-Type is %q, not application/json", ct)
	}
	if err := json.NewDecoder(r.Body).Decode(&req.Fields); err != nil {
		return req, fmt.Errorf("bad request JSON: %v", err)
	}
	var wire struct {
		Model    string `json:"model"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools  []json.RawMessage `json:"tools"`
		Stream bool              `json:"stream"`
	}
	raw, _ := json.Marshal(req.Fields)
	if err := json.Unmarshal(raw, &wire); err != nil {
		return req, fmt.Errorf("request does not have the chat completions shape: %v", err)
	}
	var rawMsgs []json.RawMessage
	json.Unmarshal(req.Fields["messages"], &rawMsgs)
	if wire.Model == "" {
		return req, fmt.Errorf("model is missing")
	}
	if len(wire.Messages) == 0 {
		return req, fmt.Errorf("messages is empty")
	}
	req.Model, req.Stream = wire.Model, wire.Stream
	open := map[string]bool{}
	for i, m := range wire.Messages {
		msg := Message{Role: m.Role, ToolCallID: m.ToolCallID, Raw: rawMsgs[i]}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			msg.Content = s
		} else if len(m.Content) > 0 && string(m.Content) != "null" {
			var parts []struct{ Type, Text string }
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return req, fmt.Errorf("messages[%d]: content is neither a string nor parts", i)
			}
			var texts []string
			for _, p := range parts {
				texts = append(texts, p.Text)
			}
			msg.Content = strings.Join(texts, "\n")
		}
		switch m.Role {
		case "system", "developer", "user":
		case "assistant":
			for _, c := range m.ToolCalls {
				if c.ID == "" || c.Type != "function" || c.Function.Name == "" {
					return req, fmt.Errorf("messages[%d]: a tool call needs id, type function and a name", i)
				}
				open[c.ID] = true
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
		case "tool":
			if !open[m.ToolCallID] {
				return req, fmt.Errorf("messages[%d]: tool message answers no tool call (tool_call_id %q)", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		default:
			return req, fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
		req.Messages = append(req.Messages, msg)
	}
	if len(open) > 0 {
		return req, fmt.Errorf("%d tool calls have no tool message", len(open))
	}
	for i, t := range wire.Tools {
		var s struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(t, &s); err != nil || s.Type != "function" || s.Function.Name == "" {
			return req, fmt.Errorf("tools[%d] is not a function tool", i)
		}
		req.Tools = append(req.Tools, Tool{Name: s.Function.Name, Raw: t})
	}
	if tc, ok := req.Fields["tool_choice"]; ok {
		req.ToolChoice = string(tc)
		if len(req.Tools) == 0 {
			return req, fmt.Errorf("tool_choice is only allowed when tools are given")
		}
	}
	return req, nil
}
