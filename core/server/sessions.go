package server

import (
	"encoding/json"
	"net/http"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/kernel"
	"github.com/huimemory/huimemory/core/tools"
)

// SessionMessageRequest is the body of POST /v1/sessions/{id}/messages.
type SessionMessageRequest struct {
	Role    string `json:"role"`
	Text    string `json:"text"`
	Speaker string `json:"speaker,omitempty"`
	// Time is RFC 3339; default now.
	Time string `json:"time,omitempty"`
	Ref  string `json:"ref,omitempty"`
}

// ContextRequest is the body of POST /v1/sessions/{id}/context.
type ContextRequest struct {
	// Message is the new user message.
	Message string `json:"message"`
	// Budget is the token budget; 0 means takeover.budget_tokens.
	Budget int `json:"budget,omitempty"`
}

// SessionResponse is a session read back, with its messages in order.
type SessionResponse struct {
	engine.SessionInfo
	Messages []StoredMessage `json:"messages"`
}

// SessionsResponse lists sessions, newest first.
type SessionsResponse struct {
	Sessions []engine.SessionInfo `json:"sessions"`
}

// ClosedResponse confirms a close.
type ClosedResponse struct {
	Session string `json:"session"`
	Closed  bool   `json:"closed"`
}

func (s *Server) sessionRoutes() []*route {
	id := param{name: "id", in: "path", typ: "string", required: true, desc: "the session id"}
	return []*route{
		{method: "GET", path: "/v1/sessions", id: "listSessions", summary: "Takeover: the caller's sessions, newest first.",
			resp: SessionsResponse{}, handle: s.listSessions},
		{method: "GET", path: "/v1/sessions/{id}", id: "readSession", summary: "Takeover: a session's messages, in order.",
			params: []param{id}, resp: SessionResponse{}, handle: s.readSession},
		{method: "POST", path: "/v1/sessions/{id}/messages", id: "appendToSession", summary: "Takeover: store one message of a session durably.",
			params: []param{id}, req: SessionMessageRequest{}, resp: MessagesResponse{}, status: 201, handle: s.appendToSession},
		{method: "POST", path: "/v1/sessions/{id}/context", id: "assembleContext", summary: "Takeover: the messages to send to the LLM for a new user message, within a token budget.",
			params: []param{id}, req: ContextRequest{}, resp: kernel.Assembled{}, handle: s.assembleContext},
		{method: "POST", path: "/v1/sessions/{id}/close", id: "closeSession", summary: "Takeover: close a session; its turns stay recallable.",
			params: []param{id}, resp: ClosedResponse{}, handle: s.closeSession},
	}
}

// Kernel returns the memory kernel for a request's dispatcher: the
// request's namespace, the server's takeover configuration.
func (s *Server) Kernel(d *tools.Dispatcher) (*kernel.Kernel, error) {
	cfg := core.TakeoverConfig{}
	if s.opts.Takeover != nil {
		cfg = *s.opts.Takeover
	}
	return kernel.New(s.mem, kernel.Options{Config: cfg, Tools: d.Options()})
}

func (s *Server) listSessions(r *http.Request, d *tools.Dispatcher, _ []byte) (int, any, error) {
	k, err := s.Kernel(d)
	if err != nil {
		return 0, nil, err
	}
	list, err := k.Sessions(r.Context())
	if err != nil {
		return 0, nil, err
	}
	if list == nil {
		list = []engine.SessionInfo{}
	}
	return 200, SessionsResponse{Sessions: list}, nil
}

func (s *Server) readSession(r *http.Request, d *tools.Dispatcher, _ []byte) (int, any, error) {
	k, err := s.Kernel(d)
	if err != nil {
		return 0, nil, err
	}
	id := r.PathValue("id")
	info, err := s.mem.Session(r.Context(), k.Namespace(), id)
	if err != nil {
		return 0, nil, err
	}
	msgs, err := k.Read(r.Context(), id)
	if err != nil {
		return 0, nil, err
	}
	out := SessionResponse{SessionInfo: info, Messages: make([]StoredMessage, len(msgs))}
	for i, m := range msgs {
		out.Messages[i] = storedMessage(m)
	}
	return 200, out, nil
}

func storedMessage(m core.Message) StoredMessage {
	return StoredMessage{Namespace: m.Namespace, Session: m.Session, Time: m.Time, Role: m.Role, Speaker: m.Speaker, Text: m.Text, Ref: m.Ref}
}

func (s *Server) appendToSession(r *http.Request, d *tools.Dispatcher, body []byte) (int, any, error) {
	var req SessionMessageRequest
	if err := decodeStrict(body, &req); err != nil {
		return 0, nil, err
	}
	k, err := s.Kernel(d)
	if err != nil {
		return 0, nil, err
	}
	m := kernel.Message{Role: req.Role, Text: req.Text, Speaker: req.Speaker, Ref: req.Ref}
	if req.Time != "" {
		msg, err := d.Message(tools.RememberRequest{Text: "x", Role: "user", Session: "x", Time: req.Time})
		if err != nil {
			return 0, nil, err
		}
		m.Time = msg.Time
	}
	msg, res, err := k.Append(r.Context(), r.PathValue("id"), m)
	if err != nil {
		if errorsIs(err, kernel.ErrSessionClosed) {
			return 0, nil, errorf(CodeSessionClosed, err.Error())
		}
		return 0, nil, err
	}
	sm := storedMessage(msg)
	sm.Duplicate = res.Added == 0
	return 201, MessagesResponse{Messages: 1, Added: res.Added, Duplicates: res.Duplicates, Stored: []StoredMessage{sm}}, nil
}

func (s *Server) assembleContext(r *http.Request, d *tools.Dispatcher, body []byte) (int, any, error) {
	var req ContextRequest
	if err := decodeStrict(body, &req); err != nil {
		return 0, nil, err
	}
	if req.Budget < 0 {
		return 0, nil, errorf(tools.CodeInvalidArguments, "budget must not be negative")
	}
	k, err := s.Kernel(d)
	if err != nil {
		return 0, nil, err
	}
	a, err := k.Context(r.Context(), r.PathValue("id"), req.Message, req.Budget)
	if err != nil {
		return 0, nil, err
	}
	return 200, a, nil
}

func (s *Server) closeSession(r *http.Request, d *tools.Dispatcher, _ []byte) (int, any, error) {
	k, err := s.Kernel(d)
	if err != nil {
		return 0, nil, err
	}
	if err := k.Close(r.Context(), r.PathValue("id")); err != nil {
		return 0, nil, err
	}
	return 200, ClosedResponse{Session: r.PathValue("id"), Closed: true}, nil
}

// decodeStrict decodes a JSON object body, rejecting unknown fields.
func decodeStrict(body []byte, v any) error {
	if err := checkJSON(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytesReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(tools.CodeInvalidArguments, err.Error())
	}
	return nil
}
