package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/kernel"
	"github.com/huimemory/huimemory/core/tools"
)

// Memory is what the server serves. [*engine.Engine] implements it.
type Memory interface {
	kernel.Memory
	Stats(ctx context.Context) (engine.Stats, error)
}

var _ Memory = (*engine.Engine)(nil)

// Options configure a [Server].
type Options struct {
	// Config is the server section of the configuration (address, tokens,
	// body limit, shutdown timeout), with defaults set.
	Config core.ServerConfig
	// Tools are the dispatcher options every request starts from; the
	// server sets Namespace and AllowNamespace from the request's token.
	Tools tools.Options
	// Takeover, when set, adds the memory kernel's session endpoints
	// (takeover mode) with this configuration.
	Takeover *core.TakeoverConfig
	// Version is reported by /healthz and the OpenAPI document.
	Version string
	// Logf, when set, receives one line per server event (not per request).
	Logf func(format string, args ...any)
}

// Server is the HTTP API over one [Memory]. It is safe for concurrent use.
type Server struct {
	mem    Memory
	opts   Options
	mux    *http.ServeMux
	routes []*route
}

// New returns a server over mem. It checks the token configuration but
// does not listen; see [Server.Serve] and [Server.Handler].
func New(mem Memory, opts Options) (*Server, error) {
	if opts.Config.MaxBodyMB <= 0 {
		opts.Config.MaxBodyMB = 8
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	seen := map[string]bool{}
	for _, t := range append([]core.TokenSpec{{Token: opts.Config.Token}}, opts.Config.Tokens...) {
		if t.Token == "" {
			continue
		}
		if seen[t.Token] {
			return nil, fmt.Errorf("%w: server: the same token is given twice", core.ErrInvalid)
		}
		seen[t.Token] = true
	}
	s := &Server{mem: grouped{Memory: mem, app: &appender{mem: mem}}, opts: opts, mux: http.NewServeMux()}
	s.routes = s.routeTable()
	byPath := map[string][]*route{}
	var order []string
	for _, r := range s.routes {
		if byPath[r.path] == nil {
			order = append(order, r.path)
		}
		byPath[r.path] = append(byPath[r.path], r)
	}
	for _, p := range order {
		s.mux.Handle(p, s.methods(byPath[p]))
	}
	s.mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(CodeNoRoute, fmt.Sprintf("no route for %s %s (see GET /openapi.json)", r.Method, r.URL.Path)))
	}))
	return s, nil
}

// Handle mounts another handler, such as the MCP endpoint, behind the
// server's authentication. The handler finds the request's dispatcher
// with [DispatcherFrom].
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, s.auth(h))
}

// Memory returns the memory the server serves, with appends
// group-committed: handlers mounted with [Server.Handle] should write
// through it.
func (s *Server) Memory() Memory { return s.mem }

// Handler returns the server's root handler.
func (s *Server) Handler() http.Handler { return s.mux }

// Authless paths answer without a token.
func authless(path string) bool { return path == "/healthz" || path == "/openapi.json" }

// methods dispatches one path's routes by method, with a JSON 405.
func (s *Server) methods(rs []*route) http.Handler {
	allowed := make([]string, len(rs))
	for i, r := range rs {
		allowed[i] = r.method
	}
	inner := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		for _, r := range rs {
			if r.method == req.Method || (r.method == http.MethodGet && req.Method == http.MethodHead) {
				s.serveRoute(w, req, r)
				return
			}
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, errorf(CodeMethodNotAllowed, fmt.Sprintf("%s does not take %s (allowed: %s)", req.URL.Path, req.Method, strings.Join(allowed, ", "))))
	})
	if authless(rs[0].path) {
		return inner
	}
	return s.auth(inner)
}

func (s *Server) serveRoute(w http.ResponseWriter, req *http.Request, r *route) {
	req.Body = http.MaxBytesReader(w, req.Body, int64(s.opts.Config.MaxBodyMB)<<20)
	var body []byte
	if r.req != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			writeError(w, err)
			return
		}
	}
	if r.raw {
		req = req.WithContext(context.WithValue(req.Context(), writerKey{}, w))
	}
	code, v, err := r.handle(req, DispatcherFrom(req.Context()), body)
	if err != nil {
		writeError(w, err)
		return
	}
	if !r.raw {
		writeJSON(w, code, v)
	}
}

type ctxKey struct{}

// writerKey carries the response writer to a raw route's handler.
type writerKey struct{}

func responseWriterFrom(r *http.Request) http.ResponseWriter {
	return r.Context().Value(writerKey{}).(http.ResponseWriter)
}

// DispatcherFrom returns the dispatcher the server made for a request,
// bound to the namespace of its token, or nil outside the server.
func DispatcherFrom(ctx context.Context) *tools.Dispatcher {
	d, _ := ctx.Value(ctxKey{}).(*tools.Dispatcher)
	return d
}

// auth checks the bearer token, if the server has any, and puts the
// request's dispatcher in its context.
func (s *Server) auth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		opts, err := s.access(r)
		if err != nil {
			if ae, ok := err.(*apiError); ok && ae.code == CodeUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="huimem"`)
			}
			writeError(w, err)
			return
		}
		d := tools.New(s.mem, opts)
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, d)))
	})
}

// access works out what a request may do from its token.
func (s *Server) access(r *http.Request) (tools.Options, error) {
	opts := s.opts.Tools
	cfg := s.opts.Config
	if cfg.Token == "" && len(cfg.Tokens) == 0 {
		opts.AllowNamespace = true
		return opts, nil
	}
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || tok == "" {
		return opts, errorf(CodeUnauthorized, "missing bearer token: send \"Authorization: Bearer TOKEN\"")
	}
	// Compare with every token, in constant time, to leak nothing.
	match := -2
	if cfg.Token != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(cfg.Token)) == 1 {
		match = -1
	}
	for i, t := range cfg.Tokens {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(t.Token)) == 1 {
			match = i
		}
	}
	switch {
	case match == -1:
		opts.AllowNamespace = true
	case match >= 0:
		opts.Namespace, opts.AllowNamespace = cfg.Tokens[match].Namespace, false
	default:
		return opts, errorf(CodeUnauthorized, "unknown bearer token")
	}
	return opts, nil
}

// CheckAddr refuses to listen off loopback without a token.
func CheckAddr(cfg core.ServerConfig) error {
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("%w: server.addr %q: %v", core.ErrInvalid, cfg.Addr, err)
	}
	if loopback(host) || cfg.Token != "" || len(cfg.Tokens) > 0 {
		return nil
	}
	return fmt.Errorf("%w: refusing to listen on %s without a token: set server.token (or HUIMEM_SERVER_TOKEN), or listen on 127.0.0.1", core.ErrInvalid, cfg.Addr)
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Listen checks the address (see [CheckAddr]) and listens on it.
func (s *Server) Listen() (net.Listener, error) {
	if err := CheckAddr(s.opts.Config); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", s.opts.Config.Addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", s.opts.Config.Addr, err)
	}
	return ln, nil
}

// Serve serves HTTP on ln until ctx ends, then shuts down gracefully: it
// stops accepting connections and waits, up to the configured shutdown
// timeout, for requests in flight. An append that was accepted is durable
// when its response is sent, so a shutdown loses none.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	timeout := s.opts.Config.ShutdownTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}
