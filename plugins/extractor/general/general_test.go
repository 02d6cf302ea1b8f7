package general

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

var base = time.Date(2026, 3, 5, 10, 0, 7, 0, time.FixedZone("", 8*3600))

// chunk makes a turn chunk of messages with the given texts.
func chunk(texts ...string) *core.Chunk {
	c := &core.Chunk{Session: "s1"}
	for i, t := range texts {
		role := core.RoleUser
		if i%2 == 1 {
			role = core.RoleAssistant
		}
		c.Messages = append(c.Messages, core.Message{Session: "s1", Time: base.Add(time.Duration(i) * time.Minute), Role: role, Text: t})
	}
	return c
}

func mem(typ string, entities []string, facts ...string) core.Memory {
	return core.Memory{Type: typ, Entities: entities, Facts: facts, Extractor: Name}
}

func TestExtract(t *testing.T) {
	long := "The parser has a bug " + strings.Repeat("that shows up again and again ", 12) + "today."
	tests := []struct {
		name string
		c    *core.Chunk
		want []core.Memory
	}{
		{"decision en", chunk("After a long talk we decided to use PostgreSQL for the Kyoto project."),
			[]core.Memory{mem(Decision, []string{"PostgreSQL", "Kyoto"}, "After a long talk we decided to use PostgreSQL for the Kyoto project.")}},
		{"decision en let's go with", chunk("Which queue should we use?", "OK, let’s go with NATS then."),
			[]core.Memory{mem(Decision, []string{"NATS"}, "OK, let’s go with NATS then.")}},
		{"decision zh", chunk("我们决定就用ollama部署本地模型。"),
			[]core.Memory{mem(Decision, []string{"ollama"}, "我们决定就用ollama部署本地模型。")}},
		{"preference en", chunk("I prefer quiet temples over crowded places."),
			[]core.Memory{mem(Preference, nil, "I prefer quiet temples over crowded places.")}},
		{"preference zh", chunk("比起太空歌剧，我更喜欢《三体》这种硬科幻。"),
			[]core.Memory{mem(Preference, []string{"三体"}, "比起太空歌剧，我更喜欢《三体》这种硬科幻。")}},
		{"dislike zh", chunk("我不喜欢早上开会"), []core.Memory{mem(Preference, nil, "我不喜欢早上开会")}},
		{"milestone en", chunk("We finally shipped the new Android app!"),
			[]core.Memory{mem(Milestone, []string{"Android"}, "We finally shipped the new Android app!")}},
		{"milestone zh", chunk("新版本今天上线了，大家辛苦了。"),
			[]core.Memory{mem(Milestone, nil, "新版本今天上线了，大家辛苦了。")}},
		{"got the job", chunk("Guess what, I got the job at Stripe"),
			[]core.Memory{mem(Milestone, []string{"Stripe"}, "Guess what, I got the job at Stripe")}},
		{"problem en", chunk("The build fails with a linker error on Ubuntu."),
			[]core.Memory{mem(Problem, []string{"Ubuntu"}, "The build fails with a linker error on Ubuntu.")}},
		{"problem zh", chunk("部署的时候一直报错，连不上数据库"),
			[]core.Memory{mem(Problem, nil, "部署的时候一直报错，连不上数据库")}},
		{"problem then fix en", chunk("My Docker container keeps crashing with an out of memory error.", "Raise the memory limit.", "Done, it works now!"),
			[]core.Memory{mem(Milestone, []string{"Docker"}, "My Docker container keeps crashing with an out of memory error.", "Done, it works now!")}},
		{"problem then fix zh", chunk("服务器又报错了", "重启之后问题解决了。"),
			[]core.Memory{mem(Milestone, nil, "服务器又报错了", "重启之后问题解决了。")}},
		{"fixed bug in one sentence", chunk("Fixed the login bug in the `auth` module."),
			[]core.Memory{mem(Milestone, []string{"auth"}, "Fixed the login bug in the `auth` module.")}},
		// The fix comes before the new problem, which stays a problem.
		{"fix then new problem", chunk("I fixed the login page. Now the API returns a 500 error."),
			[]core.Memory{mem(Milestone, nil, "I fixed the login page."), mem(Problem, []string{"API"}, "Now the API returns a 500 error.")}},
		{"not fixed", chunk("The upload still fails and it isn't fixed yet."),
			[]core.Memory{mem(Problem, nil, "The upload still fails and it isn't fixed yet.")}},
		{"emotional en", chunk("I'm so happy the trip is booked!"),
			[]core.Memory{mem(Emotional, nil, "I'm so happy the trip is booked!")}},
		{"emotional zh", chunk("最近工作压力大，有点焦虑。"),
			[]core.Memory{mem(Emotional, nil, "最近工作压力大，有点焦虑。")}},
		{"negations", chunk("We haven't finished the migration yet, but there are no errors so far.", "还没决定用哪个。"), nil},
		{"word boundaries", chunk("The terrorist plot in the debugger movie was sadly predictable."), nil},
		{"several types", chunk("I like Go. We decided to rewrite the parser in Go.", "It crashed twice yesterday and I'm frustrated."),
			[]core.Memory{
				mem(Decision, []string{"Go"}, "We decided to rewrite the parser in Go."),
				mem(Preference, []string{"Go"}, "I like Go."),
				mem(Problem, nil, "It crashed twice yesterday and I'm frustrated."),
				mem(Emotional, nil, "It crashed twice yesterday and I'm frustrated."),
			}},
		{"nothing", chunk("The weather is nice today.", "Indeed."), nil},
		{"org name", chunk("我拿到了offer，下周去字节跳动公司报到！"),
			[]core.Memory{mem(Milestone, []string{"offer", "字节跳动公司"}, "我拿到了offer，下周去字节跳动公司报到！")}},
		{"new york", chunk("Tomorrow we fly to New York and I'm excited."),
			[]core.Memory{mem(Emotional, []string{"New York"}, "Tomorrow we fly to New York and I'm excited.")}},
		{"at most three facts", chunk("Error one.", "Error two.", "Error three.", "Error four."),
			[]core.Memory{mem(Problem, nil, "Error one.", "Error two.", "Error three.")}},
		{"long fact", chunk(long),
			[]core.Memory{mem(Problem, nil, strings.TrimSpace(string([]rune(long)[:MaxFactRunes]))+"…")}},
		{"lists", chunk("Plan:\n1. We decided to use Redis.\n- I hate YAML"),
			[]core.Memory{mem(Decision, []string{"Redis"}, "We decided to use Redis."), mem(Preference, []string{"YAML"}, "I hate YAML")}},
		{"empty", &core.Chunk{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New().Extract(t.Context(), tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("memories (-want +got):\n%s", diff)
			}
		})
	}
}

