package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/huimemory/huimemory/internal/oaihttp"
)

// toolCall is a tool call in a chat completion.
type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// completion is the part of a chat completion the proxy reads.
type completion struct {
	Choices []struct {
		Message struct {
			Content   string     `json:"content"`
			ToolCalls []toolCall `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
}

// chunk is the part of a streamed chat completion chunk the proxy reads.
type chunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   string `json:"content"`
			Refusal   string `json:"refusal"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
}

// Bounds on the upstream's response bodies the proxy reads whole: a chat
// completion, and the part of an error response it keeps.
const (
	maxResponse  = 64 << 20
	maxErrorBody = 1 << 20
)

// post calls the upstream with the call's messages. On the final round
// the model may no longer call memory tools: they are left out when the
// host has tools of its own, and tool_choice is "none" otherwise. The
// caller closes the response body and calls cancel.
func (h *Handler) post(ctx context.Context, c *call, final bool) (*http.Response, context.CancelFunc, error) {
	body := make(map[string]json.RawMessage, len(c.body)+2)
	for k, v := range c.body {
		body[k] = v
	}
	msgs, err := json.Marshal(c.messages)
	if err != nil {
		return nil, nil, internal(err)
	}
	body["messages"] = msgs
	toolList := slices.Concat(c.hostTools, c.memTools)
	if final && len(c.memTools) > 0 {
		if len(c.hostTools) > 0 {
			toolList = c.hostTools
		} else {
			body["tool_choice"] = json.RawMessage(`"none"`)
		}
	}
	if len(toolList) > 0 {
		if body["tools"], err = json.Marshal(toolList); err != nil {
			return nil, nil, internal(err)
		}
	} else {
		delete(body, "tools")
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, nil, internal(err)
	}
	accept := "application/json"
	if c.stream {
		accept = "text/event-stream"
	}
	uctx, cancel := context.WithTimeout(ctx, h.opts.Config.UpstreamTimeout)
	resp, err := h.up.Send(uctx, b, accept)
	if err != nil {
		var herr *oaihttp.HTTPError
		if errors.As(err, &herr) {
			err = statusError(herr.StatusCode, herr.Body)
		} else {
			err = h.upstreamErr(uctx, err)
		}
		cancel()
		return nil, nil, err
	}
	return resp, cancel, nil
}

// upstreamErr describes a failed call or read of the upstream.
func (h *Handler) upstreamErr(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		// The host went away; nobody reads this.
		return &Error{Status: 499, Type: typeInvalid, Code: "canceled", Message: "the request was canceled"}
	}
	var ne net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &Error{Status: http.StatusGatewayTimeout, Type: typeUpstream, Code: CodeUpstreamTimeout,
			Message: fmt.Sprintf("the upstream model did not answer within %s (takeover.upstream_timeout); your message is stored, retry the request", h.opts.Config.UpstreamTimeout)}
	}
	return &Error{Status: http.StatusBadGateway, Type: typeUpstream, Code: CodeUpstreamUnreachable,
		Message: fmt.Sprintf("calling the upstream model at %s: %v; your message is stored, retry the request", h.url, err)}
}

