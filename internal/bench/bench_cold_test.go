package bench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBenchColdWarm runs `bench cold` as a user does, with the warm serve
// mode, on a small corpus: every process it starts must answer, and the
// figures must be whole.
func TestBenchColdWarm(t *testing.T) {
	if testing.Short() {
		t.Skip("builds huimem and starts an ingest, one-shot processes and a server")
	}
	keep := filepath.Join(t.TempDir(), "kept", "homes") // not there yet
	c := exec.Command(benchBin, "cold", "--chunks", "200", "--runs", "2", "--warm", "5", "--json", "--keep", keep)
	c.Env = append(os.Environ(), "HUIMEM_EMBEDDING_NAME=hash", "HUIMEM_RETRIEVER_MIN_RELEVANCE=0")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("cold: %v", err)
	}
	var res []struct {
		Chunks int `json:"chunks"`
		Recall struct {
			Runs int `json:"runs"`
		} `json:"recall"`
		Found int `json:"recalls_with_hits"`
		Warm  *struct {
			Recalls int     `json:"recalls"`
			P50MS   float64 `json:"p50_ms"`
			P99MS   float64 `json:"p99_ms"`
			PeakRSS int64   `json:"peak_rss_bytes"`
		} `json:"warm"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("cold --json: %v\n%s", err, out)
	}
	if len(res) != 1 || res[0].Chunks != 200 || res[0].Recall.Runs != 2 || res[0].Found != 2 {
		t.Fatalf("cold gave %s", out)
	}
	if _, err := os.Stat(filepath.Join(keep, "home-synthetic-200", "huimem.db")); err != nil {
		t.Fatalf("--keep did not keep the home: %v", err)
	}
	w := res[0].Warm
	if w == nil || w.Recalls != 5 || w.P50MS <= 0 || w.P99MS < w.P50MS || w.PeakRSS <= 0 {
		t.Fatalf("warm figures incomplete: %s", out)
	}
}
