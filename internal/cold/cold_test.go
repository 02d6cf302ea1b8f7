package cold

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStats(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []Proc
		want Stats
	}{
		{"none", nil, Stats{}},
		{"one", []Proc{{WallMS: 5, CPUMS: 3, PeakRSS: 10}}, Stats{Runs: 1, MedianMS: 5, MinMS: 5, MaxMS: 5, MedianCPUMS: 3, MedianRSS: 10, MaxPeakRSS: 10}},
		{"odd", []Proc{{30, 9, 7}, {10, 1, 5}, {20, 4, 9}}, Stats{Runs: 3, MedianMS: 20, MinMS: 10, MaxMS: 30, MedianCPUMS: 4, MedianRSS: 7, MaxPeakRSS: 9}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, stats(tt.in)); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCountLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.jsonl")
	if err := os.WriteFile(p, []byte("{}\n\n{}\n  \n{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := countLines(p); n != 3 || err != nil {
		t.Errorf("countLines = %d, %v; want 3", n, err)
	}
	if _, err := countLines(p + ".missing"); err == nil {
		t.Errorf("a missing file was counted")
	}
}

func TestParseStats(t *testing.T) {
	for _, tt := range []struct {
		name     string
		in       string
		chunks   int
		embedder string
		err      bool
	}{
		{"hash", `{"home":"/h","chunks":6,"messages":12,"embedder":{"name":"hash","model":"fnv1a","dim":256}}`, 6, "hash", false},
		{"no embedder", `{"chunks":0}`, 0, "", false},
		{"not JSON", `huimem: no home`, 0, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chunks, embedder, err := parseStats([]byte(tt.in))
			if chunks != tt.chunks || embedder != tt.embedder || (err != nil) != tt.err {
				t.Errorf("parseStats = %d, %q, %v; want %d, %q, error %v", chunks, embedder, err, tt.chunks, tt.embedder, tt.err)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		p    float64
		want float64
	}{
		{nil, 0.5, 0},
		{[]float64{7}, 0.99, 7},
		{[]float64{1, 2, 3, 4}, 0.5, 2},
		{[]float64{1, 2, 3, 4, 5}, 0.5, 3},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.99, 10},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9},
	} {
		if got := percentile(tt.in, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tt.in, tt.p, got, tt.want)
		}
	}
}
