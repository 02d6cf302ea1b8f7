package chunkers

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

func TestMarkdown(t *testing.T) {
	doc := strings.Join([]string{
		"intro line",    // 10
		"",              // 11
		"# Install",     // 12
		"general",       // 13
		"## Linux",      // 14
		"apt install",   // 15
		"",              // 16
		"## macOS ##",   // 17
		"brew install",  // 18
		"# Usage",       // 19
		"```sh",         // 20
		"# not a head",  // 21
		"```",           // 22
		"    # code",    // 23
		"#hashtag",      // 24
		"~~~~",          // 25
		"## in tilde",   // 26
		"~~~ not close", // 27
		"~~~~~",         // 28
		"### Deep",      // 29
		"x",             // 30
	}, "\n")
	tests := []struct {
		name string
		msgs []core.Message
		want []pos
	}{
		{"no headings", texts("just text\n\nmore"), []pos{{0, 1, 9, 12, ""}}},
		{"sections", texts(doc), []pos{
			{0, 1, 9, 10, ""},
			{0, 1, 12, 13, "Install"},
			{0, 1, 14, 15, "Install > Linux"},
			{0, 1, 17, 18, "Install > macOS"},
			{0, 1, 19, 28, "Usage"},
			{0, 1, 29, 30, "Usage > Deep"},
		}},
		// Without text before the first heading, the header line joins the
		// first section.
		{"no preamble", texts("# Title\nbody\n## Sub\nx"), []pos{{0, 1, 9, 11, "Title"}, {0, 1, 12, 13, "Title > Sub"}}},
		{"blank preamble", texts("\n  \n# Title\nbody"), []pos{{0, 1, 9, 13, "Title"}}},
		// A deeper heading first, then a shallower one that replaces it.
		{"levels", texts("### Deep\n# Top\n#### Under\n## Mid\n  ### Three #"),
			[]pos{{0, 1, 9, 10, "Deep"}, {0, 1, 11, 11, "Top"}, {0, 1, 12, 12, "Top > Under"}, {0, 1, 13, 13, "Top > Mid"}, {0, 1, 14, 14, "Top > Mid > Three"}}},
		{"empty title", texts("#\ntext\n## B\n###### #"),
			[]pos{{0, 1, 9, 11, ""}, {0, 1, 12, 12, "B"}, {0, 1, 13, 13, "B"}}},
		{"crlf", texts("# Win\r\nbody\r\n## Two\r\n"), []pos{{0, 1, 9, 11, "Win"}, {0, 1, 12, 12, "Win > Two"}}},
		{"unclosed fence", texts("# A\n```\n# B"), []pos{{0, 1, 9, 12, "A"}}},
		// Each message starts its own path; a message without headings is
		// one chunk.
		{"messages", texts("# 安装\n步骤\n## Linux\napt", "好的，明白了。", "前言\n# 第二"),
			[]pos{{0, 1, 9, 11, "安装"}, {0, 1, 12, 13, "安装 > Linux"}, {1, 2, 15, 16, ""}, {2, 3, 18, 19, ""}, {2, 3, 20, 20, "第二"}}},
		{"no messages", nil, []pos{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sms := layout(tt.msgs)
			spans, err := Markdown{}.Chunk(t.Context(), sms)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, positions(spans)); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
			checkRules(t, spans, sms, renderLines(t, tt.msgs))
		})
	}
}

