package chunkers

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

func TestWindow(t *testing.T) {
	a, b := strings.Repeat("a", 20), strings.Repeat("b", 20)
	c := func(i int) string { return strings.Repeat(string(rune('0'+i)), 20) }
	t30 := func(s string) string { return s + strings.Repeat(".", 30-len(s)) }
	tests := []struct {
		name string
		w    Window
		msgs []core.Message
		want []pos
	}{
		{"one message", Window{}, texts("hello"), []pos{{0, 1, 9, 10, ""}}},
		{"two messages in one window", Window{}, texts("hi", "hello"), []pos{{0, 2, 9, 13, ""}}},
		// Lines 9 (header, 41 runes), 10-12 a, 13 blank, 14-16 b: the
		// chunk ends at the paragraph break, not at the last line that fits.
		{"paragraph break", Window{Size: 120, Overlap: -1},
			texts(a + "\n" + a + "\n" + a + "\n\n" + b + "\n" + b + "\n" + b),
			[]pos{{0, 1, 9, 12, ""}, {0, 1, 14, 16, ""}}},
		// No blank line: the chunk ends at the last line that fits, and the
		// next starts with the lines that fit in 45 runes (11 and 12).
		{"line break with overlap", Window{Size: 120, Overlap: 45},
			texts(c(1) + "\n" + c(2) + "\n" + c(3) + "\n" + c(4) + "\n" + c(5) + "\n" + c(6)),
			[]pos{{0, 1, 9, 12, ""}, {0, 1, 11, 15, ""}}},
		// Line 11 is longer than the window: it is a chunk of its own, and
		// the short line before it is not repeated as overlap.
		{"long line", Window{Size: 50},
			texts("short\n" + strings.Repeat("x", 120) + "\nend"),
			[]pos{{0, 1, 9, 10, ""}, {0, 1, 11, 11, ""}, {0, 1, 12, 12, ""}}},
		// Lines 9-10, 12-13, 15-16: the blank line between messages is a
		// paragraph break.
		{"message break", Window{Size: 200, Overlap: -1},
			texts(t30("m0"), t30("m1"), t30("m2")),
			[]pos{{0, 2, 9, 13, ""}, {2, 3, 15, 16, ""}}},
		// The overlap (lines 11-13) reaches back into message 1, so the
		// second chunk starts on message 1's header.
		{"overlap across messages", Window{Size: 250, Overlap: 100},
			texts(t30("m0"), t30("m1"), t30("m2a")+"\n"+t30("m2b")),
			[]pos{{0, 2, 9, 13, ""}, {1, 3, 12, 17, ""}}},
		// A window too small for two messages never ends on a header.
		{"no orphan header", Window{Size: 100, Overlap: 50},
			texts(t30("m0"), t30("m1"), t30("m2")),
			[]pos{{0, 1, 9, 10, ""}, {1, 2, 12, 13, ""}, {2, 3, 15, 16, ""}}},
		// Blank lines at the start and end of a message never start or end
		// a chunk.
		{"blank edges", Window{Size: 60, Overlap: -1},
			texts("\n\n"+strings.Repeat("y", 50)+"\n\n", "z"),
			[]pos{{0, 1, 9, 12, ""}, {1, 2, 16, 17, ""}}},
		// A header is never a chunk on its own: it joins the long line
		// after it.
		{"header and long line", Window{Size: 60},
			texts(strings.Repeat("y", 100)+"\nz", "short"),
			[]pos{{0, 1, 9, 10, ""}, {0, 2, 11, 14, ""}}},
		{"chinese", Window{Size: 60, Overlap: 10},
			texts("我们决定用本地模型部署。\n" + strings.Repeat("中", 30) + "\n" + strings.Repeat("文", 30)),
			[]pos{{0, 1, 9, 10, ""}, {0, 1, 11, 11, ""}, {0, 1, 12, 12, ""}}},
		{"no messages", Window{}, nil, []pos{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sms := layout(tt.msgs)
			spans, err := tt.w.Chunk(t.Context(), sms)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, positions(spans)); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
			checkWindow(t, tt.w, spans, sms, renderLines(t, tt.msgs))
		})
	}
}

