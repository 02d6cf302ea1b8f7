package engine

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// The garbage collector during a bulk ingest. With the
// default GOGC of 100 the heap may grow to twice what was live after
// the last collection, so a process with little live data collects
// every few megabytes: a 10k-chunk ingest ran some 130 collections,
// most of them with under 20 MB live. While a bulk ingest runs, GOGC is
// raised for as long as little is live, so that the heap may grow to
// bulkGCHeap (but never past five times the live heap) before it is
// collected; once half of bulkGCHeap is live, GOGC is as it was. That
// is fewer collections, in no more memory than an index batch takes
// anyway. While a large staged ingest indexes one batch as it stages the
// next (stageindex.go), 40 to 50 MB are live, and GOGC 100
// would let the heap double that: then the heap may grow only
// bulkGCSlack past the live heap (GOGC lowered to that, at least
// bulkGCMinPercent), which took the peak RSS of a 10k-chunk ingest from
// 150 to 141 MiB for 7% more time at 56k messages. A goroutine looks at the live heap every bulkGCTick and sets
// GOGC. No memory limit is set: one that the heap came near whenever
// little was live made the runtime return memory to the system and take
// it back over and over (a 100k-chunk ingest took a quarter more CPU
// time, and more memory). A GOGC set by the user (off, or higher) is
// kept, and GOGC is put back when the last bulk ingest of the process
// ends.

const (
	// bulkMin is the number of chunks from which indexing them
	// (applyOutbox) counts as a bulk ingest.
	bulkMin = 1000
	// bulkGCHeap is the heap a collection may wait for while less than
	// half of it is live: about what GOGC 100 reaches anyway when an
	// index batch (indexBatchBytes) is being analysed.
	bulkGCHeap = 48 << 20
	// bulkGCMaxPercent bounds GOGC.
	bulkGCMaxPercent = 400
	// bulkGCSlack is how far the heap may grow past the live heap, and
	// bulkGCMinPercent how low GOGC may go for it, while indexing
	// overlaps staging.
	bulkGCSlack      = 32 << 20
	bulkGCMinPercent = 25
	// bulkGCTick is how often the settings follow the live heap.
	bulkGCTick = 10 * time.Millisecond
)

// bulkGC is the process's bulk-ingest collector settings: runtime/debug's
// are process-wide, and ingests of several engines may overlap.
var bulkGC struct {
	mu    sync.Mutex
	depth int
	// percent is the GOGC to restore.
	percent int
	// stop ends the following of the live heap.
	stop func()
	// overlap counts the staged ingests whose indexing overlaps their
	// staging (see beginOverlapGC).
	overlap atomic.Int32
}

// beginOverlapGC tells the bulk-ingest collector that indexing overlaps
// staging until the returned function is called: the heap is then held
// to bulkGCSlack past the live heap. Call it inside beginBulkGC.
func beginOverlapGC() (end func()) {
	bulkGC.overlap.Add(1)
	return sync.OnceFunc(func() { bulkGC.overlap.Add(-1) })
}

// beginBulkGC applies the bulk-ingest collector settings and returns
// the function that ends them (restoring the previous settings when no
// other bulk ingest runs). Safe for concurrent use.
func beginBulkGC() (end func()) {
	bulkGC.mu.Lock()
	defer bulkGC.mu.Unlock()
	if bulkGC.depth == 0 {
		bulkGC.percent = debug.SetGCPercent(100) // reads it, and puts it back:
		debug.SetGCPercent(bulkGC.percent)
		bulkGC.stop = followLiveHeap(bulkGC.percent)
	}
	bulkGC.depth++
	var once sync.Once
	return func() {
		once.Do(func() {
			bulkGC.mu.Lock()
			defer bulkGC.mu.Unlock()
			if bulkGC.depth--; bulkGC.depth == 0 {
				bulkGC.stop()
				debug.SetGCPercent(bulkGC.percent)
			}
		})
	}
}

// followLiveHeap applies [bulkGCPercent] for the live heap now and every
// bulkGCTick, given the GOGC from before, until the returned function is
// called (the caller then puts GOGC back).
func followLiveHeap(percent int) (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	cur := percent
	apply := func() {
		if p := bulkGCPercent(readLive(sample), percent, bulkGC.overlap.Load() > 0); p != cur {
			debug.SetGCPercent(p)
			cur = p
		}
	}
	apply()
	return every(bulkGCTick, apply)
}

// bulkGCPercent returns GOGC for a bulk ingest with live bytes live,
// given the GOGC from before (negative: off): the percent that lets the
// heap grow to bulkGCHeap, at most bulkGCMaxPercent and at least the one
// from before, rounded down to a multiple of 25 so that it changes
// seldom. With overlap, once half of bulkGCHeap is live, the one that
// lets it grow by bulkGCSlack, at least bulkGCMinPercent and at most the
// one from before (a GOGC the user raised stays).
func bulkGCPercent(live uint64, percent int, overlap bool) int {
	if overlap && live >= bulkGCHeap/2 && percent >= 0 && percent <= 100 {
		return max(bulkGCMinPercent, min(percent, int(bulkGCSlack*100/live)/25*25))
	}
	if percent < 0 || live >= bulkGCHeap/2 {
		return percent
	}
	p := bulkGCMaxPercent
	if live > 0 {
		p = min(p, int((bulkGCHeap-live)*100/live))
	}
	return max(percent, p/25*25)
}

// readLive reads sample, the live heap metric, or 0 when the runtime
// does not say.
func readLive(sample []metrics.Sample) uint64 {
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}
