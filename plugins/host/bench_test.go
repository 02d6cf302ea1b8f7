package host

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/embedder/hash"
)

// sink keeps the compiler from dropping the benchmarked calls.
var sink [][]float32

// benchTexts returns n seeded chat-like texts of 20 to 60 words.
func benchTexts(n int) []string {
	words := strings.Fields("deploy model memory kyoto temple budget invoice server latency garden coffee " +
		"python golang index search vector meeting travel ticket doctor flight hotel 部署 模型 记忆 旅行 预算 会议")
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 20 + r.IntN(40) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		out[i] = b.String()
	}
	return out
}

// BenchmarkEmbed measures the cost of the process boundary: the hash
// embedder (256 dimensions) called in process, and the same embedder as a
// plugin process over go-plugin's gRPC, at batch sizes 1, 16 and 128. Run
//
//	go test -run '^$' -bench BenchmarkEmbed -benchtime 2s ./plugins/host
func BenchmarkEmbed(b *testing.B) {
	texts := benchTexts(128)
	direct, err := hash.New(256)
	if err != nil {
		b.Fatal(err)
	}
	h := newHost(b, testConfig(b, func(c *core.Config) { c.Embedding.Dim = 256 }))
	remote := h.Embedder()
	if _, err := remote.Info(b.Context()); err != nil {
		b.Fatal(err)
	}
	for _, bs := range []int{1, 16, 128} {
		for _, mode := range []struct {
			name string
			e    core.Embedder
		}{{"in-process", direct}, {"go-plugin", remote}} {
			b.Run(fmt.Sprintf("%s/batch=%d", mode.name, bs), func(b *testing.B) {
				ctx := b.Context()
				b.ResetTimer()
				for i := range b.N {
					from := (i * bs) % len(texts)
					batch := texts[from:min(from+bs, len(texts))]
					if len(batch) < bs {
						batch = texts[:bs]
					}
					vecs, err := mode.e.Embed(ctx, batch)
					if err != nil {
						b.Fatal(err)
					}
					sink = vecs
				}
				b.ReportMetric(float64(b.N*bs)/b.Elapsed().Seconds(), "texts/s")
			})
		}
	}
}
