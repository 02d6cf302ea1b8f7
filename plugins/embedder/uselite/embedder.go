package uselite

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/huimemory/huimemory/core"
)

// Identity of the embedder, as [Model.Info] reports it.
const (
	Name      = "use-lite"
	ModelName = "universal-sentence-encoder-lite@0.2.0"
	Dim       = 512
)

var _ core.Embedder = (*Model)(nil)

// Model is the Universal Sentence Encoder Lite, loaded into memory. It
// does not change after [Load] but for the embedding of an empty text,
// computed once when first needed, and is safe for concurrent use.
type Model struct {
	tok *Tokenizer
	g   *graph
	// empty is the embedding of a text without tokens, computed when one
	// is first embedded (a run of the graph, a third of a load).
	emptyOnce sync.Once
	empty     []float32
	emptyErr  error
}

// Load reads model.json, the weight shards it lists and vocab.json from
// dir (see [DefaultDir]; scripts/fetch-models.sh fills it). It only reads
// the disk. Errors name the file and directory and wrap the cause, so
// errors.Is(err, fs.ErrNotExist) reports missing weights.
func Load(dir string) (*Model, error) {
	g, err := loadGraph(dir)
	if err != nil {
		return nil, err
	}
	raw, err := readFile(dir, vocabFile)
	if err != nil {
		return nil, err
	}
	vocab, err := parseVocab(raw)
	if err != nil {
		return nil, fmt.Errorf("uselite: reading %s in %s: %w", vocabFile, dir, err)
	}
	return &Model{tok: newTokenizer(vocab), g: g}, nil
}

// emptyVector returns the embedding of a text without tokens. Such a
// text alone is not a valid graph input; its embedding is what the graph
// gives an empty sentence inside a batch: put it first, before a
// one-token sentence.
func (m *Model) emptyVector() ([]float32, error) {
	m.emptyOnce.Do(func() {
		out, err := m.g.run([][2]int{{1, 0}}, []int{unknownID})
		switch {
		case err != nil:
			m.emptyErr = err
		case len(out.shape) != 2 || out.shape[0] != 2 || out.shape[1] != Dim:
			m.emptyErr = fmt.Errorf("uselite: the model gives %v embeddings, want [2 %d]", out.shape, Dim)
		default:
			m.empty = out.f[:Dim:Dim]
		}
	})
	return m.empty, m.emptyErr
}

// Tokenizer returns the model's tokenizer.
func (m *Model) Tokenizer() *Tokenizer { return m.tok }

// Info reports Name, ModelName and Dim.
func (m *Model) Info(context.Context) (core.EmbedderInfo, error) {
	return core.EmbedderInfo{Name: Name, Model: ModelName, Dim: Dim}, nil
}

// Embed returns one L2-normalised 512-dimensional vector per text, in
// order. The graph itself normalises; only the first 128 tokens of a text
// count. A text that normalises to nothing (such as "") gets the fixed
// vector the graph gives a sentence without tokens. The model is English
// only: it has no pieces for Chinese, Japanese or Korean, and would give
// all such texts one and the same vector. A text in those scripts (at
// least half as many CJK characters as other letters, see [Reads]) gets
// the zero vector instead, without running the model: it has no meaning
// the model can tell, and recall finds it by its words alone.
//
// Texts are embedded one by one on up to GOMAXPROCS goroutines. Embed is
// safe for concurrent use; it stops early when ctx is done.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		firstEr error
	)
	fail := func(err error) { errOnce.Do(func() { firstEr = err }) }
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(texts) {
					return
				}
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				v, err := m.embedOne(texts[k])
				if err != nil {
					fail(err)
					return
				}
				out[k] = v
			}
		}()
	}
	wg.Wait()
	if firstEr != nil {
		return nil, firstEr
	}
	return out, nil
}

func (m *Model) embedOne(text string) ([]float32, error) {
	if !Reads(text) {
		return make([]float32, Dim), nil
	}
	ids := m.tok.Encode(text)
	if len(ids) == 0 {
		v, err := m.emptyVector()
		return append([]float32(nil), v...), err
	}
	pairs := make([][2]int, len(ids))
	for k := range ids {
		pairs[k] = [2]int{0, k}
	}
	t, err := m.g.run(pairs, ids)
	if err != nil {
		return nil, err
	}
	if t.shape[0] != 1 || t.shape[1] != Dim {
		return nil, fmt.Errorf("uselite: graph gave %v, want [1 %d]", t.shape, Dim)
	}
	return t.f, nil
}

// Reads reports whether the model can read text: it holds fewer than half
// as many Chinese, Japanese or Korean characters as other letters (a
// character of those scripts carries about what a short English word
// does), or none. "What did Dr. 王 say" is read; "那个 sci-fi movie 叫什么" is not.
func Reads(text string) bool {
	cjk, letters := 0, 0
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
			if 'a' <= r|0x20 && r|0x20 <= 'z' {
				letters++
			}
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			cjk++
		case unicode.IsLetter(r):
			letters++
		}
	}
	return cjk == 0 || 2*cjk < letters
}
