package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/jsonl"
	"github.com/huimemory/huimemory/timeparse"
)

// Memory is what the tools run against. [*engine.Engine] implements it.
type Memory interface {
	Recall(ctx context.Context, q core.Query) (*core.Results, error)
	RecallByID(ctx context.Context, ns, id string, window int) ([]core.Hit, error)
	Ingest(ctx context.Context, msgs []core.Message) (engine.IngestResult, error)
	Sessions(ctx context.Context, ns string) ([]engine.SessionInfo, error)
	SessionTurns(ctx context.Context, ns, session string, n int) ([]core.Chunk, error)
	Forget(ctx context.Context, opts engine.ForgetOptions) (engine.ForgetResult, error)
	Export(ctx context.Context, w io.Writer, opts engine.ExportOptions) (int, error)
	EmbedderInfo() core.EmbedderInfo
}

var _ Memory = (*engine.Engine)(nil)

// Error codes, stable across every interface: the HTTP API returns them in
// its error bodies and MCP tool errors carry them.
const (
	CodeUnknownTool      = "unknown_tool"
	CodeInvalidArguments = "invalid_arguments"
	CodeNotFound         = "not_found"
	CodeForbidden        = "forbidden"
	CodeInternal         = "internal"
)

// Error is a failed tool call: a stable code and a short message an LLM
// can act on.
type Error struct {
	Code    string
	Message string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// AsError turns any error from a tool call into an [*Error]: engine errors
// for bad input become invalid_arguments, unknown ids not_found, and
// anything else internal.
func AsError(err error) *Error {
	var te *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		return te
	case errors.Is(err, core.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: err.Error() + "; ids come from the [id:… | prev: … | next: …] anchors that recall_memory returns", Err: err}
	case errors.Is(err, core.ErrInvalid):
		return &Error{Code: CodeInvalidArguments, Message: strings.TrimPrefix(err.Error(), core.ErrInvalid.Error()+": "), Err: err}
	}
	return &Error{Code: CodeInternal, Message: "memory error: " + err.Error(), Err: err}
}

// Options shape a [Dispatcher].
type Options struct {
	// Namespace is the namespace calls read and write when they name none.
	Namespace string
	// AllowNamespace lets a call name another namespace. Without it a call
	// that names a namespace other than Namespace fails with forbidden,
	// and the tool schemas have no namespace argument.
	AllowNamespace bool
	// Remember adds the remember tool.
	Remember bool
	// RememberSession is the session remember writes to when the call
	// names none; default "memory".
	RememberSession string
	// Manage adds the tools that look at memory as a whole: list_sessions,
	// memory_stats, resolve_time and export_session.
	Manage bool
	// Forget adds forget_memory.
	Forget bool
	// DefaultTopK (default 5) and MaxTopK (default 50) bound top_k.
	DefaultTopK, MaxTopK int
	// DefaultContext is context_window when a call leaves it out;
	// MaxContext (default 10) bounds it.
	DefaultContext, MaxContext int
	// Location reads times without an offset; nil means time.Local.
	Location *time.Location
	// Now is the clock, for time phrases and remember; nil means time.Now.
	Now func() time.Time
}

// Dispatcher runs tool calls against a [Memory]. It holds no state of its
// own beyond its options and is safe for concurrent use when the memory
// is; making one per request is cheap.
type Dispatcher struct {
	mem  Memory
	opts Options
}