// A chunk cut out of its messages is read from its Text, without the
// transcript's header lines.
func TestExtractText(t *testing.T) {
	c := chunk("I prefer tea.", "Noted, Alice.")
	c.Messages[0].Speaker = "Alice"
	c.Text = transcript.MessageHeader(&c.Messages[0]) + "\nI prefer tea.\n\n" + transcript.MessageHeader(&c.Messages[1]) + "\nNoted, Alice."
	got, err := New().Extract(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Memory{mem(Preference, nil, "I prefer tea.")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("We decided to use Go. 我们决定了。")
	f.Add("“未闭合 \"quoted\" 《书》 error fixed 解决了 没有报错")
	f.Add("\xff\xfe 公司公司 大学 ``` I'm so happy!!!")
	f.Fuzz(func(t *testing.T, text string) {
		c := chunk(text)
		got, err := New().Extract(t.Context(), c)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, m := range got {
			if !slices.Contains(Types, m.Type) || seen[m.Type] || m.Extractor != Name {
				t.Fatalf("bad memory %+v", m)
			}
			seen[m.Type] = true
			if len(m.Facts) == 0 || len(m.Facts) > MaxFacts || len(m.Entities) > MaxEntities {
				t.Fatalf("memory %+v has %d facts and %d entities", m, len(m.Facts), len(m.Entities))
			}
			for _, f := range m.Facts {
				if f == "" || utf8.RuneCountInString(f) > MaxFactRunes+1 {
					t.Fatalf("fact %q", f)
				}
			}
			for _, e := range m.Entities {
				if strings.TrimSpace(e) != e || e == "" {
					t.Fatalf("entity %q", e)
				}
			}
		}
		again, _ := New().Extract(t.Context(), c)
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("not deterministic (-first +second):\n%s", diff)
		}
	})
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
			b.WriteString("Kyoto. ")
		}
		out[i] = chunk(b.String(), fmt.Sprint("reply ", i))
	}
	return out
}

var sink []core.Memory

// BenchmarkExtract reports chunks extracted per second.
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

func ExampleExtractor_Extract() {
	c := &core.Chunk{Messages: []core.Message{
		{Role: core.RoleUser, Text: "The deploy to Fly.io failed again."},
		{Role: core.RoleAssistant, Text: "Fixed: the port was wrong, it works now. 我更喜欢这种配置。"},
	}}
	mems, _ := New().Extract(context.Background(), c)
	for _, m := range mems {
		fmt.Printf("%s %q %q\n", m.Type, m.Entities, m.Facts)
	}
	// Output:
	// preference [] ["我更喜欢这种配置。"]
	// milestone ["Fly.io"] ["The deploy to Fly.io failed again." "Fixed: the port was wrong, it works now."]
}
