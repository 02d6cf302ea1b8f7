package uselite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The tests need the weights from scripts/fetch-models.sh and the reference
// data in shared/. Without them they skip, or fail when
// HUIMEM_REQUIRE_MODELS=1 (weights; scripts/test.sh sets it after fetching
// them) or HUIMEM_REQUIRE_SHARED=1 (reference data; set when shared/ is
// there).

// missing skips tb, or fails it when the environment variable require is
// "1".
func missing(tb testing.TB, require, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(require) == "1" {
		tb.Fatal(msg)
	}
	tb.Skip(msg + " (" + require + "=1 makes this a failure)")
}

var (
	modelOnce sync.Once
	model     *Model
	modelErr  error
)

// testModel loads the model from DefaultDir once for all tests.
func testModel(tb testing.TB) *Model {
	tb.Helper()
	modelOnce.Do(func() { model, modelErr = Load(DefaultDir()) })
	if errors.Is(modelErr, fs.ErrNotExist) {
		missing(tb, "HUIMEM_REQUIRE_MODELS", "USE-lite weights not found: %v; run scripts/fetch-models.sh", modelErr)
	}
	if modelErr != nil {
		tb.Fatal(modelErr)
	}
	return model
}

// realTokenizer builds the tokenizer from DefaultDir()/vocab.json alone.
func realTokenizer(tb testing.TB) (*Tokenizer, error) {
	tb.Helper()
	raw, err := readFile(DefaultDir(), vocabFile)
	if err != nil {
		return nil, err
	}
	vocab, err := parseVocab(raw)
	if err != nil {
		tb.Fatalf("%s: %v", vocabFile, err)
	}
	return newTokenizer(vocab), nil
}

// reference is shared/models/use-lite/reference.json, made by the official
// JavaScript runtime.
type reference struct {
	Sentences []string    `json:"sentences"`
	Tokens    [][]int     `json:"tokens"`
	Emb       [][]float64 `json:"emb"`
}

const referencePath = "models/use-lite/reference.json"

// findReference looks in $HUIMEM_SHARED, else in a shared/ folder in the
// working directory or any directory above it (the repository's sibling).
func findReference() (string, error) {
	if dir := os.Getenv("HUIMEM_SHARED"); dir != "" {
		return filepath.Join(dir, referencePath), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", referencePath)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no shared/%s in %s or above: %w", referencePath, wd, fs.ErrNotExist)
		}
	}
}

func loadReference(tb testing.TB) *reference {
	tb.Helper()
	p, err := findReference()
	var b []byte
	if err == nil {
		b, err = os.ReadFile(p)
	}
	if err != nil {
		missing(tb, "HUIMEM_REQUIRE_SHARED", "reference data: %v; set HUIMEM_SHARED to the shared/ folder", err)
	}
	var ref reference
	if err := json.Unmarshal(b, &ref); err != nil {
		tb.Fatalf("%s: %v", p, err)
	}
	if len(ref.Sentences) == 0 || len(ref.Tokens) != len(ref.Sentences) || len(ref.Emb) != len(ref.Sentences) {
		tb.Fatalf("%s: %d sentences, %d token lists, %d embeddings", p, len(ref.Sentences), len(ref.Tokens), len(ref.Emb))
	}
	return &ref
}

func cosine[T float32 | float64](a, b []T) float64 {
	var ab, aa, bb float64
	for k := range a {
		ab += float64(a[k]) * float64(b[k])
		aa += float64(a[k]) * float64(a[k])
		bb += float64(b[k]) * float64(b[k])
	}
	return ab / math.Sqrt(aa*bb)
}

func norm2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