// New returns a dispatcher over mem.
func New(mem Memory, opts Options) *Dispatcher {
	if opts.DefaultTopK <= 0 {
		opts.DefaultTopK = DefaultTopK
	}
	if opts.MaxTopK <= 0 {
		opts.MaxTopK = DefaultMaxTopK
	}
	if opts.MaxContext <= 0 {
		opts.MaxContext = DefaultMaxContext
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Dispatcher{mem: mem, opts: opts}
}

// Options returns the dispatcher's options, with defaults filled in.
func (d *Dispatcher) Options() Options { return d.opts }

// Tools returns the tools this dispatcher serves.
func (d *Dispatcher) Tools() []Tool { return Definitions(d.opts) }

// Result is what a tool call returned: the text for the LLM and the
// structured result behind it.
type Result struct {
	Tool string `json:"tool"`
	// Text is what the LLM should read.
	Text string `json:"text"`
	// Recall is set by recall_memory, Turns by recall_by_id, Stored by
	// remember, and Data, the structured result, by every other tool: a
	// [*SessionList], [*NamespaceStats], [*TimeRange], [*SessionExport] or
	// [*engine.ForgetResult].
	Recall *core.Results `json:"-"`
	Turns  []core.Hit    `json:"-"`
	Stored *Stored       `json:"-"`
	Data   any           `json:"-"`
}

// Stored reports what remember stored.
type Stored struct {
	Message core.Message        `json:"message"`
	Ingest  engine.IngestResult `json:"ingest"`
}

// Dispatch runs one tool call and returns the text the LLM should read.
// The text is never empty: when the call fails it is the error message
// ("error: …"), and the error, an [*Error], tells the host what kind of
// failure it was.
func (d *Dispatcher) Dispatch(ctx context.Context, name, arguments string) (string, error) {
	r, err := d.Call(ctx, name, []byte(arguments))
	if err != nil {
		return "error: " + err.Error(), err
	}
	return r.Text, nil
}

// Call runs one tool call with its JSON arguments. Errors are [*Error]s.
func (d *Dispatcher) Call(ctx context.Context, name string, arguments []byte) (*Result, error) {
	r, err := d.call(ctx, name, arguments)
	if err != nil {
		return nil, AsError(err)
	}
	return r, nil
}

func (d *Dispatcher) call(ctx context.Context, name string, raw []byte) (*Result, error) {
	switch name {
	case RecallMemory:
		req, err := DecodeRecall(raw, DialectTool, d.opts.AllowNamespace)
		if err != nil {
			return nil, err
		}
		res, err := d.Recall(ctx, req)
		if err != nil {
			return nil, err
		}
		return &Result{Tool: name, Text: FormatRecall(res), Recall: res}, nil
	case RecallByID:
		req, err := DecodeByID(raw, DialectTool, d.opts.AllowNamespace)
		if err != nil {
			return nil, err
		}
		hits, err := d.ByID(ctx, req)
		if err != nil {
			return nil, err
		}
		return &Result{Tool: name, Text: FormatTurns(hits), Turns: hits}, nil
	case Remember:
		if !d.opts.Remember {
			break
		}
		req, err := DecodeRemember(raw, DialectTool, d.opts.AllowNamespace)
		if err != nil {
			return nil, err
		}
		st, err := d.Remember(ctx, req)
		if err != nil {
			return nil, err
		}
		return &Result{Tool: name, Text: FormatStored(st), Stored: st}, nil
	}
	if r, ok, err := d.callManage(ctx, name, raw); ok {
		return r, err
	}
	names := make([]string, 0, 8)
	for _, t := range d.Tools() {
		names = append(names, t.Name)
	}
	return nil, &Error{Code: CodeUnknownTool, Message: fmt.Sprintf("unknown tool %q (tools: %s)", name, strings.Join(names, ", "))}
}

// Namespace returns the namespace a call that names ns runs in, or a
// forbidden error when the caller may not use it.
func (d *Dispatcher) Namespace(ns string) (string, error) {
	if ns == "" || ns == d.opts.Namespace {
		return d.opts.Namespace, nil
	}
	if !d.opts.AllowNamespace {
		return "", &Error{Code: CodeForbidden, Message: fmt.Sprintf("namespace %q is not yours to use", ns)}
	}
	if err := core.ValidateNamespace(ns); err != nil {
		return "", invalidf("namespace: %v", err)
	}
	return ns, nil
}

// Query turns a recall request into a [core.Query], checking and bounding
// each argument.
func (d *Dispatcher) Query(req RecallRequest) (core.Query, error) {
	q := core.Query{Text: req.Query, Filter: req.FilterExpr, NoTime: req.NoTime}
	if strings.TrimSpace(req.Query) == "" {
		return q, invalidf("query is empty: say what to look for, such as a name, a topic or a question")
	}
	var err error
	if q.Namespace, err = d.Namespace(req.Namespace); err != nil {
		return q, err
	}
	switch {
	case req.TopK < 0 || req.TopK > d.opts.MaxTopK:
		return q, invalidf("top_k %d is not between 1 and %d", req.TopK, d.opts.MaxTopK)
	case req.TopK == 0:
		q.TopK = d.opts.DefaultTopK
	default:
		q.TopK = req.TopK
	}
	if q.Context, err = d.window(req.ContextWindow); err != nil {
		return q, err
	}
	if req.Now != "" {
		if q.Now, err = jsonl.ParseTime(req.Now, d.opts.Location); err != nil {
			return q, invalidf("now: %v", err)
		}
	} else {
		q.Now = d.opts.Now().In(d.opts.Location)
	}
	if req.Since != "" {
		if q.Since, err = d.parseTime("since", req.Since, q.Now); err != nil {
			return q, err
		}
	}
	if req.Before != "" {
		if q.Before, err = d.parseTime("before", req.Before, q.Now); err != nil {
			return q, err
		}
	}
	if !q.Since.IsZero() && !q.Before.IsZero() && !q.Since.Before(q.Before) {
		return q, invalidf("since (%s) is not before before (%s)", req.Since, req.Before)
	}
	return q, nil
}

func (d *Dispatcher) window(w *int) (int, error) {
	if w == nil {
		return min(d.opts.DefaultContext, d.opts.MaxContext), nil
	}
	if *w < 0 || *w > d.opts.MaxContext {
		return 0, invalidf("context_window %d is not between 0 and %d", *w, d.opts.MaxContext)
	}
	return *w, nil
}

// parseTime reads a time argument: RFC 3339, a date, a date and time, or
// a time phrase, which means the start of the range it names.
func (d *Dispatcher) parseTime(name, s string, now time.Time) (time.Time, error) {
	if t, err := jsonl.ParseTime(s, d.opts.Location); err == nil {
		return t, nil
	}
	if r, err := timeparse.Parse(s, now.In(d.opts.Location)); err == nil {
		return r.Start, nil
	}
	return time.Time{}, invalidf("%s %q: want a date such as 2026-04-06, a time such as 2026-04-06 15:04, or a phrase such as \"last week\"", name, s)
}

// Recall runs recall_memory.
func (d *Dispatcher) Recall(ctx context.Context, req RecallRequest) (*core.Results, error) {
	q, err := d.Query(req)
	if err != nil {
		return nil, err
	}
	res, err := d.mem.Recall(ctx, q)
	if err != nil {
		return nil, AsError(err)
	}
	return res, nil
}

// ByID runs recall_by_id. Ids are matched case-insensitively, since an
// LLM may change their case.
func (d *Dispatcher) ByID(ctx context.Context, req ByIDRequest) ([]core.Hit, error) {
	id := strings.ToLower(strings.TrimSpace(req.TurnID))
	if id == "" {
		return nil, invalidf("turn_id is empty: pass an id from an anchor, such as the prev or next id of a recall_memory result")
	}
	ns, err := d.Namespace(req.Namespace)
	if err != nil {
		return nil, err
	}
	w, err := d.window(req.ContextWindow)
	if err != nil {
		return nil, err
	}
	hits, err := d.mem.RecallByID(ctx, ns, id, w)
	if err != nil {
		return nil, AsError(err)
	}
	return hits, nil
}

// Message turns a remember request into a message, checked.
func (d *Dispatcher) Message(req RememberRequest) (core.Message, error) {
	m := core.Message{Text: req.Text, Speaker: req.Speaker, Session: req.Session, Ref: req.Ref, Role: core.Role(strings.ToLower(req.Role))}
	if strings.TrimSpace(m.Text) == "" {
		return m, invalidf("text is empty: pass the message to remember")
	}
	var err error
	if m.Namespace, err = d.Namespace(req.Namespace); err != nil {
		return m, err
	}
	if m.Session == "" {
		m.Session = rememberSession(d.opts)
	}
	if m.Role == core.RoleNone && m.Speaker == "" {
		m.Role = core.RoleUser
	}
	if req.Time != "" {
		if m.Time, err = jsonl.ParseTime(req.Time, d.opts.Location); err != nil {
			return m, invalidf("time: %v", err)
		}
	} else {
		m.Time = d.opts.Now()
	}
	if err := m.Validate(); err != nil {
		return m, invalidf("%v", err)
	}
	return m, nil
}

// Remember runs remember: it stores one message durably.
func (d *Dispatcher) Remember(ctx context.Context, req RememberRequest) (*Stored, error) {
	m, err := d.Message(req)
	if err != nil {
		return nil, err
	}
	res, err := d.mem.Ingest(ctx, []core.Message{m})
	if err != nil {
		return nil, AsError(err)
	}
	return &Stored{Message: m, Ingest: res}, nil
}

// MarshalResult renders a tool result as the HTTP API returns it: the
// tool's text and its structured result.
func MarshalResult(r *Result, structured any) ([]byte, error) {
	return json.Marshal(map[string]any{"tool": r.Tool, "text": r.Text, "result": structured})
}
