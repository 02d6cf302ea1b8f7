package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// Merging the index down (issue 15). Each index batch adds a segment
// (a .zap file under store/), and scorch's background merger keeps a
// handful of them: a 100k-chunk ingest leaves about nine. A search walks
// every segment's dictionary and postings for each query term, and
// BM25's document counts and field lengths are summed over the segments,
// including the documents a later batch replaced until a merge drops
// them, so the same chunks score a little differently depending on how
// far the merger got. Merge folds every segment into one.

// ErrReadOnly means the index was opened read-only.
var ErrReadOnly = errors.New("index is open read-only")

// SegmentStats says how the index's chunks lie in its segments.
type SegmentStats struct {
	Segments int
	// Largest is the number of chunks in the largest segment, Total in
	// all of them (live chunks: not those a later batch replaced).
	Largest, Total uint64
}

// SegmentStats reads how the index's chunks lie in its current
// segments. After a [Index.Merge], Largest is Total; the chunks added
// since are Total - Largest.
func (x *Index) SegmentStats() (SegmentStats, error) {
	var st SegmentStats
	adv, err := x.b.Advanced()
	if err != nil {
		return st, fmt.Errorf("reading index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return st, fmt.Errorf("reading index: %w", err)
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return st, fmt.Errorf("reading index: a %T is not a scorch snapshot", r)
	}
	for _, seg := range snap.Segments() {
		n := seg.Count()
		st.Segments++
		st.Total += n
		st.Largest = max(st.Largest, n)
	}
	return st, nil
}

// Merge merges all of the index's segments into one and waits until the
// merged segment is the index's (scorch's force merge; the files it
// replaces are removed once no reader holds them). It costs about one
// pass over the index, and searches go on while it runs.
func (x *Index) Merge(ctx context.Context) error {
	if x.readOnly {
		return fmt.Errorf("merging index %s: %w", x.path, ErrReadOnly)
	}
	adv, err := x.b.Advanced()
	if err != nil {
		return fmt.Errorf("merging index %s: %w", x.path, err)
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return fmt.Errorf("merging index %s: a %T is not a scorch index", x.path, adv)
	}
	if err := s.ForceMerge(ctx, nil); err != nil {
		return fmt.Errorf("merging index %s: %w", x.path, err)
	}
	return ctx.Err()
}
