//go:build unix

package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestManyProcessesOneHome runs 16 recall loops and 2 ingest loops of
// real huimem processes on one home: no failure, every
// finished write found by later recalls, every message recallable at the
// end. HUIMEM_TEST_STRESS=1 runs it for a minute instead of 3 seconds.
func TestManyProcessesOneHome(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs huimem processes")
	}
	d := 3 * time.Second
	if os.Getenv("HUIMEM_TEST_STRESS") != "" {
		d = time.Minute
	}
	res, err := runConcurrent(t.Context(), concurrentOptions{
		Exe: huimemBin, Home: filepath.Join(t.TempDir(), "home"), Readers: 16, Writers: 2, Duration: d, Messages: 20, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1fs: %d recalls (%.1f/s, p99 %.0f ms), %d ingests (%.2f/s, %d messages); writer lock wait p99 %.1f ms, max %.1f ms; load %s -> %s",
		res.Seconds, res.Reads, res.ReadsPerSec, res.ReadP99Ms, res.Writes, res.WritesPerSec, res.MessagesWritten,
		res.WriterWaitP99Ms, res.WriterWaitMaxMs, res.LoadBefore, res.LoadAfter)
	for _, f := range res.Failures {
		t.Errorf("failure: %s", f)
	}
	if len(res.MissingAtEnd) > 0 {
		t.Errorf("%d messages not recallable at the end, such as %s", len(res.MissingAtEnd), res.MissingAtEnd[0])
	}
	if res.Writes < 2 || res.ReadChecks == 0 {
		t.Errorf("too little ran: %d ingests, %d checked recalls", res.Writes, res.ReadChecks)
	}
}
