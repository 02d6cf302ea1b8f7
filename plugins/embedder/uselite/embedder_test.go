package uselite

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

func TestEmbedMatchesReference(t *testing.T) {
	m, ref := testModel(t), loadReference(t)
	got, err := m.Embed(t.Context(), ref.Sentences)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ref.Sentences) {
		t.Fatalf("got %d vectors for %d sentences", len(got), len(ref.Sentences))
	}
	var maxErr float64
	for i, want := range ref.Emb {
		if len(got[i]) != len(want) {
			t.Fatalf("sentence %d: got %d values, want %d", i, len(got[i]), len(want))
		}
		for j := range want {
			maxErr = max(maxErr, math.Abs(float64(got[i][j])-want[j]))
		}
		if n := norm2(got[i]); math.Abs(n-1) > 1e-5 {
			t.Errorf("sentence %d: norm %v, want 1", i, n)
		}
	}
	t.Logf("max abs error against the JavaScript runtime: %.3g over %d×%d values", maxErr, len(got), Dim)
	if maxErr > 1e-5 {
		t.Errorf("max abs error %.3g, want at most 1e-5", maxErr)
	}
}

func TestEmbedCosine(t *testing.T) {
	m, ref := testModel(t), loadReference(t)
	got, err := m.Embed(t.Context(), ref.Sentences)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b int
		want float64 // as published in shared/models/use-lite/README.md
	}{
		{0, 1, 0.653},
		{0, 2, -0.009},
	} {
		c := cosine(got[tc.a], got[tc.b])
		if math.Abs(c-tc.want) > 5e-4 {
			t.Errorf("cosine(%d, %d) = %.4f, want %.3f", tc.a, tc.b, c, tc.want)
		}
		if r := cosine(ref.Emb[tc.a], ref.Emb[tc.b]); math.Abs(c-r) > 1e-5 {
			t.Errorf("cosine(%d, %d) = %.6f, reference %.6f", tc.a, tc.b, c, r)
		}
	}
}

// A sparse batch run through the graph at once gives the same vectors as
// sentence-by-sentence runs, and its empty sentences the Load-time vector.
func TestEmbedBatchGraph(t *testing.T) {
	m, ref := testModel(t), loadReference(t)
	texts := append([]string{""}, ref.Sentences...)
	texts = append(texts[:3], append([]string{""}, texts[3:]...)...)
	var (
		pairs [][2]int
		ids   []int
	)
	for i, s := range texts {
		for k, id := range m.tok.Encode(s) {
			pairs = append(pairs, [2]int{i, k})
			ids = append(ids, id)
		}
	}
	batch, err := m.g.run(pairs, ids)
	if err != nil {
		t.Fatal(err)
	}
	single, err := m.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		row := batch.f[i*Dim : (i+1)*Dim]
		for j := range row {
			if d := math.Abs(float64(row[j] - single[i][j])); d > 1e-6 {
				t.Fatalf("text %d (%q) value %d: batch %v, alone %v", i, texts[i], j, row[j], single[i][j])
			}
		}
	}
}

func TestEmbedEmpty(t *testing.T) {
	m := testModel(t)
	got, err := m.Embed(t.Context(), []string{"", "   ", "\u3000", "hello"})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if len(v) != Dim {
			t.Fatalf("text %d: %d values", i, len(v))
		}
		if n := norm2(v); math.Abs(n-1) > 1e-5 || math.IsNaN(n) {
			t.Errorf("text %d: norm %v, want 1", i, n)
		}
	}
	if diff := cmp.Diff(m.empty, got[0]); diff != "" {
		t.Errorf("empty text (-want +got):\n%s", diff)
	}
	got[0][0] = 42 // the caller owns the vector
	if m.empty[0] == 42 {
		t.Error("Embed returned the model's own empty vector")
	}
}

