package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/render"
)

// route is one endpoint. The same table registers the handlers and
// generates the OpenAPI document, so the two cannot drift.
type route struct {
	method, path string
	id, summary  string
	// params are the path and query parameters.
	params []param
	// req is a value of the request body's type, or nil for no body;
	// reqSchema, when set, overrides the schema generated from req.
	req       any
	reqSchema map[string]any
	// oneOf, when set, lists the request body's alternative types.
	oneOf []any
	// resp is a value of the 200 response's type.
	resp   any
	status int
	// raw handlers write the response themselves (a stream).
	raw    bool
	handle func(r *http.Request, d *tools.Dispatcher, body []byte) (int, any, error)
}

type param struct {
	name, in, typ, desc string
	required            bool
}

// Health is the body of GET /healthz.
type Health struct {
	Status  string `json:"status"`
	Version string `json:"version,omitempty"`
}

// ToolResponse is the body of POST /v1/tools/{name}: the text the LLM
// should read and the structured result behind it.
type ToolResponse struct {
	Tool   string `json:"tool"`
	Text   string `json:"text"`
	Result any    `json:"result"`
}

// MessagesRequest is the batch form of POST /v1/messages.
type MessagesRequest struct {
	Messages []tools.RememberRequest `json:"messages"`
}

// MessagesResponse says what an append stored. The append is durable and
// recallable when the response is sent.
type MessagesResponse struct {
	// Messages were received; Added were new, Duplicates stored before.
	Messages   int `json:"messages"`
	Added      int `json:"added"`
	Duplicates int `json:"duplicates"`
	// Stored are the messages as stored, with their session and time
	// filled in.
	Stored []StoredMessage `json:"stored"`
}

// StoredMessage is one appended message.
type StoredMessage struct {
	Namespace string    `json:"namespace,omitempty"`
	Session   string    `json:"session"`
	Time      time.Time `json:"time"`
	Role      core.Role `json:"role,omitempty"`
	Speaker   string    `json:"speaker,omitempty"`
	Text      string    `json:"text"`
	Ref       string    `json:"ref,omitempty"`
	// Duplicate is set when the message was stored before.
	Duplicate bool `json:"duplicate,omitempty"`
}

// StatsResponse is the body of GET /v1/stats.
type StatsResponse struct {
	Chunks     int            `json:"chunks"`
	Messages   int            `json:"messages,omitempty"`
	Sessions   int            `json:"sessions,omitempty"`
	Namespaces map[string]int `json:"namespaces"`
	Embedder   string         `json:"embedder"`
}

func (s *Server) routeTable() []*route {
	ctxParam := param{name: "context", in: "query", typ: "integer", desc: "neighbouring turns on each side (default 0)"}
	nsParam := param{name: "namespace", in: "query", typ: "string", desc: "namespace (default: the token's)"}
	routes := []*route{
		{method: "GET", path: "/healthz", id: "health", summary: "Liveness check; needs no token.",
			resp: Health{}, handle: func(*http.Request, *tools.Dispatcher, []byte) (int, any, error) {
				return 200, Health{Status: "ok", Version: s.opts.Version}, nil
			}},
		{method: "GET", path: "/openapi.json", id: "openapi", summary: "This document.",
			resp: map[string]any{}, handle: func(*http.Request, *tools.Dispatcher, []byte) (int, any, error) {
				return 200, json.RawMessage(s.OpenAPI()), nil
			}},
		{method: "POST", path: "/v1/recall", id: "recall", summary: "Hybrid recall: the turns that best match a query, by keyword, meaning and time. Returns the shape `huimem recall --json` prints.",
			req: tools.RecallRequest{}, resp: render.JSONResults{}, handle: s.recall},
		{method: "GET", path: "/v1/turns/{id}", id: "getTurn", summary: "recall_by_id: one turn by id, with neighbours. Returns the shape `huimem get --json` prints.",
			params: []param{{name: "id", in: "path", typ: "string", required: true, desc: "the turn id"}, ctxParam, nsParam},
			resp:   render.JSONResults{}, handle: s.turn},
		{method: "POST", path: "/v1/messages", id: "appendMessages", summary: "Append one message, or a batch as {\"messages\": [...]}, all or nothing. Recallable by the next request.",
			req: tools.RememberRequest{}, oneOf: []any{tools.RememberRequest{}, MessagesRequest{}}, resp: MessagesResponse{}, status: 201, handle: s.messages},
		{method: "POST", path: "/v1/tools/{name}", id: "callTool", summary: "Run a tool call (recall_memory, recall_by_id, remember, list_sessions, memory_stats, resolve_time, export_session, forget_memory) with its JSON arguments; returns the text for the LLM and the structured result.",
			params: []param{{name: "name", in: "path", typ: "string", required: true, desc: "the tool's name"}},
			req:    map[string]any{}, reqSchema: map[string]any{"type": "object", "description": "the tool's arguments, as in its schema (huimem tools)"},
			resp: ToolResponse{}, handle: s.tool},
		{method: "GET", path: "/v1/stats", id: "stats", summary: "Counts of what the caller's memory holds.",
			resp: StatsResponse{}, handle: s.stats},
	}
	routes = append(routes, s.adminRoutes()...)
	if s.opts.Takeover != nil {
		routes = append(routes, s.sessionRoutes()...)
	}
	return routes
}

