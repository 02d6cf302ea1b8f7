package index

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	zap "github.com/blevesearch/zapx/v17"
)

// mergeWriteSize is the size of the writes of a merged segment: 64 KiB,
// not zap's 1 MiB. Linux caches a buffered write in page-cache folios as
// large as the write, and a fault on a mapped file maps the whole folio
// it lies in; a merge reads its segments' dictionaries and postings a
// little at a time, so with 1 MiB writes each of the 25 segments of a
// bulk ingest's final merge kept 1–2 MiB mapped (35–54 MiB in all), with
// 64 KiB writes a fault maps 64 KiB (the kernel's fault-around).
const mergeWriteSize = 64 << 10

func init() { zap.DefaultFileMergerBufferSize = mergeWriteSize }

// Merging the index down. Each index batch adds a segment
// (a .zap file under store/), and scorch's background merger keeps a
// dozen or so of them: a 100k-chunk ingest leaves 15 to 20. A search walks
// every segment's dictionary and postings for each query term, and
// BM25's document counts and field lengths are summed over the segments,
// including the documents a later batch replaced until a merge drops
// them, so the same chunks score a little differently depending on how
// far the merger got. Merge folds every segment into one.

// ErrReadOnly means the index was opened read-only.
var ErrReadOnly = errors.New("index is open read-only")

// ErrClosed means the index was used after Close.
var ErrClosed = errors.New("index is closed")

// SegmentStats says how the index's chunks lie in its segments.
type SegmentStats struct {
	Segments int
	// Largest is the number of chunks in the largest segment, Total in
	// all of them (live chunks: not those a later batch replaced).
	Largest, Total uint64
}

// snapshot returns the index's current snapshot, which holds its
// segments (none is closed) until it is closed.
func (x *Index) snapshot() (*scorch.IndexSnapshot, error) {
	adv, err := x.b.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		r.Close()
		return nil, fmt.Errorf("a %T is not a scorch snapshot", r)
	}
	if snap == nil { // a closed index has no root snapshot
		return nil, ErrClosed
	}
	return snap, nil
}

// SegmentStats reads how the index's chunks lie in its current
// segments. After a [Index.Merge], Largest is Total; the chunks added
// since are Total - Largest.
func (x *Index) SegmentStats() (SegmentStats, error) {
	var st SegmentStats
	snap, err := x.snapshot()
	if err != nil {
		return st, fmt.Errorf("reading index: %w", err)
	}
	defer snap.Close()
	for _, seg := range snap.Segments() {
		n := seg.Count()
		st.Segments++
		st.Total += n
		st.Largest = max(st.Largest, n)
	}
	return st, nil
}

// mergePasses bounds the force merges [Index.Merge] asks for: one pass
// merges at most forceMergeOptions.SegmentsPerMergeTask segments at a
// time, so an index of many segments needs a few.
const mergePasses = 8

// forceMergeOptions is scorch's plan for a merge into one segment, with
// up to 40 segments to a merge rather than 10: an index of
// 11 to 40 segments (small index batches leave more than ten after a
// large ingest) is merged in one pass, where ten at a time wrote it
// twice over.
var forceMergeOptions = func() mergeplan.MergePlanOptions {
	o := mergeplan.SingleSegmentMergePlanOptions
	o.SegmentsPerMergeTask = 40
	return o
}()

// mergePlanOptions is the background merger's policy:
// scorch's default, except that a segment under 100 chunks, not 2000,
// counts as 100 (FloorSegmentSize). The planner rounds each smaller
// segment up to the floor, so with the default a run of small segments
// looks like a full tier and it merges them five or so at a time as
// they arrive, then merges those merges again. Index batches are bounded
// by their text (the engine's indexBatchBytes, 256 KiB: about 380
// chunks of chat), and with the default floor a 10k-chunk ingest wrote
// 34 MB of merges (8 MB in 1 MiB batches); with 100 it waits for ten
// and writes 9 MB. Small appends (a sidecar's) are merged less often
// for the same reason, so more segments stay at rest between merges:
// in a model of 2-chunk appends, up to 19 rather than 5 at 10k chunks
// and 24 rather than 12 at 50k, for a tenth or less of the merging. Searches walk
// each segment, and BM25's field lengths are summed over the segments
// (see doc.go), so scores at rest follow the segments, as under scorch's
// default; an index merged into one (see [Index.Merge]) scores the same
// under either policy. The policy
// is passed at each open, not saved in index_meta.json.
var mergePlanOptions = map[string]any{"FloorSegmentSize": 100}

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
		if err := s.ForceMerge(ctx, &forceMergeOptions); err != nil {
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
	nudge := time.Now().Add(cleanupNudge)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if n, ok := s.StatsMap()["CurOnDiskFiles"].(uint64); !ok || n <= uint64(st.Segments)+1 {
			break
		}
		// scorch's persister removes unused files when it runs out of
		// work; if a reader still held them then, they stay until the
		// next write wakes it (one tidy in six waited the whole
		// cleanupWait). An internal record of its own, written with the
		// same value each time, is such a write.
		if time.Now().After(nudge) {
			if err := x.b.SetInternal(keyNudge, []byte{1}); err != nil {
				return fmt.Errorf("merging index %s: %w", x.path, err)
			}
			nudge = time.Now().Add(cleanupNudge)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return ctx.Err()
}

// cleanupNudge is how long [Index.Merge] waits for the merged files to go
// before it wakes scorch's persister, and keyNudge the record it writes
// to do so.
const cleanupNudge = 100 * time.Millisecond

var keyNudge = []byte("huimem.nudge")
