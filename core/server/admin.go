package server

import (
	"bufio"
	"net/http"

	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
)

// ForgetRequest is the body of POST /v1/forget: forget_memory's
// arguments, with the same rules.
type ForgetRequest = tools.ForgetRequest

func (s *Server) adminRoutes() []*route {
	return []*route{
		{method: "POST", path: "/v1/forget", id: "forget", summary: "Forget messages for good (by id, session, filter or whole namespace), or list them with dry_run. Their text leaves every file of the home.",
			req: ForgetRequest{}, resp: engine.ForgetResult{}, handle: s.forget},
		{method: "GET", path: "/v1/export", id: "export", summary: "Export the caller's memory as generic JSON Lines (application/x-ndjson), ready to ingest elsewhere.",
			params: []param{{name: "namespace", in: "query", typ: "string", desc: "namespace (default: the token's)"},
				{name: "session", in: "query", typ: "string", desc: "export only this session"}},
			resp: "", raw: true, handle: s.export},
	}
}

func (s *Server) forget(r *http.Request, d *tools.Dispatcher, body []byte) (int, any, error) {
	var req ForgetRequest
	if err := decodeStrict(body, &req); err != nil {
		return 0, nil, err
	}
	res, err := d.Forget(r.Context(), req)
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
	session := r.URL.Query().Get("session")
	if session != "" {
		// Fail before the first byte goes out, with a proper status.
		if _, err := s.mem.Session(r.Context(), ns, session); err != nil {
			return 0, nil, err
		}
	}
	w := responseWriterFrom(r)
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := s.mem.Export(r.Context(), bw, engine.ExportOptions{Namespace: ns, Session: session}); err != nil {
		// Nothing may have been sent yet; if something was, the stream
		// is cut short and the client sees a truncated body.
		return 0, nil, err
	}
	return 0, nil, bw.Flush()
}
