package engine

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/internal/bench/synth"
)

// archiveBenchSizes are the corpus sizes, in messages, spread over 52
// weeks. 100k runs only with HUIMEM_BENCH_LARGE=1: ingesting it takes a
// few minutes.
func archiveBenchSizes() []int {
	sizes := []int{1000, 10000}
	if os.Getenv("HUIMEM_BENCH_LARGE") != "" {
		sizes = append(sizes, 100000)
	}
	return sizes
}

var hitSink []core.Hit

// BenchmarkArchive measures sealing a year of transcripts (52 weeks) and
// reading a chunk back from a sealed week:
//
//   - seal: every week packed, verified and recorded; MB/s is the
//     decompressed (transcript) size sealed per second, ratio the
//     transcripts' size over the archives' size.
//   - get/loose: `huimem get` of one chunk before sealing, for reference.
//   - get/sealed-cold: the same chunk after sealing, with the cache of
//     decompressed weeks and the in-memory views emptied before each read:
//     the week is decompressed every time.
//   - get/sealed-cached: the same read once the week is cached.
//
// Run: HUIMEM_BENCH_LARGE=1 go test ./core/engine -run '^$' -bench Archive -benchtime 5x -timeout 30m
func BenchmarkArchive(b *testing.B) {
	for _, n := range archiveBenchSizes() {
		home, err := os.MkdirTemp("", "huimem-bench-archive-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(home) })
		e := openHome(b, home)
		msgs := synth.Corpus(synth.Options{Seed: 42, Pairs: n / 2, PerSession: 20, Start: benchStart, Span: 52 * 7 * 24 * time.Hour})
		for i := 0; i < len(msgs); i += 20000 {
			if _, err := e.Ingest(b.Context(), msgs[i:min(i+20000, len(msgs))]); err != nil {
				b.Fatal(err)
			}
		}
		// A chunk in the middle of the year.
		var ns, id string
		e.st.View(func(tx *store.Tx) error {
			mid := msgs[len(msgs)/2]
			ns, id = mid.Namespace, tx.SessionChunkIDs(mid.Namespace, mid.Session)[0]
			return nil
		})
		get := func(b *testing.B) {
			var err error
			if hitSink, err = e.RecallByID(b.Context(), ns, id, 0); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("messages=%d/get/loose", n), func(b *testing.B) {
			for b.Loop() {
				get(b)
			}
		})
		b.Run(fmt.Sprintf("messages=%d/seal", n), func(b *testing.B) {
			var raw, packed int64
			weeks := 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				e.reopenAll(b)
				// Seal pays for its own writes only (syncfs on Linux).
				if err := syncFiles(e.home, []string{e.st.Path()}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				sealed, err := e.Seal(b.Context(), SealOptions{Now: benchStart.Add(400 * 24 * time.Hour)})
				if err != nil {
					b.Fatal(err)
				}
				raw, packed, weeks = 0, 0, len(sealed)
				for _, w := range sealed {
					raw += w.RawBytes
					packed += w.ArchiveBytes
				}
				b.SetBytes(raw)
			}
			b.ReportMetric(float64(raw)/float64(packed), "ratio")
			b.ReportMetric(float64(weeks), "weeks")
			b.ReportMetric(float64(raw)/1e6, "raw-MB")
			b.ReportMetric(float64(packed)/1e6, "archive-MB")
		})
		b.Run(fmt.Sprintf("messages=%d/get/sealed-cold", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				e.dropArchiveCaches()
				b.StartTimer()
				get(b)
			}
		})
		b.Run(fmt.Sprintf("messages=%d/get/sealed-cached", n), func(b *testing.B) {
			get(b)
			for b.Loop() {
				get(b)
			}
		})
		e.Close()
	}
}

// reopenAll re-opens every sealed week, so that the next seal has work.
func (e *Engine) reopenAll(tb testing.TB) {
	tb.Helper()
	var weeks []weekRef
	e.st.View(func(tx *store.Tx) error {
		return tx.ForEachWeek(func(w *store.Week) error {
			weeks = append(weeks, weekRef{w.NS, w.Week})
			return nil
		})
	})
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	for _, w := range weeks {
		if err := e.write.reopenWeek(w); err != nil {
			tb.Fatal(err)
		}
	}
}
