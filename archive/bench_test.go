package archive

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchWeek writes a week folder of about size bytes of chat-like
// transcripts (seeded), in files of about 8 KiB.
func benchWeek(b *testing.B, size int) string {
	b.Helper()
	r := rand.New(rand.NewPCG(42, uint64(size)))
	words := strings.Fields("the a deploy model memory kyoto temple budget invoice server latency garden coffee python golang index search vector meeting travel ticket doctor flight hotel 部署 模型 记忆 旅行 预算 会议")
	files := map[string]string{}
	for i := 0; i*8192 < size; i++ {
		var s strings.Builder
		for s.Len() < 8192 {
			fmt.Fprintf(&s, "### user · 2026-04-13 Mon 10:%02d:00 +08:00\n", r.IntN(60))
			for j := 0; j < 8+r.IntN(20); j++ {
				s.WriteString(words[r.IntN(len(words))] + " ")
			}
			s.WriteString("\n\n")
		}
		files[fmt.Sprintf("2026-04-%02d/chat_s%04d.md", 13+i%7, i)] = s.String()
	}
	dir := b.TempDir()
	writeTree(b, dir, files)
	return dir
}

var infoSink *Info

// BenchmarkWrite measures packing a week (hash, tar, zstd level 3), without
// any fsync: the CPU side of sealing.
func BenchmarkWrite(b *testing.B) {
	for _, size := range []int{100 << 10, 1 << 20, 10 << 20} {
		dir := benchWeek(b, size)
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			var err error
			for b.Loop() {
				if infoSink, err = Write(io.Discard, dir, WriteOptions{Week: "2026-W16"}); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(infoSink.Manifest.Size())
			b.ReportMetric(infoSink.Ratio(), "ratio")
		})
	}
}

// BenchmarkWalk measures reading and checking a week archive in memory.
func BenchmarkWalk(b *testing.B) {
	for _, size := range []int{100 << 10, 1 << 20, 10 << 20} {
		var buf bytes.Buffer
		info, err := Write(&buf, benchWeek(b, size), WriteOptions{Week: "2026-W16"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			b.SetBytes(info.Manifest.Size())
			for b.Loop() {
				if infoSink, err = Walk(bytes.NewReader(buf.Bytes()), 1<<30, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
