package mcpserver_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/mcpserver"
	"github.com/huimemory/huimemory/core/tools"
)

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// serveHTTP serves MCP over streamable HTTP on loopback, binding the
// token "alice-token" to namespace alice and "bob-token" to bob; the
// token "revoked" is forbidden and any other is unauthorised.
func serveHTTP(t *testing.T, e *engine.Engine) *httptest.Server {
	t.Helper()
	tokens := map[string]string{"alice-token": "alice", "bob-token": "bob"}
	h := mcpserver.HTTPHandler(func(r *http.Request) (*tools.Dispatcher, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return nil, errors.New("missing bearer token")
		}
		if tok == "revoked" {
			return nil, fmt.Errorf("token revoked: %w", mcpserver.ErrForbidden)
		}
		ns, ok := tokens[tok]
		if !ok {
			return nil, errors.New("unknown token")
		}
		return dispatcher(e, tools.Options{Namespace: ns, Remember: true}), nil
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func httpClient(t *testing.T, srv *httptest.Server, token string) *mcp.ClientSession {
	t.Helper()
	return clientSession(t, &mcp.StreamableClientTransport{
		Endpoint:   srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token, srv.Client().Transport}},
	})
}

func TestMCPHTTPNamespaceIsolation(t *testing.T) {
	e := openHome(t, "bob")
	srv := serveHTTP(t, e)
	bob := httpClient(t, srv, "bob-token")
	alice := httpClient(t, srv, "alice-token")

	// Bob sees his own memory, and the ids in it.
	s := okText(t, callTool(t, bob, tools.RecallMemory, map[string]any{"query": "ryokan near Gion", "top_k": 1}))
	as := anchors(s)
	if len(as) != 1 || !strings.Contains(s, "Hanamikoji") {
		t.Fatalf("bob's recall:\n%s", s)
	}
	bobID := as[0][0]

	// Alice's schema has no namespace argument.
	list, err := alice.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if strings.Contains(fmt.Sprint(tool.InputSchema), "namespace") {
			t.Errorf("tool %s offers a namespace argument to a bound token: %v", tool.Name, tool.InputSchema)
		}
	}

	// Nothing alice sends reaches bob's memory.
	for _, args := range []map[string]any{
		{"query": "ryokan near Gion"},
		{"query": "Kyoto temples", "top_k": 50, "context_window": 10},
		{"query": "Gion", "filter_expr": "namespace = 'bob'"},
		{"query": "Gion", "filter_expr": "session = 'kyoto' OR NOT session = 'kyoto'"},
		{"query": "Gion", "filter_expr": "id = '" + bobID + "'"},
	} {
		res := callTool(t, alice, tools.RecallMemory, args)
		s := text(t, res)
		if strings.Contains(s, "Hanamikoji") || strings.Contains(s, "Gion corner") || strings.Contains(s, bobID) {
			t.Errorf("alice read bob's memory with %v:\n%s", args, s)
		}
		if !res.IsError && !strings.HasPrefix(s, "No memories found") {
			t.Errorf("alice's recall %v found something in an empty namespace:\n%s", args, s)
		}
	}
	for _, args := range []map[string]any{
		{"query": "Gion", "namespace": "bob"},
		{"query": "Gion", "namespace": "alice"},
	} {
		if code, _ := toolErr(t, callTool(t, alice, tools.RecallMemory, args)); code != tools.CodeInvalidArguments {
			t.Errorf("recall %v: code %s, want invalid_arguments", args, code)
		}
	}
	for _, args := range []map[string]any{
		{"turn_id": bobID},
		{"turn_id": bobID, "context_window": 3},
		{"turn_id": bobID, "namespace": "bob"},
	} {
		code, msg := toolErr(t, callTool(t, alice, tools.RecallByID, args))
		if code != tools.CodeNotFound && code != tools.CodeInvalidArguments || strings.Contains(msg, "Hanamikoji") {
			t.Errorf("recall_by_id %v as alice: %s %q", args, code, msg)
		}
	}
	if code, _ := toolErr(t, callTool(t, alice, tools.Remember, map[string]any{"text": "x", "namespace": "bob"})); code != tools.CodeInvalidArguments {
		t.Errorf("remember into bob: code %s", code)
	}

	// What alice remembers stays hers, and is readable by her next request.
	okText(t, callTool(t, alice, tools.Remember, map[string]any{"text": "Alice's locker code is 4721, near the Gion gym."}))
	if s := okText(t, callTool(t, alice, tools.RecallMemory, map[string]any{"query": "locker code"})); !strings.Contains(s, "4721") {
		t.Errorf("alice cannot read what she remembered:\n%s", s)
	}
	if s := okText(t, callTool(t, bob, tools.RecallMemory, map[string]any{"query": "locker code gym"})); strings.Contains(s, "locker code is 4721") {
		t.Errorf("bob read alice's memory:\n%s", s)
	}
}

func TestMCPHTTPAuth(t *testing.T) {
	srv := serveHTTP(t, openHome(t))
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`
	for _, tt := range []struct {
		name, auth string
		status     int
		code       string
	}{
		{"no token", "", http.StatusUnauthorized, "unauthorized"},
		{"wrong token", "Bearer nope", http.StatusUnauthorized, "unauthorized"},
		{"revoked token", "Bearer revoked", http.StatusForbidden, "forbidden"},
		{"good token", "Bearer alice-token", http.StatusOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/mcp", strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("content type %q", resp.Header.Get("Content-Type"))
			}
			if tt.code == "" {
				var init struct {
					Result struct{ ServerInfo struct{ Name string } }
				}
				if err := json.Unmarshal(body, &init); err != nil || init.Result.ServerInfo.Name != mcpserver.Name {
					t.Errorf("initialize answer %s (%v)", body, err)
				}
				return
			}
			var e struct{ Error mcpserver.ErrorDetail }
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != tt.code || e.Error.Message == "" {
				t.Errorf("error body %s, want code %s", body, tt.code)
			}
			if got := resp.Header.Get("WWW-Authenticate"); (tt.status == http.StatusUnauthorized) != (got != "") {
				t.Errorf("WWW-Authenticate %q with status %d", got, tt.status)
			}
		})
	}

	// GET, the optional server-to-client stream, is not served; the token
	// is checked first.
	for auth, status := range map[string]int{"": http.StatusUnauthorized, "Bearer alice-token": http.StatusMethodNotAllowed} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Errorf("GET with %q: status %d, want %d", auth, resp.StatusCode, status)
		}
	}

	// The SDK client fails to connect without a good token.
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil)
	_, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{"nope", srv.Client().Transport}},
	}, nil)
	if err == nil {
		t.Error("client connected with a bad token")
	}
}
