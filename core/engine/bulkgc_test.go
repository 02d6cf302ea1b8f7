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
		overlap bool
		want    int
	}{
		{"nothing live yet", 0, 100, false, bulkGCMaxPercent},
		{"little live: at most the maximum", 5 * mib, 100, false, bulkGCMaxPercent},
		{"up to bulkGCHeap", 12 * mib, 100, false, 300},
		{"rounded down", 14 * mib, 100, false, 225},
		{"half of bulkGCHeap live: as before", bulkGCHeap / 2, 100, false, 100},
		{"never below the GOGC from before", 22 * mib, 150, false, 150},
		{"GOGC=off stays", 5 * mib, -1, false, -1},
		{"a higher GOGC stays", 5 * mib, 800, false, 800},
		{"much live: as before", 64 * mib, 100, false, 100},
		{"overlap, little live: as without", 12 * mib, 100, true, 300},
		{"overlap, much live: grows by bulkGCSlack", 64 * mib, 100, true, 50},
		{"overlap, rounded down", 48 * mib, 100, true, 50},
		{"overlap, half of bulkGCHeap live", bulkGCHeap / 2, 100, true, 100},
		{"overlap, very much live: at least bulkGCMinPercent", 512 * mib, 100, true, bulkGCMinPercent},
		{"overlap, never above the GOGC from before", 40 * mib, 50, true, 50},
		{"overlap, a raised GOGC stays", 64 * mib, 200, true, 200},
		{"overlap, GOGC=off stays", 64 * mib, -1, true, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bulkGCPercent(tt.live, tt.percent, tt.overlap); got != tt.want {
				t.Errorf("bulkGCPercent(%d, %d, %v) = %d, want %d", tt.live, tt.percent, tt.overlap, got, tt.want)
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
