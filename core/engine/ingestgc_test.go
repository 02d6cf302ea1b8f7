package engine

import (
	"runtime/debug"
	"testing"
)

func TestBulkGCPercent(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name    string
		live    uint64
		percent int
		want    int
	}{
		{"nothing live yet", 0, 100, bulkGCMaxPercent},
		{"little live: at most the maximum", 5 * mib, 100, bulkGCMaxPercent},
		{"up to bulkGCHeap", 12 * mib, 100, 300},
		{"rounded down", 14 * mib, 100, 225},
		{"half of bulkGCHeap live: as before", bulkGCHeap / 2, 100, 100},
		{"never below the GOGC from before", 22 * mib, 150, 150},
		{"GOGC=off stays", 5 * mib, -1, -1},
		{"a higher GOGC stays", 5 * mib, 800, 800},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bulkGCPercent(tt.live, tt.percent); got != tt.want {
				t.Errorf("bulkGCPercent(%d, %d) = %d, want %d", tt.live, tt.percent, got, tt.want)
			}
		})
	}
}

// TestBulkGCRestores: GOGC is raised (within bounds) while any bulk
// ingest runs, a GOGC=off or higher one is kept, and the GOGC from
// before comes back when the last bulk ingest ends.
func TestBulkGCRestores(t *testing.T) {
	tests := []struct {
		name     string
		percent  int
		min, max int // GOGC during the bulk ingest
	}{
		{"default", 100, 100, bulkGCMaxPercent},
		{"GOGC=off", -1, -1, -1},
		{"a higher GOGC", 800, 800, 800},
	}
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	gogc := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(tt.percent)
			end1 := beginBulkGC()
			end2 := beginBulkGC()
			if p := gogc(); p < tt.min || p > tt.max {
				t.Errorf("in two bulk ingests: GOGC %d, want %d to %d", p, tt.min, tt.max)
			}
			end1()
			end1() // a second call does nothing
			if p := gogc(); p < tt.min || p > tt.max {
				t.Errorf("in one bulk ingest: GOGC %d, want %d to %d", p, tt.min, tt.max)
			}
			end2()
			if p := gogc(); p != tt.percent {
				t.Errorf("after: GOGC %d, want %d", p, tt.percent)
			}
		})
	}
}
