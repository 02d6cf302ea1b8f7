package index

import (
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/huimemory/huimemory/core/filter"
)

// filterQuery translates a filter expression (core/filter) into a bleve
// query over the index's keyword fields.
func filterQuery(e filter.Expr) query.Query {
	switch x := e.(type) {
	case *filter.And:
		return query.NewConjunctionQuery([]query.Query{filterQuery(x.L), filterQuery(x.R)})
	case *filter.Or:
		return query.NewDisjunctionQuery([]query.Query{filterQuery(x.L), filterQuery(x.R)})
	case *filter.Not:
		return query.NewBooleanQuery([]query.Query{query.NewMatchAllQuery()}, nil, []query.Query{filterQuery(x.X)})
	case *filter.Compare:
		return compareQuery(x)
	}
	return query.NewMatchNoneQuery()
}

func compareQuery(c *filter.Compare) query.Query {
	if c.Field == "timestamp" {
		if c.Start.IsZero() && c.End.IsZero() {
			return query.NewMatchAllQuery()
		}
		return DateRange(c.Start, c.End)
	}
	// String fields compare with = only; != was rewritten to NOT =.
	field, value := c.Field, c.Value
	switch field {
	case "id":
		return query.NewDocIDQuery([]string{value})
	case "namespace":
		field = "ns"
		if value == "" {
			value = DefaultNS
		}
	}
	return termQuery(field, value)
}
