package topic

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

func TestLabel(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"english",
			"How do I deploy local models with Ollama? I want to run Ollama on my server.\n" +
				"To deploy local models with Ollama, install Ollama, then pull the models you need: ollama pull llama3. " +
				"Ollama serves local models on port 11434.",
			"ollama / models / local"},
		// "本地模型" beats its parts 本地 and 模型 (same count, longer);
		// the junk bigram 地模 never counts.
		{"chinese",
			"我想在服务器上部署本地模型，用Ollama还是vLLM？\n部署本地模型推荐用Ollama，本地模型的部署很简单。",
			"本地模型 / 部署 / ollama"},
		{"chinese phrase split by its parts",
			"模型很重要。模型的大小。本地模型好用，本地模型省钱。",
			"模型 / 本地"},
		{"acronym", "你觉得 AI 意识 是真的存在吗？\n关于AI意识，目前没有科学共识。", "ai / 意识"},
		{"plural and -ing folded", "Deploying the service. We deployed it. Services restart; the service deploys.",
			"deploying / service"},
		{"ties by first appearance", "Kyoto temples. Kyoto temples. Quiet gardens, quiet gardens.",
			"kyoto / temples / quiet"},
		{"stop words only", "Thanks, that would be really great, thanks again and thanks!", ""},
		{"nothing repeats", "Let's plan the trip to Kyoto next spring.", ""},
		{"laughter", "哈哈哈哈哈哈", ""},
		{"empty", "", ""},
		{"numbers are no words", "2024 2024 2024 v2 v2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Label(tt.text); got != tt.want {
				t.Errorf("Label = %q, want %q", got, tt.want)
			}
		})
	}
}

var base = time.Date(2026, 3, 5, 10, 0, 7, 0, time.FixedZone("", 8*3600))

func TestExtract(t *testing.T) {
	c := &core.Chunk{Messages: []core.Message{
		{Session: "s1", Time: base, Speaker: "Kafka", Role: core.RoleUser, Text: "Redis or Postgres for the queue?"},
		{Session: "s1", Time: base.Add(time.Minute), Role: core.RoleAssistant, Text: "Postgres is enough for a queue this size."},
	}}
	want := []core.Memory{{Type: "topic", Topic: "postgres / queue", Extractor: "topic"}}
	got, err := New().Extract(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
	// Cut out of its messages: the header lines, which name Kafka twice,
	// do not count.
	c.Text = transcript.MessageHeader(&c.Messages[0]) + "\n" + c.Messages[0].Text + "\n\n" +
		transcript.MessageHeader(&c.Messages[1]) + "\n" + c.Messages[1].Text + "\nKafka"
	got, err = New().Extract(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
	if got, err := New().Extract(t.Context(), &core.Chunk{Text: "nothing stands out here"}); err != nil || got != nil {
		t.Errorf("Extract = %v, %v; want none", got, err)
	}
}

func FuzzLabel(f *testing.F) {
	f.Add("本地模型 本地模型 ollama ollama")
	f.Add("哈哈哈哈 AI AI ai 的的 models model modeling")
	f.Add("\xff\xfe 模型模型模型模型 aaaa aaaa")
	f.Fuzz(func(t *testing.T, text string) {
		got := Label(text)
		if got != Label(text) {
			t.Fatalf("not deterministic for %q", text)
		}
		if got == "" {
			return
		}
		parts := strings.Split(got, Separator)
		if len(parts) > MaxKeywords {
			t.Fatalf("label %q has %d keywords", got, len(parts))
		}
		for i, p := range parts {
			if p == "" || strings.TrimSpace(p) != p {
				t.Fatalf("label %q: keyword %q", got, p)
			}
			for j := range i {
				if strings.Contains(p, parts[j]) || strings.Contains(parts[j], p) {
					t.Fatalf("label %q repeats %q in %q", got, parts[j], p)
				}
			}
		}
	})
}

func ExampleLabel() {
	fmt.Println(Label("我想在服务器上部署本地模型。部署本地模型推荐用 Ollama，本地模型的部署很简单。"))
	fmt.Println(Label("The campaign budget was 40,000 dollars. The marketing campaign budget covers ads."))
	// Output:
	// 本地模型 / 部署
	// campaign / budget
}

// benchChunks makes n seeded bilingual turn chunks of about 400 bytes.
func benchChunks(n int) []*core.Chunk {
	r := rand.New(rand.NewPCG(1, 2))
	en := strings.Fields(`we decided to use the new server for our memory engine and I prefer local models
		because the old one kept failing with an error but now it works and I am so happy about the launch`)
	zh := []string{"我们决定", "用本地模型", "部署", "服务器", "一直报错", "后来解决了", "我更喜欢", "这个方案", "上线了", "很开心"}
	out := make([]*core.Chunk, n)
	for i := range out {
		var b strings.Builder
		for b.Len() < 400 {
			if r.IntN(3) == 0 {
				for range 3 + r.IntN(5) {
					b.WriteString(zh[r.IntN(len(zh))])
				}
				b.WriteString("。")
				continue
			}
			for range 5 + r.IntN(12) {
				b.WriteString(en[r.IntN(len(en))] + " ")
			}
		}
		out[i] = &core.Chunk{Messages: []core.Message{{Role: core.RoleUser, Text: b.String()}}}
	}
	return out
}

var sink []core.Memory

// BenchmarkExtract reports chunks labelled per second.
func BenchmarkExtract(b *testing.B) {
	chunks := benchChunks(1000)
	x := New()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		mems, err := x.Extract(b.Context(), chunks[n%len(chunks)])
		if err != nil {
			b.Fatal(err)
		}
		sink = mems
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
}
