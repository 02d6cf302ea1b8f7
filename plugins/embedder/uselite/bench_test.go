package uselite

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

var benchSink [][]float32

// benchSentences makes n English sentences of 5 to 14 words, the same ones
// on every run.
func benchSentences(n int) []string {
	words := strings.Fields(`the cat sits on mat a kitten is resting rug stock markets fell sharply
		after interest rate decision hello I love eating pizza for dinner dog running in park runs
		through we met yesterday to talk about new project and budget she will call you tomorrow morning`)
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for k := range out {
		w := make([]string, 5+r.IntN(10))
		for j := range w {
			w[j] = words[r.IntN(len(words))]
		}
		out[k] = strings.Join(w, " ") + "."
	}
	return out
}

// BenchmarkEmbed reports sentences per second for batches of 1, 16 and
// 128 sentences:
//
//	go test -run '^$' -bench Embed -cpu 2 ./plugins/embedder/uselite/
func BenchmarkEmbed(b *testing.B) {
	m := testModel(b)
	for _, size := range []int{1, 16, 128} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			texts := benchSentences(size)
			b.ResetTimer()
			for b.Loop() {
				v, err := m.Embed(b.Context(), texts)
				if err != nil {
					b.Fatal(err)
				}
				benchSink = v
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "sentences/s")
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	tok, err := realTokenizer(b)
	if err != nil {
		missing(b, "HUIMEM_REQUIRE_MODELS", "USE-lite vocabulary not found: %v; run scripts/fetch-models.sh", err)
	}
	texts := benchSentences(128)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			tok.Encode(s)
		}
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkLoad reads and decodes the weights, as the first Embed of a
// one-shot command does.
func BenchmarkLoad(b *testing.B) {
	testModel(b) // skips without the weights
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(DefaultDir()); err != nil {
			b.Fatal(err)
		}
	}
}