func TestMarkdownText(t *testing.T) {
	msgs := texts("# Title\nbody\n\n## Sub\nx\n")
	spans, err := Markdown{}.Chunk(t.Context(), layout(msgs))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Span{
		{From: 0, To: 1, LineStart: 9, LineEnd: 11, Section: "Title",
			Text: "### user · 2026-03-05 Thu 10:00:07 +08:00\n# Title\nbody"},
		{From: 0, To: 1, LineStart: 13, LineEnd: 14, Section: "Title > Sub", Text: "## Sub\nx"},
	}
	if diff := cmp.Diff(want, spans); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

func TestMarkdownErrors(t *testing.T) {
	sms := layout(texts("# one", "two\nlines"))
	short := append([]core.SessionMessage(nil), sms...)
	short[1].TextEnd--
	if _, err := (Markdown{}).Chunk(t.Context(), short); err == nil ||
		err.Error() != "chunkers: message 1 has 2 text lines, but the transcript gives it lines 13-13" {
		t.Errorf("err = %v", err)
	}
	shifted := append([]core.SessionMessage(nil), sms...)
	shifted[1].HeaderLine, shifted[1].TextStart, shifted[1].TextEnd = 13, 14, 15
	if _, err := (Markdown{}).Chunk(t.Context(), shifted); err == nil ||
		err.Error() != "chunkers: message 1 has header line 13, want 12 (one blank line after the previous message)" {
		t.Errorf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (Markdown{}).Chunk(ctx, sms); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestMarkdownLarge(t *testing.T) {
	msgs := genSession(3, 1<<20)
	for i := range msgs {
		if i%3 == 0 {
			msgs[i].Text = "# Part " + msgs[i].Text[:min(10, len(msgs[i].Text))] + "\n" + msgs[i].Text + "\n## Sub\nend"
		}
	}
	sms := layout(msgs)
	spans, err := Markdown{}.Chunk(t.Context(), sms)
	if err != nil {
		t.Fatal(err)
	}
	checkRules(t, spans, sms, renderLines(t, msgs))
}

func FuzzMarkdown(f *testing.F) {
	f.Add("# A\nb\n## C\x1fplain\x1f```\n# x\n```\n# y")
	f.Add("\n\n#\n\x1f  ## \r\n###### #\n~~~\n")
	f.Add("前言\n# 标题\n内容\n\n\n## 子 ##")
	f.Fuzz(func(t *testing.T, s string) {
		parts := strings.Split(s, "\x1f")
		if len(parts) > 50 {
			parts = parts[:50]
		}
		msgs := texts(parts...)
		sms := layout(msgs)
		spans, err := Markdown{}.Chunk(t.Context(), sms)
		if err != nil {
			t.Fatal(err)
		}
		tr := renderLines(t, msgs)
		checkRules(t, spans, sms, tr)
		for i, sp := range spans {
			// Every chunk of a message after its first starts on a
			// heading, and no chunk ends on a blank line.
			if sp.LineStart != sms[sp.From].HeaderLine && !strings.HasPrefix(strings.TrimLeft(tr[sp.LineStart-1], " "), "#") {
				t.Fatalf("span %d starts on line %d %q, not a heading", i, sp.LineStart, tr[sp.LineStart-1])
			}
			if sp.Text != "" && isBlank(tr[sp.LineEnd-1]) {
				t.Fatalf("span %d ends on blank line %d", i, sp.LineEnd)
			}
		}
		again, _ := Markdown{}.Chunk(t.Context(), sms)
		if diff := cmp.Diff(spans, again); diff != "" {
			t.Fatalf("not deterministic (-first +second):\n%s", diff)
		}
	})
}

// BenchmarkMarkdown chunks a generated 1 MB session (30 MB with
// HUIMEM_BENCH_LARGE=1) where every third message has headings.
func BenchmarkMarkdown(b *testing.B) {
	for _, bc := range []struct {
		name  string
		bytes int
		large bool
	}{{"1MB", 1 << 20, false}, {"30MB", 30 << 20, true}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.large && os.Getenv("HUIMEM_BENCH_LARGE") == "" {
				b.Skip("set HUIMEM_BENCH_LARGE=1 to run")
			}
			msgs := genSession(4, bc.bytes)
			var n int64
			for i := range msgs {
				if i%3 == 0 {
					msgs[i].Text = "# Part\n" + msgs[i].Text + "\n## Sub\nend"
				}
				n += int64(len(msgs[i].Text))
			}
			sms := layout(msgs)
			b.SetBytes(n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				spans, err := Markdown{}.Chunk(b.Context(), sms)
				if err != nil {
					b.Fatal(err)
				}
				sink = spans
			}
			b.ReportMetric(float64(len(sink)), "chunks")
		})
	}
}
