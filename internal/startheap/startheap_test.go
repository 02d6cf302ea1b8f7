package startheap

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// waitFor runs collections until cond holds: a cleanup runs on its own
// goroutine some time after the collection that found its object dead.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("GOGC was not put back after the first collections")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

func TestRaise(t *testing.T) {
	tests := []struct {
		name   string
		env    string // GOGC in the environment; "" for unset
		before int    // GOGC set by the program before Raise
		goal   uint64
		want   int // GOGC right after Raise
	}{
		{name: "raised to the goal", before: 100, goal: 16 << 20, want: 400},
		{name: "rounded down", before: 100, goal: 10 << 20, want: 250},
		{name: "goal at the runtime's own", before: 100, goal: 4 << 20, want: 100},
		{name: "goal below the runtime's own", before: 100, goal: 1 << 20, want: 100},
		{name: "GOGC in the environment stands", env: "150", before: 100, goal: 16 << 20, want: 100},
		{name: "GOGC set by the program stands", before: 300, goal: 16 << 20, want: 300},
		{name: "GOGC off stands", before: -1, goal: 16 << 20, want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", tt.env)
			old := debug.SetGCPercent(tt.before)
			defer debug.SetGCPercent(old)
			Raise(tt.goal)
			if got := gcPercent(); got != tt.want {
				t.Fatalf("GOGC after Raise(%d) = %d, want %d", tt.goal, got, tt.want)
			}
			waitFor(t, func() bool { return gcPercent() == tt.before })
		})
	}
}

// A GOGC changed after Raise (an ingest tunes its own) is not overwritten
// when the first collection puts GOGC back.
func TestRaiseKeepsALaterSetting(t *testing.T) {
	t.Setenv("GOGC", "")
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	done := make(chan struct{})
	raise(16<<20, func() { close(done) })
	if got := gcPercent(); got != 400 {
		t.Fatalf("GOGC after Raise = %d, want 400", got)
	}
	debug.SetGCPercent(250)
	waitFor(t, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
	if got := gcPercent(); got != 250 {
		t.Fatalf("GOGC after the first collection = %d, want the later setting 250", got)
	}
}
