package timeparse

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkParseMedian parses every phrase of the phrase table in turn and
// reports the median time per phrase (median-ns/phrase) beside the mean
// (ns/op is the time for the whole table). Each phrase is timed over many
// calls, so the median is stable even for the shortest phrases.
func BenchmarkParseMedian(b *testing.B) {
	ref := wall(b, sundayRef, mustLoad(b, "Asia/Shanghai"))
	var texts []string
	for _, tc := range phraseTable {
		texts = append(texts, tc.text)
	}
	benchMedian(b, texts, ref)
}

func benchMedian(b *testing.B, texts []string, ref time.Time) {
	const reps = 50
	per := make([]time.Duration, len(texts))
	b.ResetTimer()
	for b.Loop() {
		for i, text := range texts {
			t0 := time.Now()
			for range reps {
				sinkRange, _ = Parse(text, ref)
			}
			per[i] += time.Since(t0)
		}
	}
	b.StopTimer()
	sorted := slices.Clone(per)
	slices.Sort(sorted)
	med := sorted[len(sorted)/2]
	b.ReportMetric(float64(med.Nanoseconds())/float64(b.N*reps), "median-ns/phrase")
	b.ReportMetric(float64(len(texts)), "phrases")
}

// BenchmarkParseMedianAll is BenchmarkParseMedian over both phrase tables,
// those of phrasesByRef at their own reference times.
func BenchmarkParseMedianAll(b *testing.B) {
	loc := mustLoad(b, "Asia/Shanghai")
	type item struct {
		text string
		ref  time.Time
	}
	var items []item
	for _, tc := range phraseTable {
		items = append(items, item{tc.text, wall(b, sundayRef, loc)})
	}
	for _, g := range phrasesByRef {
		for _, text := range g.texts {
			items = append(items, item{text, wall(b, g.ref, loc)})
		}
	}
	const reps = 20
	per := make([]time.Duration, len(items))
	b.ResetTimer()
	for b.Loop() {
		for i, it := range items {
			t0 := time.Now()
			for range reps {
				sinkRange, _ = Parse(it.text, it.ref)
			}
			per[i] += time.Since(t0)
		}
	}
	b.StopTimer()
	slices.Sort(per)
	b.ReportMetric(float64(per[len(per)/2].Nanoseconds())/float64(b.N*reps), "median-ns/phrase")
	b.ReportMetric(float64(len(items)), "phrases")
}
