package timeparse

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Package-level sinks keep the compiler from optimising the calls away.
var (
	sinkRange Range
	sinkRest  string
)

func BenchmarkParse(b *testing.B) {
	ref := wall(b, sundayRef, mustLoad(b, "Asia/Shanghai"))
	for _, text := range []string{"上周三下午", "last Wednesday afternoon", "between April 1 and April 10", "前段时间"} {
		b.Run(text, func(b *testing.B) {
			for b.Loop() {
				sinkRange, _ = Parse(text, ref)
			}
		})
	}
}

// benchQuery builds a query of about n runes from filler words, seeded so
// that every run measures the same text, with one time phrase in the
// middle.
func benchQuery(n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"我们", "讨论", "了", "方案", "meeting", "notes", "about", "the", "部署", "plan", "and", "预算"}
	var sb strings.Builder
	for sb.Len() < n/2 {
		sb.WriteString(words[rng.IntN(len(words))])
		sb.WriteByte(' ')
	}
	sb.WriteString("上周三下午 ")
	for sb.Len() < n {
		sb.WriteString(words[rng.IntN(len(words))])
		sb.WriteByte(' ')
	}
	return sb.String()
}

func BenchmarkExtract(b *testing.B) {
	ref := wall(b, sundayRef, mustLoad(b, "Asia/Shanghai"))
	for _, n := range []int{30, 300, 3000} {
		q := benchQuery(n)
		b.Run(fmt.Sprintf("len=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				sinkRange, sinkRest, _ = Extract(q, ref)
			}
		})
	}
}
