package filter

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// Package-level sinks keep the compiler from optimising the calls away.
var (
	sinkExpr Expr
	sinkBool bool
)

// benchExpr builds an expression of n comparisons, seeded so that every run
// parses the same text.
func benchExpr(n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{`role = 'user'`, `speaker != 'Bob'`, `timestamp >= '2026-04-06'`, `timestamp <= '2026-04-13 10:00'`, `type = 'decision'`}
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString([]string{" AND ", " OR ", " AND NOT "}[rng.IntN(3)])
		}
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return b.String()
}

func BenchmarkParse(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		expr := benchExpr(n)
		b.Run(fmt.Sprintf("comparisons=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(expr)))
			for b.Loop() {
				sinkExpr, _ = Parse(expr, time.UTC)
			}
		})
	}
}

func BenchmarkEval(b *testing.B) {
	r := rec{t: time.Date(2026, 4, 8, 12, 0, 0, 0, time.UTC), vals: map[string][]string{"role": {"user"}, "speaker": {"Alice"}}}
	for _, n := range []int{1, 10, 100} {
		e, err := Parse(benchExpr(n), time.UTC)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("comparisons=%d", n), func(b *testing.B) {
			for b.Loop() {
				sinkBool = Eval(e, r)
			}
		})
	}
}
