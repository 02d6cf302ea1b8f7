package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func sampleHits() []core.Hit {
	sh := time.FixedZone("", 8*3600)
	t0 := time.Date(2026, 3, 5, 10, 0, 7, 0, sh)
	return []core.Hit{
		{
			Chunk: core.Chunk{
				Anchor: core.Anchor{ID: "a3f2c7", Prev: "k7f2a1", Next: "d2n7p3"}, Session: "xxx",
				Time: t0, File: "2026-W10/2026-03-05/chat_xxx.md", LineStart: 55, LineEnd: 61, Topic: "本地模型部署",
				Messages: []core.Message{
					{Session: "xxx", Time: t0, Role: core.RoleUser, Speaker: "Alice", Text: "我想部署本地模型", Ref: "D1:3"},
					{Session: "xxx", Time: t0.Add(time.Minute), Role: core.RoleAssistant, Text: "用 Ollama。\n\n或者 vLLM。", Ref: "D1:4"},
				},
			},
			Score: 0.7781, Scores: core.Scores{Vector: 0.8, BM25: 0.745}, Relevance: 0.62, ContextRole: core.RoleHit,
		},
		{
			Chunk: core.Chunk{
				Anchor: core.Anchor{ID: "d2n7p3", Prev: "a3f2c7"}, Session: "xxx",
				Time: t0.Add(2 * time.Minute), File: "2026-W10/2026-03-05/chat_xxx.md", LineStart: 62, LineEnd: 63,
				Messages: []core.Message{{Session: "xxx", Time: t0.Add(2 * time.Minute), Speaker: "Bob", Text: "ok"}},
			},
			ContextRole: core.RoleNeighbor,
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func TestHitsText(t *testing.T) {
	var buf bytes.Buffer
	if err := Hits(&buf, sampleHits()); err != nil {
		t.Fatal(err)
	}
	golden(t, "hits.txt", buf.Bytes())
}

func TestChunksText(t *testing.T) {
	var buf bytes.Buffer
	if err := Chunks(&buf, sampleHits()[:1]); err != nil {
		t.Fatal(err)
	}
	golden(t, "chunks.txt", buf.Bytes())
}

func TestJSON(t *testing.T) {
	var buf bytes.Buffer
	r := &core.Results{Query: "本地模型", Hits: sampleHits(), ScannedWeeks: []string{"2026-W10"}}
	if err := JSON(&buf, NewJSONResults(r)); err != nil {
		t.Fatal(err)
	}
	golden(t, "results.json", buf.Bytes())
}
