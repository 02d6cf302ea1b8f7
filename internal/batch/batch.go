// Package batch runs recall queries in bulk: JSON Lines in, one JSON line
// of results out per query, in the shape of `huimem recall --json`. The
// engine is opened once for the whole batch. A bad line produces an error
// line for that query and the batch goes on.
//
// Input, one query per line:
//
//	{"query":"...","top_k":10,"namespace":"...","since":"...","before":"...","now":"...","context":0,"filter":"...","no_time":false,"id":"q1"}
//
// Only query is required. since, before and now take RFC 3339 or a date
// (2026-04-06). id, when given, is echoed on the output line.
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
	"github.com/huimemory/huimemory/core/jsonl"
	"github.com/huimemory/huimemory/internal/render"
)

// Query is one input line.
type Query struct {
	ID        string `json:"id,omitempty"`
	Query     string `json:"query"`
	TopK      int    `json:"top_k,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Since     string `json:"since,omitempty"`
	Before    string `json:"before,omitempty"`
	Now       string `json:"now,omitempty"`
	Context   int    `json:"context,omitempty"`
	Filter    string `json:"filter,omitempty"`
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
	loc := opts.Location
	if loc == nil {
		loc = time.Local
	}
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
		q, id, err := parse(sc.Bytes(), loc, opts.Defaults)
		out.ID = id
		if err == nil {
			var res *core.Results
			res, err = e.Recall(ctx, q)
			if err == nil {
				out.JSONResults = render.NewJSONResults(res)
			}
		}
		if err != nil {
			st.Errors++
			out.Query = q.Text
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

func parse(b []byte, loc *time.Location, d core.Query) (core.Query, string, error) {
	var in Query
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return core.Query{}, "", fmt.Errorf("%w: bad query line: %v", core.ErrInvalid, err)
	}
	q := core.Query{
		Text: in.Query, TopK: in.TopK, Namespace: in.Namespace, Context: in.Context,
		Filter: in.Filter, NoTime: in.NoTime,
	}
	if q.TopK == 0 {
		q.TopK = d.TopK
	}
	if q.Context == 0 {
		q.Context = d.Context
	}
	if q.Text == "" {
		return q, in.ID, fmt.Errorf("%w: missing query", core.ErrInvalid)
	}
	for _, f := range []struct {
		name, val string
		dst       *time.Time
	}{{"since", in.Since, &q.Since}, {"before", in.Before, &q.Before}, {"now", in.Now, &q.Now}} {
		if f.val == "" {
			continue
		}
		t, err := jsonl.ParseTime(f.val, loc)
		if err != nil {
			return q, in.ID, fmt.Errorf("%w: %s: %v", core.ErrInvalid, f.name, err)
		}
		*f.dst = t
	}
	return q, in.ID, nil
}
