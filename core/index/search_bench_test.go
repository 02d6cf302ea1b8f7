package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// searchSink keeps the benchmarks' results alive.
var searchSink []Match

// BenchmarkSearchAll measures one BM25 search of an index of n chunks as
// a recall runs it: a question in English and one in Chinese, the top 160
// with the score of every match kept. 100k runs only with
// HUIMEM_BENCH_LARGE=1.
func BenchmarkSearchAll(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("HUIMEM_BENCH_LARGE") != "" {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		docs, parts := benchChunks(n)
		x, err := Open(filepath.Join(b.TempDir(), "index"))
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < n; i += 5000 {
			j := min(i+5000, n)
			if err := x.ApplyParts(docs[i:j], parts[i:j], nil, uint64(j)); err != nil {
				b.Fatal(err)
			}
		}
		for _, q := range []struct{ name, text string }{
			{"en", "what was the budget for the hotel in kyoto"},
			{"zh", "我们上次说的旅行预算是多少"},
		} {
			b.Run(fmt.Sprintf("chunks=%d/%s", n, q.name), func(b *testing.B) {
				s := Search{Text: q.text, ReplyBoost: 0.5, NS: "n", Size: 160}
				for b.Loop() {
					ms, all, err := x.SearchAll(b.Context(), s, 1<<16)
					if err != nil {
						b.Fatal(err)
					}
					if all != nil {
						all.Close()
					}
					searchSink = ms
				}
			})
		}
		x.Close()
	}
}
