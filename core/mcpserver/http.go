package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/huimemory/huimemory/core/tools"
)

// Error codes of [HTTPHandler]'s own error responses.
const (
	CodeUnauthorized = "unauthorized"
	CodeForbidden    = tools.CodeForbidden
)

// ErrForbidden, returned (or wrapped) by an [HTTPHandler] callback, answers
// the request with 403 instead of 401. A [*tools.Error] with code forbidden
// does the same.
var ErrForbidden = errors.New("forbidden")

// Binder returns the dispatcher a request runs against (the one bound to
// its bearer token's namespace, say), or an error when the request may not
// use the server.
type Binder func(*http.Request) (*tools.Dispatcher, error)

// HTTPHandler serves MCP over the streamable HTTP transport (the SDK's
// [mcp.StreamableHTTPHandler]) in stateless mode: every HTTP request is
// authorised afresh by bind and answered by a server built by [New] from
// the dispatcher bind returned, so a session can never outlive or change
// the namespace its token grants. It serves POST only; GET (the optional
// server-to-client stream) gets 405, which MCP clients accept. Responses
// are plain JSON rather than event streams.
//
// When bind fails the request is answered with a JSON error body,
// {"error": {"code", "message"}}: 403 with code forbidden when the error
// is (or wraps) [ErrForbidden] or a forbidden [*tools.Error], otherwise
// 401 with code unauthorized and a WWW-Authenticate: Bearer header.
//
// The handler keeps no state between requests and is safe for concurrent
// use; the SDK rejects requests that reach a loopback listener with a
// non-loopback Host header (DNS rebinding) and bodies over its default
// limit.
//
// Each extension is applied to every server built, with its dispatcher:
// takeover mode adds the kernel's tools this way ([KernelTools]).
func HTTPHandler(bind Binder, ext ...Extension) http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		b, _ := r.Context().Value(boundKey{}).(*bound)
		if b == nil {
			return nil
		}
		if b.server == nil { // the SDK may ask more than once per request
			b.server = New(b.d, "", ext...)
		}
		return b.server
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := bind(r)
		if err == nil && d == nil {
			err = errors.New("no memory is bound to this request")
		}
		if err != nil {
			writeBindError(w, err)
			return
		}
		ctx := context.WithValue(r.Context(), boundKey{}, &bound{d: d})
		sdk.ServeHTTP(w, r.WithContext(ctx))
	})
}

type boundKey struct{}

// bound is what one request runs against. The SDK calls its server
// callback from the request's own goroutine, so no lock is needed.
type bound struct {
	d      *tools.Dispatcher
	server *mcp.Server
}

func writeBindError(w http.ResponseWriter, err error) {
	status, detail := http.StatusUnauthorized, ErrorDetail{Code: CodeUnauthorized, Message: err.Error()}
	var te *tools.Error
	if errors.Is(err, ErrForbidden) || (errors.As(err, &te) && te.Code == tools.CodeForbidden) {
		status, detail.Code = http.StatusForbidden, CodeForbidden
	} else {
		w.Header().Set("WWW-Authenticate", `Bearer realm="huimemory"`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(errorBody{detail})
}
