package proxy

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/huimemory/huimemory/core/tools"
)

// Error types, as OpenAI's API names them, plus upstream_error.
const (
	typeInvalid  = "invalid_request_error"
	typeServer   = "server_error"
	typeUpstream = "upstream_error"
)

// Error codes of the proxy's own errors about the upstream.
const (
	// CodeUpstreamError: the upstream answered with an error status.
	CodeUpstreamError = "upstream_error"
	// CodeUpstreamUnreachable: the upstream could not be reached.
	CodeUpstreamUnreachable = "upstream_unreachable"
	// CodeUpstreamTimeout: the upstream took longer than
	// takeover.upstream_timeout.
	CodeUpstreamTimeout = "upstream_timeout"
	// CodeBadUpstreamResponse: the upstream's answer was not a chat
	// completion.
	CodeBadUpstreamResponse = "bad_upstream_response"
	// CodeToolRoundsExceeded: the model kept calling memory tools after
	// takeover.max_tool_rounds rounds.
	CodeToolRoundsExceeded = "tool_rounds_exceeded"
)

// Error is an OpenAI-style error response.
type Error struct {
	Status  int    `json:"-"`
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"code"`
	// raw, when set, is an upstream error body passed on as it is.
	raw []byte
}

func (e *Error) Error() string { return e.Message }

// ErrorBody is the JSON of an error response.
type ErrorBody struct {
	Error *Error `json:"error"`
}

func invalid(status int, code, msg string) *Error {
	return &Error{Status: status, Type: typeInvalid, Code: code, Message: msg}
}

func internal(err error) *Error {
	return &Error{Status: http.StatusInternalServerError, Type: typeServer, Code: tools.CodeInternal, Message: err.Error()}
}

// fromTools maps a tools or kernel error to an OpenAI-style error.
func fromTools(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	te := tools.AsError(err)
	switch te.Code {
	case tools.CodeInvalidArguments:
		return &Error{Status: http.StatusBadRequest, Type: typeInvalid, Code: te.Code, Message: err.Error()}
	case tools.CodeForbidden:
		return &Error{Status: http.StatusForbidden, Type: typeInvalid, Code: te.Code, Message: te.Message}
	}
	return internal(err)
}

// writeError writes err as an OpenAI-style error body.
func writeError(w http.ResponseWriter, err error) {
	e, ok := err.(*Error)
	if !ok {
		e = internal(err)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(e.Status)
	if e.raw != nil {
		w.Write(e.raw)
		return
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(ErrorBody{Error: e})
}
