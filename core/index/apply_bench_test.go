package index

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchChunks returns n seeded chat chunks of a session, English and
// Chinese, with each chunk's neighbours' texts as its context parts, as
// core/engine gives them to [Index.ApplyParts].
func benchChunks(n int) ([]Doc, [][]string) {
	en := strings.Fields("deploy deployment budget kyoto temple server servers latency meeting meetings notes running " +
		"travel hotel coffee dinner friday weekend project projects release planning question answer cost costs")
	zh := []string{"部署", "预算", "会议", "服务器", "旅行", "咖啡", "周五", "项目", "发布", "计划", "问题", "回答"}
	r := rand.New(rand.NewPCG(7, 13))
	text := func(who string, words int) string {
		var b strings.Builder
		b.WriteString(who + ": ")
		for j := range words {
			if r.IntN(4) == 0 {
				b.WriteString(zh[r.IntN(len(zh))])
			} else {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(en[r.IntN(len(en))])
			}
		}
		return b.String()
	}
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprintf("c%06d", i), NS: "n", Session: fmt.Sprintf("s%d", i/50),
			Time: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC), Text: text("user", 8+r.IntN(20)),
			Reply: text("assistant", 20+r.IntN(60)), Roles: []string{"user", "assistant"}}
	}
	parts := make([][]string, n)
	for i := range docs {
		parts[i] = []string{}
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < n && j/50 == i/50 {
				parts[i] = append(parts[i], docs[j].Text, docs[j].Reply)
			}
		}
	}
	return docs, parts
}

// BenchmarkApplyParts indexes one batch of chunks with their neighbours'
// context into a new index, as an ingest's index step does.
func BenchmarkApplyParts(b *testing.B) {
	for _, n := range []int{500, 2000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			docs, parts := benchChunks(n)
			size := 0
			for i := range docs {
				size += DocBytes(&docs[i], parts[i])
			}
			b.SetBytes(int64(size))
			dir := b.TempDir()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				x, err := Open(filepath.Join(dir, fmt.Sprint(i)))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := x.ApplyParts(docs, parts, nil, 1); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				x.Close()
				b.StartTimer()
			}
		})
	}
}
