package kernel

import (
	"os"
	"strings"
	"testing"
)

// TestEstimateTokens checks EstimateTokens against o200k_base on the
// repository's own prose, code, transcripts and rendered recalls, in
// English and Chinese: each paragraph between 0.9 and 2.1 times the real
// count, and the whole within 1.1 to 1.6 times.
func TestEstimateTokens(t *testing.T) {
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{
		"../../README.md", "../../docs/time-phrases.md", "../../docs/recall-quality.md",
		"../engine/recall.go", "../../examples/quickstart/conversation.jsonl",
		"../formats/testdata/claude-code/4c1e6a9b-2f3d-4e5a-8b7c-9d0e1f2a3b4c.jsonl",
		"../formats/testdata/codex/rollout-2026-11-18T09-30-12-019a8f3c-7d21-7e40-b5a1-3c2d1e0f9a8b.jsonl",
		"../../internal/render/testdata/hits.txt",
	}
	est, real := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range strings.Split(string(data), "\n\n") {
			if len(p) < 20 {
				continue
			}
			e, n := EstimateTokens(p), tok.Count(p)
			est, real = est+e, real+n
			if r := float64(e) / float64(n); r < 0.9 || r > 2.1 {
				t.Errorf("%s: estimate %d, o200k_base %d (%.2f×) for %q", f, e, n, r, p[:min(len(p), 120)])
			}
		}
	}
	if r := float64(est) / float64(real); r < 1.1 || r > 1.6 {
		t.Errorf("estimate %d, o200k_base %d on the whole (%.2f×)", est, real, r)
	}
	for s, want := range map[string]int{"": 0, "hello": 2, "  ": 0, "2026": 2, "上周三": 3, "a-b": 3} {
		if got := EstimateTokens(s); got != want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", s, got, want)
		}
	}
}
