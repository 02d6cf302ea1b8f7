// Package batch runs recall queries in bulk: JSON Lines in, one JSON line
// of results out per query, in the shape of `huimem recall --json`. The
// engine is opened once for the whole batch. A bad line produces an error
// line for that query and the batch goes on.
//
// Input, one query per line, with the recall_memory tool's argument names
// (see core/tools):
//
//	{"query":"...","top_k":10,"filter_expr":"...","since":"...","before":"...","context_window":1,"namespace":"...","now":"...","no_time":false,"id":"q1"}
//	{"turn_id":"a3f2c7","context_window":1,"id":"q2"}
//
// A line with turn_id runs recall_by_id and gets the shape of `huimem get
// --json`. The older names "filter" and "context" are still accepted.
// since, before and now take RFC 3339, a date (2026-04-06) or, for since
// and before, a time phrase. id, when given, is echoed on the output line.
package batch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/render"
)

// Query is one input line, for programs that write batches.
type Query struct {
	ID        string `json:"id,omitempty"`
	Query     string `json:"query,omitempty"`
	TurnID    string `json:"turn_id,omitempty"`
	TopK      int    `json:"top_k,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Since     string `json:"since,omitempty"`
	Before    string `json:"before,omitempty"`
	Now       string `json:"now,omitempty"`
	Context   int    `json:"context_window,omitempty"`
	Filter    string `json:"filter_expr,omitempty"`
	NoTime    bool   `json:"no_time,omitempty"`
}

// Line is one output line: the recall's results, or an error.
type Line struct {
	ID   string `json:"id,omitempty"`
	Line int    `json:"line"`
	render.JSONResults
}

// Options tune [Run].
type Options struct {
	// Location is used for times without an offset; nil means local.
	Location *time.Location
	// Defaults fill in what a query line leaves out (TopK, Context).
	Defaults core.Query
}

// Stats counts a batch.
type Stats struct {
	Queries int `json:"queries"`
	Errors  int `json:"errors"`
}

// Run reads queries from r, runs each through e.Recall and writes one line
// per query to w, in order. It stops early only when ctx is done or w
// fails.
func Run(ctx context.Context, e *engine.Engine, r io.Reader, w io.Writer, opts Options) (Stats, error) {
	d := tools.New(e, tools.Options{
		AllowNamespace: true, Location: opts.Location,
		DefaultTopK: opts.Defaults.TopK, MaxTopK: 1000,
		DefaultContext: opts.Defaults.Context, MaxContext: 50,
	})
	var st Stats
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	bw := bufio.NewWriter(w)
	n := 0
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
		st.Queries++
		out := Line{Line: n}
		var err error
		out.ID, out.JSONResults, err = runLine(ctx, d, sc.Bytes())
		if err != nil {
			st.Errors++
			out.Results = []render.JSONHit{}
			out.Error = err.Error()
		}
		if err := render.JSON(bw, out); err != nil {
			return st, err
		}
	}
	if err := sc.Err(); err != nil {
		return st, fmt.Errorf("reading queries: line %d: %w", n+1, err)
	}
	return st, bw.Flush()
}

// runLine runs one query line: recall, or recall_by_id when it has a
// turn_id. It returns the echoed id and the results.
func runLine(ctx context.Context, d *tools.Dispatcher, b []byte) (string, render.JSONResults, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return "", render.JSONResults{}, fmt.Errorf("%w: bad query line: %v", core.ErrInvalid, err)
	}
	var id string
	if raw, ok := m["id"]; ok {
		if err := json.Unmarshal(raw, &id); err != nil {
			return "", render.JSONResults{}, fmt.Errorf("%w: id must be a string", core.ErrInvalid)
		}
		delete(m, "id")
	}
	rest, _ := json.Marshal(m)
	if _, ok := m["turn_id"]; ok {
		req, err := tools.DecodeByID(rest, tools.DialectAPI, true)
		if err != nil {
			return id, render.JSONResults{Query: req.TurnID}, err
		}
		hits, err := d.ByID(ctx, req)
		if err != nil {
			return id, render.JSONResults{Query: req.TurnID}, err
		}
		return id, render.JSONResults{Query: req.TurnID, Results: render.NewJSONHits(hits)}, nil
	}
	req, err := tools.DecodeRecall(rest, tools.DialectAPI, true)
	if err != nil {
		return id, render.JSONResults{Query: req.Query}, err
	}
	res, err := d.Recall(ctx, req)
	if err != nil {
		return id, render.JSONResults{Query: req.Query}, err
	}
	return id, render.NewJSONResults(res), nil
}
