package engine

import (
	"context"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
)

// queryPlan is a query after its time phrase and filter are resolved.
type queryPlan struct {
	text          string
	since, before time.Time
	filter        *compiledFilter
	resolved      *core.TimeRange
	now           time.Time
	// scan runs a progressive week-by-week scan; scanIfShort runs one when
	// the plain search finds fewer than top_k hits.
	scan, scanIfShort bool
}

// compiledFilter is a filter expression ready for the index and for
// checking chunks.
type compiledFilter struct {
	query query.Query
}

func (e *Engine) planQuery(q core.Query) (*queryPlan, error) {
	p := &queryPlan{text: q.Text, since: q.Since, before: q.Before, now: q.Now}
	if p.now.IsZero() {
		p.now = time.Now()
	}
	return p, nil
}

func (e *Engine) filterAllow(ctx context.Context, p params) (func(string) bool, error) {
	return nil, nil
}

func (e *Engine) progressive(ctx context.Context, ix *index.Index, q core.Query, plan *queryPlan, k int, res *core.Results) ([]cand, error) {
	return nil, nil
}
