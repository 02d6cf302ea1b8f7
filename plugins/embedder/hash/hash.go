package hash

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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
//
// Each feature is hashed as it is read, from the bytes of its prefix and
// its text, without building it as a string (ingest embeds every
// chunk on the writer's goroutine; this takes about half the time of
// hashing feature strings, with the same vectors). Weights are summed per 64-bit hash,
// and two features with the same hash (one pair in 2⁶⁴) would share one.
func (e *Embedder) Vector(text string) []float32 {
	var f features
	f.hs = f.arr[:0]
	f.scan(text)
	slices.SortFunc(f.hs, func(a, b weighted) int { return cmp.Compare(a.h, b.h) })
	v := make([]float64, e.dim)
	for i := 0; i < len(f.hs); {
		x, w := f.hs[i].h, 0.0
		for ; i < len(f.hs) && f.hs[i].h == x; i++ {
			w += f.hs[i].w
		}
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

// FNV-1a, 64 bits (hash/fnv's New64a, inlined).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// features collects the hashes and weights of a text's features.
type features struct {
	hs   []weighted
	word []byte // the lower-cased word being read, UTF-8
	cjk  []rune // the CJK run being read
	buf  [8]byte
	arr  [64]weighted
}

// weighted is one occurrence of a feature: its hash and weight.
type weighted struct {
	h uint64
	w float64
}

func (f *features) emit(prefix string, text []byte, w float64) {
	f.hs = append(f.hs, weighted{fnvAdd(fnvString(fnvOffset, prefix), text), w})
}

// scan adds the features of text (see the package comment): for a word,
// "w:" and the word, and "s:" and its stem; for a run of CJK characters,
// "u:" and each character, and "b:" and each pair.
func (f *features) scan(text string) {
	for _, r := range text {
		if r < utf8.RuneSelf { // ASCII, most text
			switch {
			case 'A' <= r && r <= 'Z':
				r += 'a' - 'A'
				fallthrough
			case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
				f.flushCJK()
				f.word = append(f.word, byte(r))
			default:
				f.flushWord()
				f.flushCJK()
			}
			continue
		}
		r = unicode.ToLower(r)
		switch {
		case isCJK(r):
			f.flushWord()
			f.cjk = append(f.cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			f.flushCJK()
			f.word = utf8.AppendRune(f.word, r)
		default:
			f.flushWord()
			f.flushCJK()
		}
	}
	f.flushWord()
	f.flushCJK()
}

func (f *features) flushWord() {
	if len(f.word) == 0 {
		return
	}
	w := f.word
	f.word = f.word[:0]
	if stop[string(w)] {
		return
	}
	f.emit("w:", w, 1)
	f.emit("s:", stemBytes(w), 1)
}

func (f *features) flushCJK() {
	for i, r := range f.cjk {
		n := utf8.EncodeRune(f.buf[:], r)
		f.emit("u:", f.buf[:n], 0.5)
		if i+1 < len(f.cjk) {
			m := utf8.EncodeRune(f.buf[n:], f.cjk[i+1])
			f.emit("b:", f.buf[:n+m], 1)
		}
	}
	f.cjk = f.cjk[:0]
}

func isCJK(r rune) bool {
	if r < 0x1100 { // below the first of these scripts (Hangul Jamo)
		return false
	}
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
func stem(w string) string { return string(stemBytes([]byte(w))) }

func stemBytes(w []byte) []byte {
	for _, suf := range suffixes {
		if len(w) > len(suf)+2 && bytes.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

var suffixes = [][]byte{[]byte("ing"), []byte("ed"), []byte("es"), []byte("s"), []byte("ly")}
