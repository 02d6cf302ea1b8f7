package index

import (
	"context"
	"math"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// fieldSum is a query that matches a chunk when any of its parts does
// and scores it with the sum of the parts' scores. It is bleve's
// disjunction without the coordination factor: bleve multiplies a
// disjunction's sum by the share of its clauses that matched, which,
// between a chunk's fields (text and reply), halved the score of every
// chunk whose user text matched and whose reply did not (a lone user
// message, or one whose reply says nothing of the question) against an
// exchange whose short reply also held a query word. A chunk's text
// and reply are two views of one document, not two pieces of evidence
// (docs/recall-quality.md, "Fields without coordination").
//
// Within a field, each MatchQuery keeps bleve's coordination over the
// query's terms: a chunk that holds more of the question's words ranks
// higher, which is what it is for.
type fieldSum []query.Query

// Searcher implements query.Query.
func (q fieldSum) Searcher(ctx context.Context, r bindex.IndexReader, m mapping.IndexMapping, opts search.SearcherOptions) (search.Searcher, error) {
	s := &sumSearcher{}
	for _, p := range q {
		k, err := p.Searcher(ctx, r, m, opts)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.kids = append(s.kids, k)
	}
	s.cur = make([]*search.DocumentMatch, len(s.kids))
	// The query norm as bleve's disjunction sets it, so that each part
	// scores as it would inside one.
	var w float64
	for _, k := range s.kids {
		w += k.Weight()
	}
	if w > 0 {
		s.SetQueryNorm(1 / math.Sqrt(w))
	}
	return s, nil
}

// sumSearcher merges its parts' matches in document order, adding the
// scores of the parts that match the same document.
type sumSearcher struct {
	kids []search.Searcher
	// cur is each part's current match; nil once the part is done.
	cur     []*search.DocumentMatch
	started bool
}

func (s *sumSearcher) start(ctx *search.SearchContext) error {
	if s.started {
		return nil
	}
	s.started = true
	for i, k := range s.kids {
		m, err := k.Next(ctx)
		if err != nil {
			return err
		}
		s.cur[i] = m
	}
	return nil
}

// take returns the lowest current document with its parts' scores
// added, and moves those parts on.
func (s *sumSearcher) take(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	var low *search.DocumentMatch
	for _, m := range s.cur {
		if m != nil && (low == nil || m.IndexInternalID.Compare(low.IndexInternalID) < 0) {
			low = m
		}
	}
	if low == nil {
		return nil, nil
	}
	id := low.IndexInternalID
	var sum float64
	for _, m := range s.cur {
		if m != nil && m.IndexInternalID.Equals(id) {
			sum += m.Score
		}
	}
	for i, m := range s.cur {
		if m == nil || !m.IndexInternalID.Equals(id) {
			continue
		}
		if m != low {
			ctx.DocumentMatchPool.Put(m)
		}
		next, err := s.kids[i].Next(ctx)
		if err != nil {
			return nil, err
		}
		s.cur[i] = next
	}
	low.Score = sum
	return low, nil
}

// Next implements search.Searcher.
func (s *sumSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	return s.take(ctx)
}

// Advance implements search.Searcher.
func (s *sumSearcher) Advance(ctx *search.SearchContext, id bindex.IndexInternalID) (*search.DocumentMatch, error) {
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	for i, m := range s.cur {
		if m == nil || m.IndexInternalID.Compare(id) >= 0 {
			continue
		}
		ctx.DocumentMatchPool.Put(m)
		next, err := s.kids[i].Advance(ctx, id)
		if err != nil {
			return nil, err
		}
		s.cur[i] = next
	}
	return s.take(ctx)
}

// Close implements search.Searcher.
func (s *sumSearcher) Close() error {
	var first error
	for _, k := range s.kids {
		if err := k.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Weight implements search.Searcher.
func (s *sumSearcher) Weight() float64 {
	var w float64
	for _, k := range s.kids {
		w += k.Weight()
	}
	return w
}

// SetQueryNorm implements search.Searcher.
func (s *sumSearcher) SetQueryNorm(n float64) {
	for _, k := range s.kids {
		k.SetQueryNorm(n)
	}
}

// Count implements search.Searcher: at most the parts' counts together.
func (s *sumSearcher) Count() uint64 {
	var n uint64
	for _, k := range s.kids {
		n += k.Count()
	}
	return n
}

// Min implements search.Searcher.
func (s *sumSearcher) Min() int { return 0 }

// Size implements search.Searcher.
func (s *sumSearcher) Size() int {
	n := 64
	for _, k := range s.kids {
		n += k.Size()
	}
	return n
}

// DocumentMatchPoolSize implements search.Searcher.
func (s *sumSearcher) DocumentMatchPoolSize() int {
	n := len(s.cur)
	for _, k := range s.kids {
		n += k.DocumentMatchPoolSize()
	}
	return n
}
