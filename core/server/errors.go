package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/huimemory/huimemory/core/tools"
)

// Error codes the HTTP API adds to the tools' codes.
const (
	CodeBadJSON          = "bad_json"
	CodeUnauthorized     = "unauthorized"
	CodeTooLarge         = "body_too_large"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeNoRoute          = "no_route"
	CodeUnavailable      = "unavailable"
	CodeSessionClosed    = "session_closed"
)

// ErrorBody is the JSON of every error response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is a stable code and a human-readable message.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// status maps an error code to its HTTP status.
func status(code string) int {
	switch code {
	case tools.CodeInvalidArguments, CodeBadJSON:
		return http.StatusBadRequest
	case CodeUnauthorized:
		return http.StatusUnauthorized
	case tools.CodeForbidden:
		return http.StatusForbidden
	case tools.CodeNotFound, tools.CodeUnknownTool, CodeNoRoute:
		return http.StatusNotFound
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeUnavailable:
		return http.StatusServiceUnavailable
	case CodeSessionClosed:
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// apiError is an error with its code.
type apiError struct {
	code, msg string
}

func (e *apiError) Error() string { return e.msg }

func errorf(code, msg string) error { return &apiError{code, msg} }

// writeError writes err as an error body with the status of its code.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	var mbe *http.MaxBytesError
	d := ErrorDetail{Code: tools.CodeInternal, Message: err.Error()}
	switch {
	case errors.As(err, &ae):
		d = ErrorDetail{Code: ae.code, Message: ae.msg}
	case errors.As(err, &mbe):
		d = ErrorDetail{Code: CodeTooLarge, Message: "request body is larger than the server's limit (server.max_body_mb)"}
	default:
		te := tools.AsError(err)
		d = ErrorDetail{Code: te.Code, Message: te.Message}
	}
	writeJSON(w, status(d.Code), ErrorBody{Error: d})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
