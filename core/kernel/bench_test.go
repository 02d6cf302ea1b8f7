package kernel

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/bench/perf"
	"github.com/huimemory/huimemory/internal/bench/synth"
	"github.com/huimemory/huimemory/plugins/host"
)

// benchSizes are the corpus sizes, in chunks; 100k runs only with
// HUIMEM_BENCH_LARGE=1, since building it takes minutes.
func benchSizes() []int {
	sizes := []int{1000, 10000}
	if os.Getenv("HUIMEM_BENCH_LARGE") != "" {
		sizes = append(sizes, 100000)
	}
	return sizes
}

var assembledSink *Assembled

// BenchmarkContext measures the kernel's added latency per request:
// assembling the context for a new message (recall, profile, recent
// window, token counting), excluding the model. The session being
// continued has 40 turns; the corpus is the perf benchmark's.
func BenchmarkContext(b *testing.B) {
	start := time.Date(2025, 12, 1, 9, 0, 0, 0, cst)
	queries := perf.QueryTexts(200)
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			cfg := core.Config{Storage: core.StorageConfig{Home: b.TempDir()}}
			e, err := host.Open(b.Context(), cfg, engine.Options{}, host.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			msgs := synth.Corpus(synth.Options{Seed: 42, Pairs: n, Start: start})
			for i := 0; i < len(msgs); i += 20000 {
				if _, err := e.Ingest(b.Context(), msgs[i:min(i+20000, len(msgs))]); err != nil {
					b.Fatal(err)
				}
			}
			now := start.Add(366 * 24 * time.Hour)
			k, err := New(e, Options{Tools: tools.Options{Now: func() time.Time { return now }}})
			if err != nil {
				b.Fatal(err)
			}
			live := msgs[len(msgs)-1].Session
			for i := range 5 { // warm the caches, as a running server's are
				if _, err := k.Context(b.Context(), live, queries[i], 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a, err := k.Context(b.Context(), live, queries[i%len(queries)], 0)
				if err != nil {
					b.Fatal(err)
				}
				assembledSink = a
			}
		})
	}
}
