package engine

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/bench/synth"
)

// benchSizes are the corpus sizes, in chunks, the benchmarks step through.
// 100k runs only with HUIMEM_BENCH_LARGE=1: building it takes minutes.
func benchSizes() []int {
	sizes := []int{1000, 10000}
	if os.Getenv("HUIMEM_BENCH_LARGE") != "" {
		sizes = append(sizes, 100000)
	}
	return sizes
}

var benchStart = time.Date(2025, 12, 1, 9, 0, 0, 0, cst)

// BenchmarkIngest measures ingest throughput into a fresh home, in one
// batch of n exchange pairs (n chunks).
func BenchmarkIngest(b *testing.B) {
	for _, n := range benchSizes() {
		msgs := synth.Corpus(synth.Options{Seed: 42, Pairs: n, Start: benchStart})
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				e := openTest(b)
				b.StartTimer()
				if _, err := e.Ingest(b.Context(), msgs); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				e.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// BenchmarkIngestAppend measures adding one exchange pair to a home that
// already holds n chunks, as a live agent does turn by turn.
func BenchmarkIngestAppend(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			e := benchHome(b, n)
			at := benchStart.Add(400 * 24 * time.Hour)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := at.Add(time.Duration(i) * time.Minute)
				_, err := e.Ingest(b.Context(), []core.Message{
					msg("live", t, core.RoleUser, fmt.Sprintf("live question %d about the deploy budget", i)),
					msg("live", t.Add(time.Second), core.RoleAssistant, fmt.Sprintf("live answer %d", i)),
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var benchHomes = map[string]string{}

// benchHome opens a home holding n chunks over a year, built once per
// process.
func benchHome(b *testing.B, n int) *Engine {
	return benchHomeSpan(b, n, 365*24*time.Hour)
}

// benchHomeSpan opens a home holding n chunks spread over span, built once
// per process.
func benchHomeSpan(b *testing.B, n int, span time.Duration) *Engine {
	b.Helper()
	key := fmt.Sprint(n, span)
	home, ok := benchHomes[key]
	if !ok {
		var err error
		home, err = os.MkdirTemp("", "huimem-bench-")
		if err != nil {
			b.Fatal(err)
		}
		e := openHome(b, home)
		msgs := synth.Corpus(synth.Options{Seed: 42, Pairs: n, Start: benchStart, Span: span})
		for i := 0; i < len(msgs); i += 20000 {
			if _, err := e.Ingest(b.Context(), msgs[i:min(i+20000, len(msgs))]); err != nil {
				b.Fatal(err)
			}
		}
		e.Close()
		benchHomes[key] = home
	}
	// Copies would cost minutes at 100k; the benchmarks that write use
	// their own session, so sharing the home is harmless.
	return openHome(b, home)
}

var resultSink *core.Results

// BenchmarkRecall measures recall latency: a plain query over the whole
// corpus, and the same query scoped to one week.
func BenchmarkRecall(b *testing.B) {
	for _, n := range benchSizes() {
		e := benchHome(b, n)
		week := benchStart.Add(21 * 24 * time.Hour)
		week = time.Date(week.Year(), week.Month(), week.Day()-int(week.Weekday()+6)%7, 0, 0, 0, 0, cst)
		for _, tt := range []struct {
			name string
			q    core.Query
		}{
			{"plain", core.Query{Text: "what was the budget for the hotel trip"}},
			{"week", core.Query{Text: "what was the budget for the hotel trip", Since: week, Before: week.Add(7 * 24 * time.Hour)}},
			{"context", core.Query{Text: "kyoto temple garden " + synth.ZhWord(40), Context: 2}},
			// A time phrase whose window holds nothing: the search of the
			// window, then the widened one.
			{"widened", core.Query{Text: "what was the budget for the hotel trip in 2019"}},
			// A question about nothing in the memory: the relevance floor
			// reads the whole pool before it answers with nothing.
			{"offtopic", core.Query{Text: "what did we decide about the narwhal quartet"}},
		} {
			b.Run(fmt.Sprintf("chunks=%d/%s", n, tt.name), func(b *testing.B) {
				var err error
				resultSink, err = e.Recall(b.Context(), tt.q) // warm the caches
				if err != nil {
					b.Fatal(err)
				}
				if want := tt.name == "widened"; resultSink.Widened != want {
					b.Fatalf("widened %v, want %v", resultSink.Widened, want)
				}
				if tt.name == "offtopic" && len(resultSink.Hits) > 0 {
					b.Fatalf("%d hits for an off-topic question, want none", len(resultSink.Hits))
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if resultSink, err = e.Recall(b.Context(), tt.q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("chunks=%d/by-id", n), func(b *testing.B) {
			r, _ := e.Recall(b.Context(), core.Query{Text: "budget"})
			id := r.Hits[0].ID
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.RecallByID(b.Context(), "", id, 2); err != nil {
					b.Fatal(err)
				}
			}
		})
		e.Close()
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, home := range benchHomes {
		os.RemoveAll(home)
	}
	os.Exit(code)
}

// BenchmarkProgressive measures one round of a progressive scan and a whole
// 16-week scan over corpora of the same density (about 500 chunks a week)
// and growing size: 10k chunks span 20 weeks, 100k span 200. The time per
// round should follow the weeks scanned, not the size of the corpus.
func BenchmarkProgressive(b *testing.B) {
	for _, n := range benchSizes() {
		span := time.Duration(n/500) * 7 * 24 * time.Hour
		e := benchHomeSpan(b, n, span)
		now := benchStart.Add(span)
		for _, weeks := range []int{1, 16} {
			b.Run(fmt.Sprintf("chunks=%d/weeks=%d", n, weeks), func(b *testing.B) {
				e.cfg.Retriever.MaxScanWeeks = weeks
				// More hits than the scan can keep, so that it never stops
				// early and always scans every week.
				q := core.Query{Text: "以前 what was the budget for the hotel trip", Now: now, TopK: 5*weeks + 1}
				rounds := 0
				q.OnRound = func(core.Round) { rounds++ }
				var err error
				if resultSink, err = e.Recall(b.Context(), q); err != nil {
					b.Fatal(err)
				}
				rounds = 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if resultSink, err = e.Recall(b.Context(), q); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(rounds)/float64(b.N), "rounds/op")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(rounds), "µs/round")
			})
		}
		e.Close()
	}
}