// statusError describes an upstream error response. A 4xx other than
// 401 and 403 is about the host's request (a bad model name, a rate
// limit): it keeps its status, and its body when that is an OpenAI-style
// error. Anything else is a 502.
func statusError(status int, body []byte) error {
	var eb struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	isErr := json.Unmarshal(body, &eb) == nil && eb.Error != nil
	if isErr {
		msg = eb.Error.Message
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	if status/100 == 4 && status != http.StatusUnauthorized && status != http.StatusForbidden {
		e := &Error{Status: status, Type: typeInvalid, Code: CodeUpstreamError, Message: fmt.Sprintf("the upstream model returned %d: %s", status, msg)}
		if isErr {
			e.raw = body
		}
		return e
	}
	return &Error{Status: http.StatusBadGateway, Type: typeUpstream, Code: CodeUpstreamError,
		Message: fmt.Sprintf("the upstream model returned %d: %s; your message is stored, retry the request", status, msg)}
}

func roundsExceeded(n int) error {
	return &Error{Status: http.StatusBadGateway, Type: typeUpstream, Code: CodeToolRoundsExceeded,
		Message: fmt.Sprintf("the model kept calling memory tools after %d rounds (takeover.max_tool_rounds)", n)}
}

// allMemory reports whether every call is to a memory tool.
func (c *call) allMemory(calls []toolCall) bool {
	for _, tc := range calls {
		if !c.memory[tc.Function.Name] {
			return false
		}
	}
	return true
}

// runTools runs the model's memory tool calls and appends the assistant's
// message and the results to the call's messages. A failed call's result
// is its error message, for the model to read.
func (h *Handler) runTools(ctx context.Context, c *call, content string, calls []toolCall) error {
	asst := struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		ToolCalls []toolCall `json:"tool_calls"`
	}{Role: "assistant", ToolCalls: calls}
	if content != "" {
		asst.Content = &content
	}
	for i := range asst.ToolCalls {
		asst.ToolCalls[i].Type = "function"
	}
	b, err := json.Marshal(asst)
	if err != nil {
		return internal(err)
	}
	c.messages = append(c.messages, b)
	for _, tc := range calls {
		text, _ := c.k.Dispatcher().Dispatch(ctx, tc.Function.Name, tc.Function.Arguments)
		if ctx.Err() != nil {
			return h.upstreamErr(ctx, ctx.Err())
		}
		b, err := json.Marshal(map[string]string{"role": "tool", "tool_call_id": tc.ID, "content": text})
		if err != nil {
			return internal(err)
		}
		c.messages = append(c.messages, b)
	}
	return nil
}

// serveJSON answers a request without streaming.
func (h *Handler) serveJSON(w http.ResponseWriter, r *http.Request, c *call) {
	ctx := r.Context()
	maxRounds := h.opts.Config.MaxToolRounds
	for round := 0; round <= maxRounds; round++ {
		resp, cancel, err := h.post(ctx, c, round == maxRounds)
		if err != nil {
			writeError(w, err)
			return
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
		resp.Body.Close()
		if err != nil {
			err = h.upstreamErr(ctx, err)
		}
		cancel()
		if err != nil {
			writeError(w, err)
			return
		}
		var cc completion
		if err := json.Unmarshal(body, &cc); err != nil || len(cc.Choices) == 0 {
			writeError(w, &Error{Status: http.StatusBadGateway, Type: typeUpstream, Code: CodeBadUpstreamResponse,
				Message: fmt.Sprintf("the upstream's answer is not a chat completion: %.200s", body)})
			return
		}
		msg := cc.Choices[0].Message
		if len(msg.ToolCalls) > 0 && c.allMemory(msg.ToolCalls) {
			if round == maxRounds {
				writeError(w, roundsExceeded(maxRounds))
				return
			}
			if err := h.runTools(ctx, c, msg.Content, msg.ToolCalls); err != nil {
				writeError(w, err)
				return
			}
			continue
		}
		if len(msg.ToolCalls) == 0 {
			if err := h.storeAnswer(ctx, c, msg.Content); err != nil {
				writeError(w, err)
				return
			}
		}
		c.setHeaders(w)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(body)
		return
	}
}

// serveStream answers a request with "stream": true. Each round's
// chunks are held back until one carries text: from then on they go to
// the host as they arrive. Once a chunk carries a tool call, the rest of
// the round is held: a round of memory tool calls is dropped and run,
// one that calls a host tool goes to the host whole.
func (h *Handler) serveStream(w http.ResponseWriter, r *http.Request, c *call) {
	ctx := r.Context()
	s := &sse{w: w, rc: http.NewResponseController(w), c: c}
	maxRounds := h.opts.Config.MaxToolRounds
	for round := 0; round <= maxRounds; round++ {
		resp, cancel, err := h.post(ctx, c, round == maxRounds)
		if err != nil {
			s.fail(err)
			return
		}
		res, err := s.round(resp.Body)
		resp.Body.Close()
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				err = h.upstreamErr(ctx, err)
			}
		}
		cancel()
		if err != nil {
			s.fail(err)
			return
		}
		if len(res.calls) > 0 && c.allMemory(res.calls) {
			if round == maxRounds {
				s.fail(roundsExceeded(maxRounds))
				return
			}
			if err := h.runTools(ctx, c, res.content, res.calls); err != nil {
				s.fail(err)
				return
			}
			continue
		}
		for _, p := range res.pending {
			s.send(p)
		}
		if len(res.calls) == 0 {
			if err := h.storeAnswer(ctx, c, s.answer.String()); err != nil {
				s.fail(err)
				return
			}
		}
		s.done()
		return
	}
}
