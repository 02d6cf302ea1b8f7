package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/kernel"
	"github.com/huimemory/huimemory/core/server"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/oaihttp"
)

// Headers the proxy reads.
const (
	// HeaderSession names the session; the request's "user" field is
	// the fallback.
	HeaderSession = "X-Huimem-Session"
	// HeaderNamespace picks a namespace; only a token that may use other
	// namespaces (server.token, or no token) may send it.
	HeaderNamespace = "X-Huimem-Namespace"
	// HeaderBudget overrides takeover.budget_tokens for one request.
	HeaderBudget = "X-Huimem-Budget"
)

// Headers the proxy adds to its responses.
const (
	// HeaderContextTokens is the assembled context's size in tokens: the
	// kernel's total plus the host's own system messages and tools.
	HeaderContextTokens = "X-Huimem-Context-Tokens"
	// HeaderRecalled lists the ids of the long-term turns in the memory
	// block, comma-separated.
	HeaderRecalled = "X-Huimem-Recalled"
)

// Options configure a [Handler].
type Options struct {
	// Config is the takeover section of the configuration: Upstream (the
	// OpenAI-compatible base URL, up to /v1), UpstreamTimeout,
	// MaxToolRounds, BudgetTokens and the kernel's settings. Defaults are
	// filled in.
	Config core.TakeoverConfig
	// APIKey, when set, is sent upstream as "Authorization: Bearer KEY".
	// The host's own Authorization header (its HuiMemory token) is never
	// forwarded.
	APIKey string
	// Client calls the upstream; nil means a client of its own.
	Client *http.Client
	// Tools are the dispatcher options used when a request carries no
	// dispatcher from the server (the handler served on its own). With
	// one, its options apply.
	Tools tools.Options
	// MaxBodyMB bounds the request body; default 8.
	MaxBodyMB int
}

// Handler is the memory proxy. It is safe for concurrent use.
type Handler struct {
	mem  kernel.Memory
	opts Options
	url  string
	// up calls the upstream's /chat/completions at url.
	up    *oaihttp.Client
	locks sessionLocks
}

// New returns the memory proxy over mem. It checks the upstream URL and
// the kernel settings; it does not call the upstream.
func New(mem kernel.Memory, opts Options) (*Handler, error) {
	c := core.Config{Takeover: opts.Config}
	c.SetDefaults()
	opts.Config = c.Takeover
	if opts.MaxBodyMB <= 0 {
		opts.MaxBodyMB = 8
	}
	up := strings.TrimSpace(opts.Config.Upstream)
	if up == "" {
		return nil, fmt.Errorf("%w: proxy: no upstream: set takeover.upstream or pass --upstream URL (an OpenAI-compatible base URL such as http://127.0.0.1:11434/v1)", core.ErrInvalid)
	}
	u, err := url.Parse(up)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: proxy: upstream %q is not an http(s) URL such as http://127.0.0.1:11434/v1", core.ErrInvalid, up)
	}
	if _, err := kernel.New(mem, kernel.Options{Config: opts.Config}); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	h := &Handler{mem: mem, opts: opts, url: strings.TrimSuffix(up, "/") + "/chat/completions"}
	h.up = oaihttp.New(h.url, oaihttp.Options{APIKey: opts.APIKey, HTTPClient: opts.Client, MaxErrorBody: maxErrorBody})
	return h, nil
}

// ServeHTTP serves POST /v1/chat/completions.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, &Error{Status: http.StatusMethodNotAllowed, Type: typeInvalid, Code: "method_not_allowed",
			Message: fmt.Sprintf("%s takes POST, not %s", r.URL.Path, r.Method)})
		return
	}
	c, err := h.prepare(w, r)
	if err != nil {
		writeError(w, err)
		return
	}
	if c.stream {
		h.serveStream(w, r, c)
		return
	}
	h.serveJSON(w, r, c)
}

