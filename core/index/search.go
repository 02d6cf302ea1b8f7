package index

import (
	"context"
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/huimemory/huimemory/core/filter"
)

// Search describes one BM25 search.
type Search struct {
	// Text is matched against chunk text; empty matches every chunk.
	Text string
	// ContextBoost weighs matches in the neighbours' text (the ctx field)
	// against matches in the chunk's own text; 0 ignores the neighbours.
	ContextBoost float64
	// ReplyBoost weighs matches in the assistant's messages (the reply
	// field) against matches in the text field; 0 ignores them.
	ReplyBoost float64
	// NS is the only namespace searched.
	NS string
	// Since and Before bound chunk time; zero leaves a side open.
	Since, Before time.Time
	// Filter, when set, is an extra condition on the chunks' keyword
	// fields and time (core/filter); it never changes scores.
	Filter filter.Expr
	// IDs, when set, restricts the search to these chunks.
	IDs []string
	// Size is the number of matches to return.
	Size int
	// NoSession leaves Match.Session empty, saving the read of each
	// match's stored session.
	NoSession bool
}

// Match is one BM25 match.
type Match struct {
	ID    string
	Score float64
	// Session is the chunk's session.
	Session string
}

// Search runs a BM25 search. Filters never change scores: a chunk scores
// the same with or without them.
func (x *Index) Search(ctx context.Context, s Search) ([]Match, error) {
	ms, _, err := x.search(ctx, s, 0)
	return ms, err
}

// SearchAll runs s as Search does, and also keeps the score of every
// chunk the search matched, not only of the top s.Size, for
// [Scores.Of]: a search scores every match to find the top ones, so this
// costs little more than Search. all is nil when there are more than
// limit matches; otherwise the caller closes it. A chunk in s's scope
// that all has no score for shares no term with s.Text.
//
// A score read from all may differ in its last bit from the one a search
// restricted to the chunk (s.IDs) gives: bleve adds up the terms of a
// disjunction in the order its searchers reach the chunk, which depends
// on the chunks the search visits.
func (x *Index) SearchAll(ctx context.Context, s Search, limit int) (ms []Match, all *Scores, err error) {
	return x.search(ctx, s, max(limit, 1))
}

func (x *Index) search(ctx context.Context, s Search, all int) ([]Match, *Scores, error) {
	req := bleveSearch{Query: s.query(), Size: s.Size, Sort: searchSort, AllScores: all,
		Whole: s.queryWith(false), NS: s.nsTerm()}
	if !s.NoSession {
		req.Fields = []string{"session"}
	}
	res, err := x.b.Search(ctx, req)
	if err != nil {
		return nil, nil, fmt.Errorf("searching index: %w", err)
	}
	out := make([]Match, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = Match{ID: h.ID, Score: h.Score}
		out[i].Session, _ = h.Fields["session"].(string)
	}
	return out, res.All, nil
}

// searchSort orders matches by score, then by id.
var searchSort = []string{"-_score", "_id"}

// query returns the bleve query of s.
func (s *Search) query() query.Query { return s.queryWith(true) }

// queryWith is query; without nsFilter, it leaves out the namespace
// conjunct, for an index whose chunks are all in s's namespace (see
// bleveSearch.Whole).
func (s *Search) queryWith(nsFilter bool) query.Query {
	var must query.Query
	if s.Text != "" {
		mq := query.NewMatchQuery(s.Text)
		mq.SetField("text")
		mq.Analyzer = AnalyzerName
		must = mq
		parts := []query.Query{mq}
		for _, f := range []struct {
			name  string
			boost float64
		}{{"reply", s.ReplyBoost}, {"ctx", s.ContextBoost}} {
			if f.boost > 0 {
				q := query.NewMatchQuery(s.Text)
				q.SetField(f.name)
				q.Analyzer = AnalyzerName
				q.SetBoost(f.boost)
				parts = append(parts, q)
			}
		}
		if len(parts) > 1 {
			must = fieldSum(parts)
		}
	} else {
		must = query.NewMatchAllQuery()
	}
	ns := s.nsTerm()
	// Filters are zero-boosted conjuncts: the conjunction advances all of
	// them together, so a narrow filter (one week) keeps the search narrow,
	// and a zero boost keeps them out of the score.
	conj := []query.Query{must}
	if nsFilter {
		conj = append(conj, zeroBoost(termQuery("ns", ns)))
	}
	if !s.Since.IsZero() || !s.Before.IsZero() {
		conj = append(conj, zeroBoost(DateRange(s.Since, s.Before)))
	}
	if len(s.IDs) > 0 {
		conj = append(conj, zeroBoost(query.NewDocIDQuery(s.IDs)))
	}
	var q query.Query = query.NewConjunctionQuery(conj)
	if len(conj) == 1 {
		q = must
	}
	if s.Filter != nil {
		// A filter expression may be any shape; bleve's boolean filter
		// clause checks it without scoring.
		bq := query.NewBooleanQuery([]query.Query{q}, nil, nil)
		bq.AddFilter(filterQuery(s.Filter))
		q = bq
	}
	return q
}

// nsTerm is the keyword of s's namespace in the index.
func (s *Search) nsTerm() string {
	if s.NS == "" {
		return DefaultNS
	}
	return s.NS
}

func termQuery(field, term string) *query.TermQuery {
	q := query.NewTermQuery(term)
	q.SetField(field)
	return q
}

func zeroBoost(q query.Query) query.Query {
	if b, ok := q.(query.BoostableQuery); ok {
		b.SetBoost(0)
	}
	return q
}

// Matching returns the ids of every chunk that matches s's namespace,
// window and filter, ignoring its text and size.
func (x *Index) Matching(ctx context.Context, s Search) ([]string, error) {
	s.Text, s.Size = "", 0
	count, err := x.b.DocCount()
	if err != nil {
		return nil, err
	}
	s.Size, s.NoSession = int(count), true
	ms, err := x.Search(ctx, s)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids, nil
}