// checkWindow checks the rules every Window output follows: checkRules,
// a Text on every span, at most Size runes unless one line, and every
// line that is not blank in some span.
func checkWindow(t testing.TB, w Window, spans []core.Span, msgs []core.SessionMessage, tr []string) {
	t.Helper()
	checkRules(t, spans, msgs, tr)
	size, _, err := w.params()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) == 0 {
		return
	}
	in := make([]int, len(tr)+2) // in[n] > 0: line n is in a span
	for i, sp := range spans {
		if sp.Text == "" {
			t.Fatalf("span %d has no text", i)
		}
		// Only a single line, after its message's header or not, may
		// be longer than the window.
		if n := utf8.RuneCountInString(sp.Text); n > size {
			body := tr[sp.LineStart-1 : sp.LineEnd]
			if o := owner(msgs, sp.LineStart); o >= 0 && msgs[o].HeaderLine == sp.LineStart {
				body = body[1:]
			}
			nonBlank := 0
			for _, l := range body {
				if !isBlank(l) {
					nonBlank++
				}
			}
			if nonBlank > 1 {
				t.Fatalf("span %d %v has %d runes, more than %d", i, positions(spans[i:i+1]), n, size)
			}
		}
		in[sp.LineStart]++
		in[sp.LineEnd+1]--
	}
	depth := 0
	for n := 1; n <= msgs[len(msgs)-1].TextEnd; n++ {
		depth += in[n]
		if depth == 0 && n >= msgs[0].HeaderLine && !isBlank(tr[n-1]) {
			t.Fatalf("line %d %.80q is in no span", n, tr[n-1])
		}
	}
}

