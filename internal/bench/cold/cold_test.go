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
		{"one from rusage", []Proc{{WallMS: 5, CPUMS: 3, PeakRSS: 10}, {WallMS: 6, CPUMS: 3, PeakRSS: 12, RSSFromRusage: true}},
			Stats{Runs: 2, MedianMS: 6, MinMS: 5, MaxMS: 6, MedianCPUMS: 3, MedianRSS: 12, MaxPeakRSS: 12, RSSFromRusage: true}},
		{"odd", []Proc{{WallMS: 30, CPUMS: 9, PeakRSS: 7}, {WallMS: 10, CPUMS: 1, PeakRSS: 5}, {WallMS: 20, CPUMS: 4, PeakRSS: 9}}, Stats{Runs: 3, MedianMS: 20, MinMS: 10, MaxMS: 30, MedianCPUMS: 4, MedianRSS: 7, MaxPeakRSS: 9}},
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

func TestReadPeakRSS(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, content string
		want          int64
		ok            bool
	}{
		{"bytes", "45006848", 45006848, true},
		{"newline", "1024\n", 1024, true},
		{"empty", "", 0, false},
		{"zero", "0", 0, false},
		{"junk", "VmHWM", 0, false},
	} {
		p := filepath.Join(dir, tt.name)
		os.WriteFile(p, []byte(tt.content), 0o600)
		if n, ok := readPeakRSS(p); n != tt.want || ok != tt.ok {
			t.Errorf("%s: readPeakRSS = %d, %v; want %d, %v", tt.name, n, ok, tt.want, tt.ok)
		}
	}
	if _, ok := readPeakRSS(filepath.Join(dir, "missing")); ok {
		t.Error("a missing file gave a peak")
	}
}
