package startheap

import (
	"os"
	"runtime"
	"runtime/debug"
)

// minHeap is the runtime's heap goal for the first collection at GOGC
// 100 (heapMinimum in runtime/mgcpacer.go); the goal scales with GOGC.
const minHeap = 4 << 20

// Raise lets the heap grow to goal bytes before the first collection,
// then puts GOGC back to what it was. It does nothing when the GOGC
// environment variable is set (the user's choice stands), when GOGC is
// not at its default of 100 (someone else tuned it), or when goal is not
// above the runtime's own first goal. Call it once, early in main or in
// a command, before most of the allocation happens.
func Raise(goal uint64) { raise(goal, nil) }

// raise is Raise; after, if not nil, is called once GOGC is put back (for
// tests).
func raise(goal uint64, after func()) {
	if goal <= minHeap || os.Getenv("GOGC") != "" {
		return
	}
	percent := int(goal * 100 / minHeap)
	if prev := debug.SetGCPercent(percent); prev != 100 {
		debug.SetGCPercent(prev)
		return
	}
	// The sentinel is unreachable as soon as Raise returns, so the first
	// collection finds it dead and its cleanup runs just after that
	// collection. A pointer field keeps it out of the tiny allocator,
	// whose blocks may outlive any one of their objects.
	sentinel := &struct{ _ *byte }{}
	runtime.AddCleanup(sentinel, restore, restoring{percent, after})
}

// restoring is what the sentinel's cleanup needs.
type restoring struct {
	percent int
	after   func()
}

// restore puts GOGC back to 100 if it is still the percent that Raise
// set; if something changed it since, that setting stands.
func restore(r restoring) {
	if cur := debug.SetGCPercent(100); cur != r.percent {
		debug.SetGCPercent(cur)
	}
	if r.after != nil {
		r.after()
	}
}