func TestWindowErrors(t *testing.T) {
	sms := layout(texts("one", "two\nlines"))
	shifted := append([]core.SessionMessage(nil), sms...)
	shifted[1].HeaderLine++
	short := append([]core.SessionMessage(nil), sms...)
	short[1].TextEnd--
	long := append([]core.SessionMessage(nil), sms...)
	long[1].TextEnd++
	moved := append([]core.SessionMessage(nil), sms...)
	moved[1].TextStart, moved[1].TextEnd = 14, 14
	tests := []struct {
		name string
		w    Window
		msgs []core.SessionMessage
		want string
	}{
		{"negative size", Window{Size: -1}, sms, "chunkers: window size -1 is negative"},
		{"overlap too big", Window{Size: 10, Overlap: 10}, sms, "chunkers: window overlap 10 is not less than the window size 10"},
		{"moved header", Window{}, shifted, "chunkers: message 1 has header line 13, want 12 (one blank line after the previous message)"},
		{"moved text", Window{}, moved, "chunkers: message 1 has header line 12 and text lines 14-14, which do not follow the transcript layout"},
		{"text longer than its lines", Window{}, short, "chunkers: message 1 has 2 text lines, but the transcript gives it lines 13-13"},
		{"text shorter than its lines", Window{}, long, "chunkers: message 1 has 2 text lines, but the transcript gives it lines 13-15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.w.Chunk(t.Context(), tt.msgs)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (Window{}).Chunk(ctx, sms); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// TestWindowLarge runs the window over a few megabytes of mixed text,
// with very long lines and long runs of short lines, and checks every
// span. A quadratic step would make it take minutes.
func TestWindowLarge(t *testing.T) {
	msgs := genSession(1, 3<<20)
	sms := layout(msgs)
	tr := renderLines(t, msgs)
	for _, w := range []Window{{}, {Size: 200, Overlap: 150}, {Size: 3000, Overlap: -1}} {
		spans, err := w.Chunk(t.Context(), sms)
		if err != nil {
			t.Fatal(err)
		}
		checkWindow(t, w, spans, sms, tr)
	}
}

// genSession makes a seeded session of about n bytes of text: English and
// Chinese paragraphs, blank lines, runs of short lines, and now and then a
// line of up to 21,000 runes.
func genSession(seed uint64, n int) []core.Message {
	r := rand.New(rand.NewPCG(seed, seed))
	words := strings.Fields(`the model memory local deploy server ollama vector chunk session line window
		paragraph we decided to use postgres because it works well for our team and the launch went fine`)
	han := []rune("我们决定用本地模型部署服务器向量记忆会话窗口段落问题解决了上线完成开心")
	var msgs []string
	var b strings.Builder
	total := 0
	for total < n {
		b.Reset()
		switch k := r.IntN(100); {
		case k < 1: // one very long line
			for range 1000 + r.IntN(20000) {
				b.WriteRune(han[r.IntN(len(han))])
			}
		case k < 3: // many short lines
			for i := range 200 + r.IntN(2000) {
				if i > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
		default: // paragraphs
			for p := range 1 + r.IntN(6) {
				if p > 0 {
					b.WriteString("\n\n")
				}
				for l := range 1 + r.IntN(5) {
					if l > 0 {
						b.WriteByte('\n')
					}
					if r.IntN(5) == 0 {
						for range 10 + r.IntN(80) {
							b.WriteRune(han[r.IntN(len(han))])
						}
						continue
					}
					for w := range 3 + r.IntN(25) {
						if w > 0 {
							b.WriteByte(' ')
						}
						b.WriteString(words[r.IntN(len(words))])
					}
				}
			}
		}
		msgs = append(msgs, b.String())
		total += b.Len()
	}
	return texts(msgs...)
}

func FuzzWindow(f *testing.F) {
	f.Add("hello\x1fworld", 800, 100)
	f.Add("a\n\nb\nc\x1f\x1f\n", 3, 1)
	f.Add(strings.Repeat("长", 100)+"\n\n\nx\x1fy\r\nz", 20, 19)
	f.Add("\n\n\n\x1f \x1f\t", 1, -1)
	f.Fuzz(func(t *testing.T, s string, size, overlap int) {
		parts := strings.Split(s, "\x1f")
		if len(parts) > 50 {
			parts = parts[:50]
		}
		w := Window{Size: 1 + int(uint(size)%3000)}
		w.Overlap = int(uint(overlap)%uint(w.Size+1)) - 1
		msgs := texts(parts...)
		sms := layout(msgs)
		spans, err := w.Chunk(t.Context(), sms)
		if err != nil {
			t.Fatal(err)
		}
		checkWindow(t, w, spans, sms, renderLines(t, msgs))
		again, _ := w.Chunk(t.Context(), sms)
		if diff := cmp.Diff(spans, again); diff != "" {
			t.Fatalf("not deterministic (-first +second):\n%s", diff)
		}
	})
}

var sink []core.Span

// BenchmarkWindow chunks generated sessions of 1 MB, and with
// HUIMEM_BENCH_LARGE=1 also of 30 MB and 300 MB. The MB/s column is text
// chunked per second.
func BenchmarkWindow(b *testing.B) {
	for _, bc := range []struct {
		name  string
		bytes int
		large bool
	}{{"1MB", 1 << 20, false}, {"30MB", 30 << 20, true}, {"300MB", 300 << 20, true}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.large && os.Getenv("HUIMEM_BENCH_LARGE") == "" {
				b.Skip("set HUIMEM_BENCH_LARGE=1 to run")
			}
			msgs := genSession(2, bc.bytes)
			sms := layout(msgs)
			var n int64
			for i := range msgs {
				n += int64(len(msgs[i].Text))
			}
			b.SetBytes(n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				spans, err := Window{}.Chunk(b.Context(), sms)
				if err != nil {
					b.Fatal(err)
				}
				sink = spans
			}
			b.ReportMetric(float64(len(sink)), "chunks")
		})
	}
}

// ExampleWindow cuts a short session with 120-rune windows: the first
// chunk ends at a paragraph break, and the second starts with the last
// line of the first (the overlap) and runs into the next message.
func ExampleWindow() {
	msgs := texts("We should deploy the model locally.\n\nOllama is the easiest way.", "Agreed: Ollama it is.")
	spans, _ := Window{Size: 120, Overlap: 40}.Chunk(context.Background(), layout(msgs))
	for _, sp := range spans {
		fmt.Printf("messages %d-%d, lines %d-%d:\n", sp.From, sp.To-1, sp.LineStart, sp.LineEnd)
		for i, l := range strings.Split(sp.Text, "\n") {
			fmt.Println(strings.TrimSpace(fmt.Sprintf("%4d | %s", sp.LineStart+i, l)))
		}
	}
	// Output:
	// messages 0-0, lines 9-12:
	// 9 | ### user · 2026-03-05 Thu 10:00:07 +08:00
	// 10 | We should deploy the model locally.
	// 11 |
	// 12 | Ollama is the easiest way.
	// messages 0-1, lines 12-15:
	// 12 | Ollama is the easiest way.
	// 13 |
	// 14 | ### assistant · 2026-03-05 Thu 10:01:07 +08:00
	// 15 | Agreed: Ollama it is.
}
