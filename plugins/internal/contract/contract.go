package contract

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/huimemory/huimemory/core"
)

// Texts is the sample the embedder contract embeds: English, Chinese,
// mixed, punctuation only, a long text and an empty one.
var Texts = []string{
	"How did we fix the CUDA out of memory error?",
	"我们决定下周去京都旅行，预算两万元。",
	"Alice prefers 抹茶 over coffee in Kyoto.",
	"?!…",
	strings.Repeat("the deployment pipeline failed again after the index rebuild; ", 60),
	"",
}

// Embedder checks e against the embedder contract.
func Embedder(t *testing.T, e core.Embedder) {
	t.Helper()
	ctx := t.Context()
	info, err := e.Info(ctx)
	if err != nil {
		t.Fatalf("Info: %v", err)
	}
	if info.Name == "" || info.Model == "" || info.Dim <= 0 {
		t.Fatalf("Info = %+v, want a name, a model and a positive dimension", info)
	}
	vecs, err := e.Embed(ctx, Texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vecs) != len(Texts) {
		t.Fatalf("Embed returned %d vectors for %d texts", len(vecs), len(Texts))
	}
	for i, v := range vecs {
		if len(v) != info.Dim {
			t.Errorf("vector %d has dimension %d, want %d", i, len(v), info.Dim)
		}
		for j, f := range v {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				t.Fatalf("vector %d has %v at %d", i, f, j)
			}
		}
	}
	if cmp.Equal(vecs[0], vecs[1]) {
		t.Errorf("two different texts got the same vector")
	}
	t.Run("deterministic and batch-independent", func(t *testing.T) {
		// The same text gives the same vector, alone or in another batch.
		again, err := e.Embed(ctx, []string{Texts[2], Texts[0]})
		if err != nil {
			t.Fatalf("Embed: %v", err)
		}
		approx := cmpopts.EquateApprox(0, 1e-5)
		if d := cmp.Diff(vecs[2], again[0], approx); d != "" {
			t.Errorf("text 2 embedded differently in a second batch (-first +second):\n%s", d)
		}
		if d := cmp.Diff(vecs[0], again[1], approx); d != "" {
			t.Errorf("text 0 embedded differently in a second batch (-first +second):\n%s", d)
		}
	})
	t.Run("empty batch", func(t *testing.T) {
		got, err := e.Embed(ctx, nil)
		if err != nil {
			t.Fatalf("Embed(nil): %v", err)
		}
		if len(got) != 0 {
			t.Errorf("Embed(nil) returned %d vectors", len(got))
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := e.Embed(cctx, Texts); err == nil {
			t.Errorf("Embed with a cancelled context succeeded")
		}
	})
}

var cst = time.FixedZone("CST", 8*3600)

// Session returns the sample session the chunker contract cuts: user and
// assistant turns, a system message, multi-line texts, and a markdown
// section, laid out as a transcript would hold them.
func Session() []core.SessionMessage {
	texts := []struct {
		role core.Role
		text string
	}{
		{core.RoleSystem, "You are a helpful assistant."},
		{core.RoleUser, "# Kyoto trip\n\nWe fly on **May 3**.\nBudget: 20,000 yuan."},
		{core.RoleAssistant, "Noted. I suggest:\n\n## Day 1\n\nFushimi Inari early in the morning.\n\n## Day 2\n\nArashiyama bamboo grove."},
		{core.RoleUser, "How did we fix the CUDA out of memory error?"},
		{core.RoleAssistant, strings.Repeat("We lowered the batch size and enabled gradient checkpointing. ", 30)},
		{core.RoleUser, "我们决定下周去京都旅行。"},
		{core.RoleAssistant, "好的，我记下了。\n预算两万元。"},
	}
	out := make([]core.SessionMessage, len(texts))
	line := 1
	at := time.Date(2026, 3, 5, 21, 0, 0, 0, cst)
	for i, m := range texts {
		n := strings.Count(m.text, "\n") + 1
		out[i] = core.SessionMessage{
			Message: core.Message{Session: "contract", Time: at.Add(time.Duration(i) * time.Minute),
				Role: m.role, Text: m.text},
			HeaderLine: line, TextStart: line + 1, TextEnd: line + n,
		}
		line += n + 2 // header, text, blank line
	}
	return out
}

// Chunker checks c against the chunker contract.
func Chunker(t *testing.T, c core.Chunker) {
	t.Helper()
	ctx := t.Context()
	msgs := Session()
	spans, err := c.Chunk(ctx, msgs)
	if err != nil {
		t.Fatalf("Chunk: %v", err)
	}
	if err := core.CheckSpans(spans, msgs); err != nil {
		t.Fatalf("bad spans: %v\n%+v", err, spans)
	}
	again, err := c.Chunk(ctx, msgs)
	if err != nil {
		t.Fatalf("Chunk again: %v", err)
	}
	if d := cmp.Diff(spans, again); d != "" {
		t.Errorf("the same messages gave other spans (-first +second):\n%s", d)
	}
	t.Run("one message", func(t *testing.T) {
		one := []core.SessionMessage{msgs[3]}
		one[0].HeaderLine, one[0].TextStart, one[0].TextEnd = 1, 2, 2
		spans, err := c.Chunk(ctx, one)
		if err != nil {
			t.Fatalf("Chunk: %v", err)
		}
		if err := core.CheckSpans(spans, one); err != nil {
			t.Fatalf("bad spans: %v\n%+v", err, spans)
		}
	})
}

// Chunks returns sample chunks for the extractor contract, one per
// exchange of [Session].
func Chunks() []*core.Chunk {
	msgs := Session()
	var out []*core.Chunk
	for _, r := range [][2]int{{1, 3}, {3, 5}, {5, 7}} {
		c := &core.Chunk{Namespace: "", Session: "contract", File: "2026-W10/2026-03-05/chat_contract.md",
			Time: msgs[r[0]].Time, End: msgs[r[1]-1].Time,
			LineStart: msgs[r[0]].HeaderLine, LineEnd: msgs[r[1]-1].TextEnd}
		for i := r[0]; i < r[1]; i++ {
			c.Messages = append(c.Messages, msgs[i].Message)
		}
		out = append(out, c)
	}
	return out
}

// Extractor checks x against the extractor contract.
func Extractor(t *testing.T, x core.Extractor) {
	t.Helper()
	ctx := t.Context()
	for i, c := range Chunks() {
		mems, err := x.Extract(ctx, c)
		if err != nil {
			t.Fatalf("Extract chunk %d: %v", i, err)
		}
		for j, m := range mems {
			if m.Type == "" {
				t.Errorf("chunk %d: memory %d has no type: %+v", i, j, m)
			}
		}
		again, err := x.Extract(ctx, c)
		if err != nil {
			t.Fatalf("Extract chunk %d again: %v", i, err)
		}
		if d := cmp.Diff(mems, again, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("chunk %d: the same chunk gave other memories (-first +second):\n%s", i, d)
		}
	}
}
