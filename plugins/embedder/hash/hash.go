package hash

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/huimemory/huimemory/core"
)

// Name is the embedder's registered name.
const Name = "hash"

// Model describes the feature set; it changes when the features change, so
// that old vectors are never mixed with new ones.
const Model = "fnv1a-w1-s1-cjk12-v2"

// DefaultDim is the default vector dimension.
const DefaultDim = 256

// Embedder is the feature-hashing embedder. It is safe for concurrent use.
type Embedder struct {
	dim int
}

var _ core.Embedder = (*Embedder)(nil)

// New returns a hash embedder of the given dimension (DefaultDim if 0).
func New(dim int) (*Embedder, error) {
	if dim == 0 {
		dim = DefaultDim
	}
	if dim < 8 || dim > 1<<16 {
		return nil, fmt.Errorf("hash embedder: dimension %d is not between 8 and 65536", dim)
	}
	return &Embedder{dim: dim}, nil
}

// Info reports the embedder's name, model and dimension.
func (e *Embedder) Info(context.Context) (core.EmbedderInfo, error) {
	return core.EmbedderInfo{Name: Name, Model: Model, Dim: e.dim}, nil
}

// Embed returns one L2-normalised vector per text. An empty text gives a
// zero vector.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = e.Vector(t)
	}
	return out, nil
}

// Vector embeds one text.
func (e *Embedder) Vector(text string) []float32 {
	counts := map[string]float64{}
	Features(text, func(f string, w float64) { counts[f] += w })
	v := make([]float64, e.dim)
	for f, w := range counts {
		h := fnv.New64a()
		h.Write([]byte(f))
		x := h.Sum64()
		idx := int(x % uint64(e.dim))
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		v[idx] += sign * sublinear(w)
	}
	var norm float64
	for _, f := range v {
		norm += f * f
	}
	out := make([]float32, e.dim)
	if norm == 0 {
		return out
	}
	inv := 1 / math.Sqrt(norm)
	for i, f := range v {
		out[i] = float32(f * inv)
	}
	return out
}

// sublinear damps repeated features: 1 + ln(w) for w >= 1; fractional
// weights (trigrams, CJK unigrams) stay as they are.
func sublinear(w float64) float64 {
	if w < 1 {
		return w
	}
	return 1 + math.Log(w)
}

// Features calls emit for each feature of text with its weight. The same
// feature may be emitted several times; weights add up.
func Features(text string, emit func(feature string, weight float64)) {
	text = strings.ToLower(text)
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		w := string(word)
		word = word[:0]
		if stop[w] {
			return
		}
		emit("w:"+w, 1)
		emit("s:"+stem(w), 1)
	}
	flushCJK := func() {
		for i, r := range cjk {
			emit("u:"+string(r), 0.5)
			if i+1 < len(cjk) {
				emit("b:"+string(cjk[i:i+2]), 1)
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		switch {
		case isCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			flushCJK()
			word = append(word, r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for with from as is are was were be been
		being am do does did have has had i you he she it we they me him her us them my your his its our their
		this that these those what which who whom there here so not no yes just than then too very can will would
		shall should could may might must about into over also`) {
		stop[w] = true
	}
}

// stem strips one common English suffix, so that "deploy", "deployed" and
// "deploying" share a feature.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s", "ly"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}
