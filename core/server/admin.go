package server

import (
	"bufio"
	"net/http"
	"strings"

	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
)

// ForgetRequest is the body of POST /v1/forget: exactly one selector, in
// one namespace (the token's, unless an unbound token names another).
type ForgetRequest struct {
	ID           string `json:"id,omitempty"`
	Session      string `json:"session,omitempty"`
	FilterExpr   string `json:"filter_expr,omitempty"`
	AllNamespace bool   `json:"all_namespace,omitempty"`
	Namespace    string `json:"namespace,omitempty"`
	// DryRun lists what would go and changes nothing.
	DryRun bool `json:"dry_run,omitempty"`
}

func (s *Server) adminRoutes() []*route {
	return []*route{
		{method: "POST", path: "/v1/forget", id: "forget", summary: "Forget messages for good (by id, session, filter or whole namespace), or list them with dry_run. Their text leaves every file of the home.",
			req: ForgetRequest{}, resp: engine.ForgetResult{}, handle: s.forget},
		{method: "GET", path: "/v1/export", id: "export", summary: "Export the caller's memory as generic JSON Lines (application/x-ndjson), ready to ingest elsewhere.",
			params: []param{{name: "namespace", in: "query", typ: "string", desc: "namespace (default: the token's)"}},
			resp:   "", raw: true, handle: s.export},
	}
}

func (s *Server) forget(r *http.Request, d *tools.Dispatcher, body []byte) (int, any, error) {
	var req ForgetRequest
	if err := decodeStrict(body, &req); err != nil {
		return 0, nil, err
	}
	ns, err := d.Namespace(req.Namespace)
	if err != nil {
		return 0, nil, err
	}
	res, err := s.mem.Forget(r.Context(), engine.ForgetOptions{Namespace: ns, ID: strings.ToLower(req.ID), Session: req.Session,
		Filter: req.FilterExpr, AllNamespace: req.AllNamespace, DryRun: req.DryRun, Location: d.Options().Location})
	if err != nil {
		return 0, nil, err
	}
	return 200, res, nil
}

// export streams JSON Lines; it writes the response itself.
func (s *Server) export(r *http.Request, d *tools.Dispatcher, _ []byte) (int, any, error) {
	ns, err := d.Namespace(r.URL.Query().Get("namespace"))
	if err != nil {
		return 0, nil, err
	}
	w := responseWriterFrom(r)
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := s.mem.Export(r.Context(), bw, engine.ExportOptions{Namespace: ns}); err != nil {
		// Nothing may have been sent yet; if something was, the stream
		// is cut short and the client sees a truncated body.
		return 0, nil, err
	}
	return 0, nil, bw.Flush()
}
