package index

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// mergePasses bounds the force merges [Index.Merge] asks for: one pass
// merges at most ten segments at a time, so an index of many segments
// needs a few.
const mergePasses = 8

// cleanupWait bounds how long [Index.Merge] waits for scorch to delete
// the files of the segments it merged (it does so shortly after, in its
// persister; a process that closed the index at once would leave them on
// disk until its next write).
const cleanupWait = 5 * time.Second

// Merge merges all of the index's segments into one and waits until the
// merged segment is the index's and the merged files are gone (scorch's
// force merge, in as many passes as it takes). It costs about one pass
// over the index, and searches go on while it runs.
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
	for range mergePasses {
		st, err := x.SegmentStats()
		if err != nil {
			return fmt.Errorf("merging index %s: %w", x.path, err)
		}
		if st.Segments <= 1 {
			break
		}
		if err := s.ForceMerge(ctx, nil); err != nil {
			return fmt.Errorf("merging index %s: %w", x.path, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	// The files on disk are the segments' and root.bolt.
	st, err := x.SegmentStats()
	if err != nil {
		return fmt.Errorf("merging index %s: %w", x.path, err)
	}
	deadline := time.Now().Add(cleanupWait)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if n, ok := s.StatsMap()["CurOnDiskFiles"].(uint64); !ok || n <= uint64(st.Segments)+1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return ctx.Err()
}
