package index

import (
	"context"
	"fmt"
	"math"
	"slices"

	bindex "github.com/blevesearch/bleve_index_api"
)

// Term statistics read from the postings: what ranking needs beyond the
// BM25 search itself.

// IDF returns the BM25 inverse document frequency of each term over the
// chunks' own text (the text and reply fields), ln(1 + (N - df + 0.5) /
// (df + 0.5)), as bleve computes it. A term that no chunk holds gets the
// largest value. It also returns N, the number of chunks. Safe for
// concurrent use.
func (x *Index) IDF(ctx context.Context, terms []string) ([]float64, uint64, error) {
	r, err := x.b.openReader()
	if err != nil {
		return nil, 0, fmt.Errorf("reading index: %w", err)
	}
	defer r.Close()
	n, err := r.DocCount()
	if err != nil {
		return nil, 0, fmt.Errorf("reading index: %w", err)
	}
	out := make([]float64, len(terms))
	for i, t := range terms {
		var df uint64
		for _, field := range []string{"text", "reply"} {
			tfr, err := r.TermFieldReader(ctx, []byte(t), field, false, false, false)
			if err != nil {
				return nil, 0, fmt.Errorf("reading index: %w", err)
			}
			df += tfr.Count()
			tfr.Close()
		}
		df = min(df, n)
		out[i] = math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
	}
	return out, n, nil
}

// Where a chunk holds a term, as [Index.Presence] reports it.
const (
	Absent    = 0 // neither in the chunk's text nor in its neighbours'
	InContext = 1 // only in its neighbours' text (the ctx field)
	InChunk   = 2 // in the chunk's own text (the text or reply field)
)

// Presence reports, for each chunk in ids and each of the (analysed)
// terms, whether the chunk holds the term: [InChunk], [InContext] or
// [Absent]. It reads the postings, not the chunks' text. An id that is
// not in the index gets Absent for every term. Safe for concurrent use.
func (x *Index) Presence(ctx context.Context, ids, terms []string) ([][]uint8, error) {
	out := make([][]uint8, len(ids))
	for i := range out {
		out[i] = make([]uint8, len(terms))
	}
	if len(ids) == 0 || len(terms) == 0 {
		return out, nil
	}
	r, err := x.b.openReader()
	if err != nil {
		return nil, fmt.Errorf("reading index: %w", err)
	}
	defer r.Close()
	type doc struct {
		id  bindex.IndexInternalID
		row int
	}
	internal, err := internalIDs(r, ids)
	if err != nil {
		return nil, fmt.Errorf("reading index: %w", err)
	}
	var docs []doc
	for i, id := range ids {
		if in, ok := internal[id]; ok {
			docs = append(docs, doc{in, i})
		}
	}
	// A term field reader only moves forward: visit the documents in the
	// index's order.
	slices.SortFunc(docs, func(a, b doc) int { return a.id.Compare(b.id) })
	for j, t := range terms {
		for _, f := range []struct {
			name string
			mark uint8
		}{{"text", InChunk}, {"reply", InChunk}, {"ctx", InContext}} {
			tfr, err := r.TermFieldReader(ctx, []byte(t), f.name, false, false, false)
			if err != nil {
				return nil, fmt.Errorf("reading index: %w", err)
			}
			// at is the posting the reader stands on. A document at or
			// before it is answered from it: bleve's Advance to a
			// position at or before the reader's opens the reader again
			// from the start.
			var at bindex.IndexInternalID
			for _, d := range docs {
				if out[d.row][j] >= f.mark {
					continue
				}
				if at == nil || at.Compare(d.id) < 0 {
					m, err := tfr.Advance(d.id, nil)
					if err != nil {
						tfr.Close()
						return nil, fmt.Errorf("reading index: %w", err)
					}
					if m == nil {
						break
					}
					at = append(at[:0], m.ID...)
				}
				if at.Equals(d.id) {
					out[d.row][j] = f.mark
				}
			}
			tfr.Close()
		}
	}
	return out, nil
}