// call is one request in progress.
type call struct {
	k       *kernel.Kernel
	session string
	stream  bool
	// body is the host's request, field by field; messages and tools
	// are replaced for each upstream call.
	body map[string]json.RawMessage
	// messages are what the upstream gets, growing by the memory tool
	// rounds; hostTools the host's own tool schemas, memTools ours.
	messages  []json.RawMessage
	hostTools []json.RawMessage
	memTools  []json.RawMessage
	// memory are the tool names the proxy runs itself.
	memory   map[string]bool
	assembly *kernel.Assembled
	extra    int // tokens of the host's own system messages, tools and tail
}

// prepare reads the request, stores the user message and assembles the
// context.
func (h *Handler) prepare(w http.ResponseWriter, r *http.Request) (*call, error) {
	ctx := r.Context()
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(h.opts.MaxBodyMB)<<20))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, invalid(http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the request body is larger than %d MB", h.opts.MaxBodyMB))
		}
		return nil, invalid(http.StatusBadRequest, "bad_request", "reading the request body: "+err.Error())
	}
	req, err := parseRequest(raw)
	if err != nil {
		return nil, err
	}
	session := strings.TrimSpace(r.Header.Get(HeaderSession))
	if session == "" {
		session = req.user
	}
	if session == "" {
		return nil, invalid(http.StatusBadRequest, "missing_session",
			"no session id: send the header "+HeaderSession+": ID, or the request's \"user\" field")
	}

	topts := h.opts.Tools
	if d := server.DispatcherFrom(ctx); d != nil {
		topts = d.Options()
		if ns := r.Header.Get(HeaderNamespace); ns != "" {
			if topts.Namespace, err = d.Namespace(ns); err != nil {
				return nil, fromTools(err)
			}
		}
	} else if ns := r.Header.Get(HeaderNamespace); ns != "" && ns != topts.Namespace {
		return nil, &Error{Status: http.StatusForbidden, Type: typeInvalid, Code: tools.CodeForbidden, Message: fmt.Sprintf("namespace %q is not yours to use", ns)}
	}
	// The model gets the memory tools of this namespace only, and no
	// remember: the proxy stores the conversation itself.
	topts.AllowNamespace, topts.Remember = false, false
	k, err := kernel.New(h.mem, kernel.Options{Config: h.opts.Config, Tools: topts})
	if err != nil {
		return nil, internal(err)
	}

	budget := h.opts.Config.BudgetTokens
	if v := r.Header.Get(HeaderBudget); v != "" {
		if budget, err = strconv.Atoi(v); err != nil || budget <= 0 {
			return nil, invalid(http.StatusBadRequest, "invalid_budget", fmt.Sprintf("%s %q is not a positive number of tokens", HeaderBudget, v))
		}
	}

	// The host's own messages and tools take their share of the budget
	// first.
	tok := k.Tokenizer()
	extra := 0
	for _, m := range req.system {
		extra += tok.Count(m.text) + kernel.MessageOverhead
	}
	for _, m := range req.tail {
		extra += tok.Count(string(m.raw)) + kernel.MessageOverhead
	}
	if len(req.tools) > 0 {
		b, _ := json.Marshal(req.tools)
		extra += tok.Count(string(b))
	}
	if budget-extra < kernelMinBudget {
		return nil, invalid(http.StatusBadRequest, "budget_too_small", fmt.Sprintf(
			"the host's system messages, tools and tool results take %d of the %d-token budget, leaving less than %d for memory: raise takeover.budget_tokens or %s", extra, budget, kernelMinBudget, HeaderBudget))
	}

	if err := h.storeUser(ctx, k, session, req.userText); err != nil {
		return nil, err
	}
	a, err := k.Context(ctx, session, req.userText, budget-extra)
	if err != nil {
		if errors.Is(err, core.ErrInvalid) {
			return nil, invalid(http.StatusBadRequest, "invalid_budget", err.Error())
		}
		return nil, internal(fmt.Errorf("assembling the context: %w", err))
	}

	c := &call{k: k, session: session, stream: req.stream, body: req.fields, hostTools: req.tools,
		memory: map[string]bool{}, assembly: a, extra: extra}
	for _, m := range req.system {
		c.messages = append(c.messages, m.raw)
	}
	for i, m := range a.Messages {
		if i == len(a.Messages)-1 && req.userParts {
			// Content parts (images, files) go as the host sent them;
			// the kernel's text stands for them in storage and counting.
			c.messages = append(c.messages, req.userRaw)
			continue
		}
		b, _ := json.Marshal(m)
		c.messages = append(c.messages, b)
	}
	for _, m := range req.tail {
		c.messages = append(c.messages, m.raw)
	}
	hostNames := map[string]bool{}
	for _, t := range req.tools {
		hostNames[toolName(t)] = true
	}
	for _, t := range a.Tools {
		name, _ := t["function"].(map[string]any)["name"].(string)
		if name == "" || hostNames[name] {
			continue // a host tool of the same name is the host's
		}
		b, err := json.Marshal(t)
		if err != nil {
			return nil, internal(err)
		}
		c.memTools = append(c.memTools, b)
		c.memory[name] = true
	}
	return c, nil
}

