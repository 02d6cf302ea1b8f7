package engine

import "time"

// Letting mapped pages go during a bulk ingest. The
// store and the index are files mapped into memory; what a phase reads
// stays in the process's resident set until it is let go, and the kernel
// keeps it in its page cache either way. Without this the peak RSS of a
// 300 MB ingest grew with the store it built (469 MiB at 300 MB against
// 318 at 150 MB), though the heap did not.

// mappedReleaser is what the home's own index (core/index) offers to let
// its segment files' mapped pages go; a backend's index maps none.
type mappedReleaser interface{ ReleaseMapped() }

// releaseMapped lets the process's resident set drop the pages of the
// store's map and of the index's segment files: scorch's
// background merges read whole segments while a bulk ingest indexes, and
// their pages stayed resident beside the batches' heap. The pages stay in
// the page cache.
func (s *shared) releaseMapped() {
	s.st.ReleaseMapped()
	if r, ok := s.ix.(mappedReleaser); ok {
		r.ReleaseMapped()
	}
}

// Releasing between transactions or batches does not bound what one
// phase maps: a merge of a stage's run into buckets of a million keys
// touches a leaf per few records all over the file, and a fault maps more
// of the page cache than the page it touches (fault-around, large
// folios), so one 4 MiB transaction held some 150 MiB of the store's map,
// and its commit, which reads the changed leaves again, as much again;
// the final index merge reads every segment. So a staged ingest lets the
// store's map and the index's go every storeReleaseTick while it runs,
// and the index merge the index's every indexReleaseTick.
const (
	// A staged ingest lets the index's pages go at this tick too: each
	// index batch looks its documents' ids up in every
	// segment, and scorch's merges read segments in the background, so
	// up to 21–23 MiB of segments were resident at 300 MB of JSONL
	// between two batches (15 at 75 MB); with the tick, 6–18 MiB, the
	// peak 1–2 MiB lower, in the same time.
	storeReleaseTick = 100 * time.Millisecond
	// After 300 MB of JSONL up to 94 MiB of the index was resident
	// between two ticks of the merge at 250 ms (258 MiB without them);
	// the merge reads its segments at some 400 MB/s, and at 50 ms the
	// ingest's peak RSS fell from 231–243 to 216 MiB in the same time.
	indexReleaseTick = 50 * time.Millisecond
)

// every calls fn every tick, on a goroutine of its own, until the
// returned function is called, which waits for the last call to end.
func every(tick time.Duration, fn func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				fn()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