// The vocabulary has no CJK pieces, so Chinese text is "▁" plus one
// unknown token, unless it has characters that NFKC maps to ASCII, such as
// the full-width comma: Embed gives such texts the zero vector.
func TestEmbedChineseHasNoVector(t *testing.T) {
	m := testModel(t)
	texts := []string{"今天天气很好", "我们明天去北京开会", "你好世界。", "那个 sci-fi movie 叫什么"}
	// 30 is the piece "▁", 8 is ",".
	for _, s := range texts[:3] {
		if diff := cmp.Diff([]int{30, unknownID}, m.tok.Encode(s)); diff != "" {
			t.Errorf("Encode(%q) (-want +got):\n%s", s, diff)
		}
	}
	if diff := cmp.Diff([]int{30, 0, 8, 0}, m.tok.Encode("你好，世界")); diff != "" {
		t.Errorf("the full-width comma becomes \",\" (-want +got):\n%s", diff)
	}
	got, err := m.Embed(t.Context(), append(texts, "What did Dr. 王 say about the trip?"))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if n := norm2(got[i]); n != 0 || len(got[i]) != Dim {
			t.Errorf("%q: %d values of norm %v, want the zero vector", s, len(got[i]), n)
		}
	}
	if n := norm2(got[len(texts)]); math.Abs(n-1) > 1e-5 {
		t.Errorf("an English text with one Chinese name: norm %v, want 1", n)
	}
}

func TestReads(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"", true},
		{"What did we decide about the launch?", true},
		{"What did Dr. 王 say about the trip?", true},
		{"Qwen2.5 还是 Llama", true},
		{"那个 sci-fi movie 叫什么", false},
		{"上周三下午部署的时候出了什么问题", false},
		{"我們上週聊過的那本小說", false},
		{"東京で会いましょう", false},
		{"서울에서 만나요", false},
		{"Ça va très bien, merci", true},
		{"Привет, как дела", true},
		{"2026-04-13 14:00", true},
	} {
		if got := Reads(c.text); got != c.want {
			t.Errorf("Reads(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestEmbedLongText(t *testing.T) {
	m := testModel(t)
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 60)
	if n := len(m.tok.Encode(long)); n <= 128 {
		t.Fatalf("only %d tokens; want a text longer than the 128-token window", n)
	}
	got, err := m.Embed(t.Context(), []string{long, long[:len(long)/2]})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if n := norm2(v); math.Abs(n-1) > 1e-5 {
			t.Errorf("text %d: norm %v, want 1", i, n)
		}
	}
}

