package vector_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/huimemory/huimemory/core/vector"
	"github.com/huimemory/huimemory/plugins/embedder/hash"
)

// BenchmarkPoolDepth measures how deep in the ranking by codes the exact
// top k lie: for each query, the approximate rank of the lowest of the
// exact top k, less k. A search of codes returns the exact result when
// that is below the pool's extra ranks (poolSize(k) - k, at least 64).
// It reports the mean and the largest over the queries, and how many
// queries needed more than 16, 32 and 64, on random vectors and on the
// hash embedder's vectors of the LoCoMo turns with its questions as
// queries (../shared/bench/locomo). Set HUIMEM_BENCH_POOL=1 to run it.
func BenchmarkPoolDepth(b *testing.B) {
	if os.Getenv("HUIMEM_BENCH_POOL") == "" {
		b.Skip("set HUIMEM_BENCH_POOL=1 to measure how deep the exact top k lie")
	}
	type corpus struct {
		name    string
		vecs    [][]float32
		queries [][]float32
	}
	var corpora []corpus
	r := rand.New(rand.NewPCG(21, 22))
	randVec := func() []float32 {
		v := make([]float32, 256)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return vector.Normalize(v)
	}
	rc := corpus{name: "random-20000"}
	for range 20000 {
		rc.vecs = append(rc.vecs, randVec())
	}
	for range 200 {
		rc.queries = append(rc.queries, randVec())
	}
	corpora = append(corpora, rc)
	if turns, questions, err := locomo("../../../shared/bench/locomo/locomo-dev.json"); err == nil {
		emb, _ := hash.New(256)
		lc := corpus{name: fmt.Sprintf("locomo-hash-%d", len(turns))}
		lc.vecs, _ = emb.Embed(context.Background(), turns)
		lc.queries, _ = emb.Embed(context.Background(), questions)
		corpora = append(corpora, lc)
	} else {
		b.Logf("LoCoMo not measured: %v", err)
	}
	for _, c := range corpora {
		codes := make([][]byte, len(c.vecs))
		for i, v := range c.vecs {
			codes[i] = vector.AppendCode(nil, v)
		}
		for _, k := range []int{10, 50, 200} {
			b.Run(fmt.Sprintf("%s/k=%d", c.name, k), func(b *testing.B) {
				var sum, worst, over16, over32, over64, n int
				for b.Loop() {
					for _, q := range c.queries {
						type s struct {
							i             int
							exact, approx float32
						}
						all := make([]s, len(c.vecs))
						ap := vector.Approximator(q)
						for i, v := range c.vecs {
							all[i] = s{i, vector.Dot(q, v), ap(codes[i])}
						}
						// Ties go to the later vector (the newer chunk).
						slices.SortFunc(all, func(a, b s) int { return cmp.Or(cmp.Compare(b.exact, a.exact), b.i-a.i) })
						top := map[int]bool{}
						for _, x := range all[:min(k, len(all))] {
							top[x.i] = true
						}
						slices.SortFunc(all, func(a, b s) int { return cmp.Or(cmp.Compare(b.approx, a.approx), b.i-a.i) })
						depth := 0
						for rank, x := range all {
							if top[x.i] {
								depth = max(depth, rank+1-k)
							}
						}
						sum += depth
						worst = max(worst, depth)
						if depth > 16 {
							over16++
						}
						if depth > 32 {
							over32++
						}
						if depth > 64 {
							over64++
						}
						n++
					}
				}
				b.ReportMetric(float64(sum)/float64(n), "mean-extra")
				b.ReportMetric(float64(worst), "max-extra")
				b.ReportMetric(float64(over16)/float64(n), "over16/q")
				b.ReportMetric(float64(over32)/float64(n), "over32/q")
				b.ReportMetric(float64(over64)/float64(n), "over64/q")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// locomo returns the text of every turn of the LoCoMo conversations and
// every question.
func locomo(path string) (turns, questions []string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var convs []struct {
		QA []struct {
			Question string `json:"question"`
		} `json:"qa"`
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(data, &convs); err != nil {
		return nil, nil, err
	}
	for _, c := range convs {
		for key, raw := range c.Conversation {
			if !strings.HasPrefix(key, "session_") || strings.HasSuffix(key, "date_time") {
				continue
			}
			var ts []struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(raw, &ts) == nil {
				for _, t := range ts {
					turns = append(turns, t.Text)
				}
			}
		}
		for _, q := range c.QA {
			questions = append(questions, q.Question)
		}
	}
	return turns, questions, nil
}