// kernelMinBudget is the smallest budget the kernel takes.
const kernelMinBudget = 64

// storeUser stores the new user message unless it is already the
// session's last message with no answer after it: a retry.
func (h *Handler) storeUser(ctx context.Context, k *kernel.Kernel, session, text string) error {
	unlock := h.locks.lock(k.Namespace() + "\x00" + session)
	defer unlock()
	// An accepted message is stored even if the host goes away.
	ctx = context.WithoutCancel(ctx)
	turns, err := h.mem.SessionTurns(ctx, k.Namespace(), session, 1)
	if err != nil && !errors.Is(err, core.ErrNotFound) {
		return internal(fmt.Errorf("reading session %q: %w", session, err))
	}
	if n := len(turns); n > 0 {
		msgs := turns[n-1].Messages
		if m := len(msgs); m > 0 && msgs[m-1].Role == core.RoleUser && msgs[m-1].Text == text {
			return nil
		}
	}
	if _, _, err := k.Append(ctx, session, kernel.Message{Role: string(core.RoleUser), Text: text}); err != nil {
		if errors.Is(err, kernel.ErrSessionClosed) {
			return &Error{Status: http.StatusConflict, Type: typeInvalid, Code: "session_closed", Message: err.Error()}
		}
		return fromTools(fmt.Errorf("storing the user message: %w", err))
	}
	return nil
}

// storeAnswer stores the model's final answer in the session.
func (h *Handler) storeAnswer(ctx context.Context, c *call, text string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	_, _, err := c.k.Append(context.WithoutCancel(ctx), c.session, kernel.Message{Role: string(core.RoleAssistant), Text: text})
	if err != nil {
		return internal(fmt.Errorf("storing the answer: %w", err))
	}
	return nil
}

// sessionLocks serialises the check-and-store of one session's user
// messages, so that two copies of a request racing store one message.
type sessionLocks struct {
	mu sync.Mutex
	m  map[string]*sessionLock
}

type sessionLock struct {
	mu   sync.Mutex
	refs int
}

func (s *sessionLocks) lock(key string) (unlock func()) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]*sessionLock{}
	}
	l := s.m[key]
	if l == nil {
		l = &sessionLock{}
		s.m[key] = l
	}
	l.refs++
	s.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		s.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(s.m, key)
		}
		s.mu.Unlock()
	}
}

// setHeaders adds the proxy's headers to a response.
func (c *call) setHeaders(w http.ResponseWriter) {
	w.Header().Set(HeaderSession, c.session)
	w.Header().Set(HeaderContextTokens, strconv.Itoa(c.assembly.Tokens.Total+c.extra))
	if len(c.assembly.Recalled) > 0 {
		w.Header().Set(HeaderRecalled, strings.Join(c.assembly.Recalled, ","))
	}
}