func TestEmbedConcurrent(t *testing.T) {
	m, ref := testModel(t), loadReference(t)
	texts := append(append([]string{}, ref.Sentences...), "", "a second batch of words", "你好")
	want := make([][]float32, len(texts))
	for i, s := range texts {
		v, err := m.Embed(t.Context(), []string{s})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = v[0]
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for round := range 3 {
				// Each goroutine embeds the texts in its own rotation.
				shift := (g + round) % len(texts)
				order := append(append([]string{}, texts[shift:]...), texts[:shift]...)
				got, err := m.Embed(t.Context(), order)
				if err != nil {
					t.Error(err)
					return
				}
				for k := range order {
					if diff := cmp.Diff(want[(k+shift)%len(texts)], got[k]); diff != "" {
						t.Errorf("goroutine %d: %q (-want +got):\n%s", g, order[k], diff)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestEmbedCanceled(t *testing.T) {
	m := testModel(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := m.Embed(ctx, []string{"hello", "world"}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	got, err := m.Embed(ctx, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("no texts: got %v, %v", got, err)
	}
}

func TestInfo(t *testing.T) {
	m := testModel(t)
	var e core.Embedder = m
	got, err := e.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := core.EmbedderInfo{Name: "use-lite", Model: "universal-sentence-encoder-lite@0.2.0", Dim: 512}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Info (-want +got):\n%s", diff)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("HUIMEM_MODELS", "/srv/models")
	if got, want := DefaultDir(), filepath.FromSlash("/srv/models/use-lite"); got != want {
		t.Errorf("with HUIMEM_MODELS: got %q, want %q", got, want)
	}
	t.Setenv("HUIMEM_MODELS", "")
	t.Setenv("HOME", "/home/hui")
	if got, want := DefaultDir(), filepath.FromSlash("/home/hui/.cache/huimem/models/use-lite"); got != want {
		t.Errorf("without HUIMEM_MODELS: got %q, want %q", got, want)
	}
}

func TestLoadMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	_, err := Load(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want an fs.ErrNotExist error", err)
	}
	if want := "uselite: reading model.json in " + dir + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %q, want it to start with %q", err, want)
	}
}

// tinyModel is a model.json with one weight in one shard. Its graph is not
// the USE-lite graph; the tests below only reach the loader's checks.
const tinyModel = `{
  "modelTopology": {"node": [
    {"name": "indices", "op": "Placeholder", "attr": {"dtype": {"type": "DT_INT64"}}},
    {"name": "values", "op": "Placeholder", "attr": {"dtype": {"type": 9}}},
    {"name": "w", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}}},
    {"name": "out", "op": "%s", "input": ["indices", "values", "w"]}
  ]},
  "weightsManifest": [{"paths": ["group1-shard1of1"], "weights": [{"name": "w", "shape": [2, 2], "dtype": "float32"}]}]
}`

func TestLoadCorrupt(t *testing.T) {
	okShard := make([]byte, 16)
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"bad json", map[string]string{"model.json": "{not json"}, "uselite: reading model.json in "},
		{"no nodes", map[string]string{"model.json": "{}"}, "model.json in %s: no graph nodes"},
		{"missing shard", map[string]string{"model.json": strings.Replace(tinyModel, "%s", "Add", 1)},
			"uselite: reading group1-shard1of1 in "},
		{"short shard", map[string]string{"model.json": strings.Replace(tinyModel, "%s", "Add", 1), "group1-shard1of1": "12345678"},
			"uselite: reading group1-shard1of1 in %s: weight \"w\": want 16 bytes, the shards have 8 left (truncated?)"},
		{"long shard", map[string]string{"model.json": strings.Replace(tinyModel, "%s", "Add", 1), "group1-shard1of1": string(okShard) + "x"},
			"1 bytes left after the last weight"},
		{"unknown op", map[string]string{"model.json": strings.Replace(tinyModel, "%s", "FancyOp", 1), "group1-shard1of1": string(okShard)},
			`node "out": unsupported operation FancyOp`},
		{"shard outside", map[string]string{"model.json": strings.Replace(strings.Replace(tinyModel, "%s", "Add", 1), `"group1`, `"../group1`, 1)},
			"leaves the directory"},
		{"wrong input count", map[string]string{"model.json": strings.Replace(tinyModel, "%s", "Add", 1), "group1-shard1of1": string(okShard)},
			`node "out": Add takes 2 inputs, not 3`},
		{"no vocab", map[string]string{"model.json": strings.Replace(tinyModel, "%s", "ConcatV2", 1), "group1-shard1of1": string(okShard)},
			"uselite: reading vocab.json in "},
		{"bad vocab", map[string]string{"model.json": strings.Replace(tinyModel, "%s", "ConcatV2", 1), "group1-shard1of1": string(okShard), "vocab.json": `[["a", 1], ["b"]]`},
			"uselite: reading vocab.json in "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := tc.want
			if strings.Contains(want, "%s") {
				want = strings.Replace(want, "%s", dir, 1)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("got %v, want an error containing %q", err, want)
			}
		})
	}
}

// TestSimilarityCalibration: the "nothing found" floor's calibration of
// this model (core's similarityCalibrations) is keyed by the identity
// Info reports; a new model version needs a calibration measured anew.
func TestSimilarityCalibration(t *testing.T) {
	c, ok := core.EmbedderInfo{Name: Name, Model: ModelName, Dim: Dim}.Calibration()
	if !ok || c.Weight <= 0 {
		t.Fatalf("no floor calibration for %s %s (got %+v)", Name, ModelName, c)
	}
}
