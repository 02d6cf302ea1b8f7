package postgres

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/huimemory/huimemory/internal/bench/synth"
)

// benchIndex is an EngineIndex holding n synthetic chunks, its copy
// loaded.
func benchIndex(b *testing.B, n int) *EngineIndex {
	b.Helper()
	x := open(b).EngineIndex()
	b.Cleanup(func() { x.Close() })
	docs := synthDocs(1, n, "d")
	for start := 0; start < len(docs); start += 1000 {
		if err := x.Apply(docs[start:min(start+1000, len(docs))], nil, uint64(start+1)); err != nil {
			b.Fatal(err)
		}
	}
	if err := x.Warm(b.Context()); err != nil {
		b.Fatal(err)
	}
	return x
}

// BenchmarkLexicalSearch times a BM25 search of a two-word query with the
// engine's default boosts (reply 0.01) for 50 matches, from the SQL and
// from the in-memory copy (its poll of the change log included), stepped
// by size.
func BenchmarkLexicalSearch(b *testing.B) {
	var queries []string
	for i := range 16 {
		queries = append(queries, synth.Word(40+i*11)+" "+synth.Word(300+i*17))
	}
	for _, n := range []int{1000, 10000} {
		x := benchIndex(b, n)
		for _, from := range []string{"sql", "copy"} {
			b.Run(fmt.Sprintf("chunks=%d/%s", n, from), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					s := Search{Text: queries[i%len(queries)], ReplyBoost: 0.01, Size: 50, NoSession: true}
					var err error
					if from == "sql" {
						_, err = x.lx.Search(b.Context(), s)
					} else {
						_, err = x.Search(b.Context(), s)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCopyLoad times loading the in-memory copy, stepped by size,
// and reports the heap it holds per chunk.
func BenchmarkCopyLoad(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		x := benchIndex(b, n)
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			var heap uint64
			for b.Loop() {
				m := newLexMirror(x.db)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				if err := m.load(b.Context()); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap = after.HeapAlloc - before.HeapAlloc
				runtime.KeepAlive(m)
				m.close()
			}
			b.ReportMetric(float64(heap)/float64(n), "B/chunk")
		})
	}
}