func (s *Server) recall(r *http.Request, d *tools.Dispatcher, body []byte) (int, any, error) {
	if err := checkJSON(body); err != nil {
		return 0, nil, err
	}
	req, err := tools.DecodeRecall(body, tools.DialectAPI, true)
	if err != nil {
		return 0, nil, err
	}
	res, err := d.Recall(r.Context(), req)
	if err != nil {
		return 0, nil, err
	}
	return 200, render.NewJSONResults(res), nil
}

func (s *Server) turn(r *http.Request, d *tools.Dispatcher, _ []byte) (int, any, error) {
	req := tools.ByIDRequest{TurnID: r.PathValue("id"), Namespace: r.URL.Query().Get("namespace")}
	if v := r.URL.Query().Get("context"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, nil, errorf(tools.CodeInvalidArguments, fmt.Sprintf("context %q is not an integer", v))
		}
		req.ContextWindow = &n
	}
	hits, err := d.ByID(r.Context(), req)
	if err != nil {
		return 0, nil, err
	}
	return 200, render.JSONResults{Query: req.TurnID, Results: render.NewJSONHits(hits)}, nil
}

func (s *Server) messages(r *http.Request, d *tools.Dispatcher, body []byte) (int, any, error) {
	if err := checkJSON(body); err != nil {
		return 0, nil, err
	}
	var raws []json.RawMessage
	var batch struct {
		Messages []json.RawMessage `json:"messages"`
	}
	var probe map[string]json.RawMessage
	json.Unmarshal(body, &probe)
	if _, ok := probe["messages"]; ok {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&batch); err != nil {
			return 0, nil, errorf(tools.CodeInvalidArguments, "a batch is {\"messages\": [message, ...]}: "+err.Error())
		}
		if len(batch.Messages) == 0 {
			return 0, nil, errorf(tools.CodeInvalidArguments, "messages is empty")
		}
		raws = batch.Messages
	} else {
		raws = []json.RawMessage{body}
	}
	msgs := make([]core.Message, len(raws))
	for i, raw := range raws {
		req, err := tools.DecodeRemember(raw, tools.DialectAPI, true)
		if err == nil {
			msgs[i], err = d.Message(req)
		}
		if err != nil {
			if len(raws) > 1 {
				te := tools.AsError(err)
				return 0, nil, errorf(te.Code, fmt.Sprintf("messages[%d]: %s", i, te.Message))
			}
			return 0, nil, err
		}
	}
	// An accepted append completes even if the client goes away, so that
	// what was sent is either wholly stored or not at all.
	res, err := s.mem.Ingest(context.WithoutCancel(r.Context()), msgs)
	if err != nil {
		return 0, nil, err
	}
	out := MessagesResponse{Messages: len(msgs), Added: res.Added, Duplicates: res.Duplicates, Stored: make([]StoredMessage, len(msgs))}
	for i, m := range msgs {
		out.Stored[i] = StoredMessage{Namespace: m.Namespace, Session: m.Session, Time: m.Time, Role: m.Role, Speaker: m.Speaker, Text: m.Text, Ref: m.Ref}
	}
	for _, i := range res.DuplicateIndexes {
		out.Stored[i].Duplicate = true
	}
	return 201, out, nil
}

func (s *Server) tool(r *http.Request, d *tools.Dispatcher, body []byte) (int, any, error) {
	if len(bytes.TrimSpace(body)) > 0 {
		if err := checkJSON(body); err != nil {
			return 0, nil, err
		}
	}
	res, err := d.Call(r.Context(), r.PathValue("name"), body)
	if err != nil {
		return 0, nil, err
	}
	out := ToolResponse{Tool: res.Tool, Text: res.Text}
	switch {
	case res.Recall != nil:
		out.Result = render.NewJSONResults(res.Recall)
	case res.Turns != nil:
		out.Result = render.JSONResults{Query: "", Results: render.NewJSONHits(res.Turns)}
	case res.Stored != nil:
		out.Result = res.Stored
	case res.Data != nil:
		out.Result = res.Data
	}
	return 200, out, nil
}

func (s *Server) stats(r *http.Request, d *tools.Dispatcher, _ []byte) (int, any, error) {
	st, err := s.mem.Stats(r.Context())
	if err != nil {
		return 0, nil, err
	}
	out := StatsResponse{Chunks: st.Chunks, Messages: st.Messages, Sessions: st.Sessions, Namespaces: st.Namespaces, Embedder: st.Embedder.Name}
	if o := d.Options(); !o.AllowNamespace {
		// A namespace-bound token sees only its own namespace.
		n := st.Namespaces[o.Namespace]
		out = StatsResponse{Chunks: n, Namespaces: map[string]int{o.Namespace: n}, Embedder: st.Embedder.Name}
	}
	return 200, out, nil
}

// checkJSON reports a body that is not JSON as bad_json, with its offset.
func checkJSON(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf(CodeBadJSON, "the request body is empty; send a JSON object")
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			return errorf(CodeBadJSON, fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se))
		}
		return errorf(CodeBadJSON, "malformed JSON: "+err.Error())
	}
	if _, ok := v.(map[string]any); !ok {
		return errorf(CodeBadJSON, "the request body must be a JSON object")
	}
	return nil
}
