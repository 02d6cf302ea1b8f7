package tools

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/jsonl"
	"github.com/huimemory/huimemory/internal/render"
	"github.com/huimemory/huimemory/timeparse"
)

// ForgetRequest holds forget_memory's arguments, which are also the body
// of the HTTP API's POST /v1/forget: exactly one selector, in one
// namespace (the caller's, unless the caller may name another).
type ForgetRequest struct {
	ID           string `json:"id,omitempty"`
	Session      string `json:"session,omitempty"`
	FilterExpr   string `json:"filter_expr,omitempty"`
	AllNamespace bool   `json:"all_namespace,omitempty"`
	Namespace    string `json:"namespace,omitempty"`
	// DryRun lists what would go and changes nothing.
	DryRun bool `json:"dry_run,omitempty"`
}

// SessionsRequest holds list_sessions' arguments.
type SessionsRequest struct {
	// Limit bounds how many sessions are listed, newest first.
	Limit int `json:"limit,omitempty"`
	// Since and Before keep the sessions with messages in [Since, Before).
	Since     string `json:"since,omitempty"`
	Before    string `json:"before,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// StatsRequest holds memory_stats' arguments.
type StatsRequest struct {
	Namespace string `json:"namespace,omitempty"`
}

// TimeRequest holds resolve_time's arguments.
type TimeRequest struct {
	Phrase string `json:"phrase"`
	// Now is the reference time; default the dispatcher's clock.
	Now string `json:"now,omitempty"`
}

// ExportRequest holds export_session's arguments.
type ExportRequest struct {
	Session string `json:"session"`
	// Format is "turns" (the default: the session's turns verbatim, each
	// under its anchor) or "jsonl" (the generic JSON Lines `huimem export`
	// writes, ready to ingest elsewhere).
	Format    string `json:"format,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// Limits of list_sessions.
const (
	DefaultSessions = 20
	MaxSessions     = 200
)

// The export_session formats.
const (
	ExportTurns = "turns"
	ExportJSONL = "jsonl"
)

// SessionList is list_sessions' structured result.
type SessionList struct {
	Namespace string `json:"namespace"`
	// Total counts the sessions that match; Sessions are the newest of
	// them, up to the limit.
	Total    int                  `json:"total"`
	Sessions []engine.SessionInfo `json:"sessions"`
}

// NamespaceStats is memory_stats' structured result: what one namespace holds.
type NamespaceStats struct {
	Namespace string `json:"namespace"`
	Sessions  int    `json:"sessions"`
	Messages  int    `json:"messages"`
	Chunks    int    `json:"chunks"`
	// First and Last are the times of the oldest and newest message; zero
	// when the namespace is empty.
	First    time.Time `json:"first,omitzero"`
	Last     time.Time `json:"last,omitzero"`
	Embedder string    `json:"embedder"`
}

// TimeRange is resolve_time's structured result, and what `huimem time
// --json` prints.
type TimeRange struct {
	// Start is empty for a range open at the start ("before April 9").
	Start       string `json:"start"`
	End         string `json:"end"`
	Granularity string `json:"granularity"`
	// Fuzzy marks a vague phrase ("最近", "a while ago"), which recall
	// searches one week at a time, newest first.
	Fuzzy bool `json:"fuzzy"`
	// Text is the phrase as it was read.
	Text string `json:"text"`
}

// NewTimeRange renders a resolved range.
func NewTimeRange(r timeparse.Range) TimeRange {
	out := TimeRange{Start: r.Start.Format(time.RFC3339), End: r.End.Format(time.RFC3339),
		Granularity: r.Granularity.String(), Fuzzy: r.Fuzzy, Text: r.Text}
	if r.Start.IsZero() {
		out.Start = ""
	}
	return out
}

// SessionExport is export_session's structured result.
type SessionExport struct {
	Namespace string `json:"namespace"`
	Session   string `json:"session"`
	Format    string `json:"format"`
	// Turns are set for the turns format, JSONL for the jsonl format.
	Turns    []render.JSONHit `json:"turns,omitempty"`
	JSONL    string           `json:"jsonl,omitempty"`
	Messages int              `json:"messages"`
	// hits are the turns, for the text.
	hits []core.Hit
}

// DecodeForget parses forget_memory arguments.
func DecodeForget(raw []byte, d Dialect, allowNamespace bool) (ForgetRequest, error) {
	var r ForgetRequest
	err := decode(raw, d, allowNamespace, []arg{
		{name: "id", k: kString, dst: &r.ID},
		{name: "session", k: kString, dst: &r.Session},
		{name: "filter_expr", k: kString, dst: &r.FilterExpr},
		{name: "all_namespace", k: kBool, dst: &r.AllNamespace},
		{name: "dry_run", k: kBool, dst: &r.DryRun},
		{name: "namespace", k: kString, dst: &r.Namespace, nsArg: true},
	})
	return r, err
}

// DecodeSessions parses list_sessions arguments.
func DecodeSessions(raw []byte, d Dialect, allowNamespace bool) (SessionsRequest, error) {
	var r SessionsRequest
	err := decode(raw, d, allowNamespace, []arg{
		{name: "limit", k: kInt, dst: &r.Limit},
		{name: "since", k: kString, dst: &r.Since},
		{name: "before", k: kString, dst: &r.Before},
		{name: "namespace", k: kString, dst: &r.Namespace, nsArg: true},
	})
	return r, err
}

// DecodeStats parses memory_stats arguments.
func DecodeStats(raw []byte, d Dialect, allowNamespace bool) (StatsRequest, error) {
	var r StatsRequest
	err := decode(raw, d, allowNamespace, []arg{
		{name: "namespace", k: kString, dst: &r.Namespace, nsArg: true},
	})
	return r, err
}

// DecodeTime parses resolve_time arguments.
func DecodeTime(raw []byte, d Dialect) (TimeRequest, error) {
	var r TimeRequest
	err := decode(raw, d, false, []arg{
		{name: "phrase", k: kString, dst: &r.Phrase},
		{name: "now", k: kString, dst: &r.Now},
	})
	return r, err
}

// DecodeExport parses export_session arguments.
func DecodeExport(raw []byte, d Dialect, allowNamespace bool) (ExportRequest, error) {
	var r ExportRequest
	err := decode(raw, d, allowNamespace, []arg{
		{name: "session", k: kString, dst: &r.Session},
		{name: "format", k: kString, dst: &r.Format},
		{name: "namespace", k: kString, dst: &r.Namespace, nsArg: true},
	})
	return r, err
}

// callManage runs the tools that look after memory; ok is false for a
// name that is not one of them, or one these options do not serve.
func (d *Dispatcher) callManage(ctx context.Context, name string, raw []byte) (r *Result, ok bool, err error) {
	switch {
	case name == ForgetMemory && d.opts.Forget:
		req, err := DecodeForget(raw, DialectTool, d.opts.AllowNamespace)
		if err != nil {
			return nil, true, err
		}
		res, err := d.Forget(ctx, req)
		if err != nil {
			return nil, true, err
		}
		return &Result{Tool: name, Text: FormatForget(res), Data: res}, true, nil
	case !d.opts.Manage:
		return nil, false, nil
	case name == ListSessions:
		req, err := DecodeSessions(raw, DialectTool, d.opts.AllowNamespace)
		if err != nil {
			return nil, true, err
		}
		list, err := d.Sessions(ctx, req)
		if err != nil {
			return nil, true, err
		}
		return &Result{Tool: name, Text: FormatSessions(list), Data: list}, true, nil
	case name == MemoryStats:
		req, err := DecodeStats(raw, DialectTool, d.opts.AllowNamespace)
		if err != nil {
			return nil, true, err
		}
		st, err := d.Stats(ctx, req)
		if err != nil {
			return nil, true, err
		}
		return &Result{Tool: name, Text: FormatStats(st), Data: st}, true, nil
	case name == ResolveTime:
		req, err := DecodeTime(raw, DialectTool)
		if err != nil {
			return nil, true, err
		}
		tr, err := d.ResolveTime(req)
		if err != nil {
			return nil, true, err
		}
		return &Result{Tool: name, Text: FormatTime(tr), Data: tr}, true, nil
	case name == ExportSession:
		req, err := DecodeExport(raw, DialectTool, d.opts.AllowNamespace)
		if err != nil {
			return nil, true, err
		}
		ex, err := d.Export(ctx, req)
		if err != nil {
			return nil, true, err
		}
		return &Result{Tool: name, Text: FormatExport(ex), Data: ex}, true, nil
	}
	return nil, false, nil
}

// Forget runs forget_memory, and POST /v1/forget: it forgets, or with
// DryRun lists, the messages one selector picks in one namespace.
func (d *Dispatcher) Forget(ctx context.Context, req ForgetRequest) (*engine.ForgetResult, error) {
	ns, err := d.Namespace(req.Namespace)
	if err != nil {
		return nil, err
	}
	res, err := d.mem.Forget(ctx, engine.ForgetOptions{Namespace: ns, ID: req.ID, Session: req.Session,
		Filter: req.FilterExpr, AllNamespace: req.AllNamespace, DryRun: req.DryRun, Location: d.opts.Location})
	if err != nil {
		return nil, sessionError(err)
	}
	return &res, nil
}

// Sessions runs list_sessions.
func (d *Dispatcher) Sessions(ctx context.Context, req SessionsRequest) (*SessionList, error) {
	ns, err := d.Namespace(req.Namespace)
	if err != nil {
		return nil, err
	}
	limit := req.Limit
	switch {
	case limit < 0 || limit > MaxSessions:
		return nil, invalidf("limit %d is not between 1 and %d", limit, MaxSessions)
	case limit == 0:
		limit = DefaultSessions
	}
	now := d.opts.Now().In(d.opts.Location)
	var since, before time.Time
	if req.Since != "" {
		if since, err = d.parseTime("since", req.Since, now); err != nil {
			return nil, err
		}
	}
	if req.Before != "" {
		if before, err = d.parseTime("before", req.Before, now); err != nil {
			return nil, err
		}
	}
	all, err := d.mem.Sessions(ctx, ns)
	if err != nil {
		return nil, AsError(err)
	}
	out := &SessionList{Namespace: nsLabel(ns), Sessions: []engine.SessionInfo{}}
	for _, s := range all {
		if !since.IsZero() && s.Last.Before(since) || !before.IsZero() && !s.First.Before(before) {
			continue
		}
		out.Total++
		if len(out.Sessions) < limit {
			out.Sessions = append(out.Sessions, s)
		}
	}
	return out, nil
}

// Stats runs memory_stats: the counts of one namespace.
func (d *Dispatcher) Stats(ctx context.Context, req StatsRequest) (*NamespaceStats, error) {
	ns, err := d.Namespace(req.Namespace)
	if err != nil {
		return nil, err
	}
	all, err := d.mem.Sessions(ctx, ns)
	if err != nil {
		return nil, AsError(err)
	}
	st := &NamespaceStats{Namespace: nsLabel(ns), Sessions: len(all), Embedder: d.mem.EmbedderInfo().Name}
	for _, s := range all {
		st.Messages += s.Messages
		st.Chunks += s.Chunks
		if st.First.IsZero() || s.First.Before(st.First) {
			st.First = s.First
		}
		if s.Last.After(st.Last) {
			st.Last = s.Last
		}
	}
	return st, nil
}

// ResolveTime runs resolve_time: the range a time phrase means. A phrase
// inside a longer text (a question) is found and resolved too.
func (d *Dispatcher) ResolveTime(req TimeRequest) (*TimeRange, error) {
	if strings.TrimSpace(req.Phrase) == "" {
		return nil, invalidf("phrase is empty: pass a time phrase such as \"上周三下午\" or \"last week\"")
	}
	now := d.opts.Now()
	if req.Now != "" {
		var err error
		if now, err = jsonl.ParseTime(req.Now, d.opts.Location); err != nil {
			return nil, invalidf("now: %v", err)
		}
	}
	now = now.In(d.opts.Location)
	r, err := timeparse.Parse(req.Phrase, now)
	if err != nil {
		var ok bool
		if r, _, ok = timeparse.Extract(req.Phrase, now); !ok {
			return nil, invalidf("%v", err)
		}
	}
	tr := NewTimeRange(r)
	return &tr, nil
}

// Export runs export_session: one session, verbatim.
func (d *Dispatcher) Export(ctx context.Context, req ExportRequest) (*SessionExport, error) {
	if strings.TrimSpace(req.Session) == "" {
		return nil, invalidf("session is empty: pass a session id, as list_sessions shows them")
	}
	ns, err := d.Namespace(req.Namespace)
	if err != nil {
		return nil, err
	}
	out := &SessionExport{Namespace: nsLabel(ns), Session: req.Session, Format: req.Format}
	switch req.Format {
	case "", ExportTurns:
		out.Format = ExportTurns
		chunks, err := d.mem.SessionTurns(ctx, ns, req.Session, 0)
		if err != nil {
			return nil, sessionError(err)
		}
		hits := make([]core.Hit, len(chunks))
		for i := range chunks {
			hits[i] = core.Hit{Chunk: chunks[i]}
			out.Messages += len(chunks[i].Messages)
		}
		out.Turns, out.hits = render.NewJSONHits(hits), hits
	case ExportJSONL:
		var b bytes.Buffer
		n, err := d.mem.Export(ctx, &b, engine.ExportOptions{Namespace: ns, Session: req.Session})
		if err != nil {
			return nil, sessionError(err)
		}
		out.JSONL, out.Messages = b.String(), n
	default:
		return nil, invalidf("format %q is not %s or %s", req.Format, ExportTurns, ExportJSONL)
	}
	return out, nil
}

// sessionError is [AsError] for a call that names a session or a turn:
// an unknown one points to list_sessions.
func sessionError(err error) *Error {
	if errors.Is(err, core.ErrNotFound) {
		return &Error{Code: CodeNotFound, Message: err.Error() + "; list_sessions shows the sessions there are", Err: err}
	}
	return AsError(err)
}

// nsLabel names a namespace for a reader.
func nsLabel(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}
