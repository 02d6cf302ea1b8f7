package hash

import (
	"hash/fnv"
	"math"
	"strings"
	"testing"
	"unicode"

	"github.com/huimemory/huimemory/core/vector"
)

func TestVectorsAreNormalisedAndDeterministic(t *testing.T) {
	e, err := New(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"hello world", "你好，世界", "mixed 中文 and English", "!!!"} {
		v := e.Vector(text)
		if len(v) != DefaultDim {
			t.Fatalf("dim %d", len(v))
		}
		var n float64
		for _, f := range v {
			n += float64(f) * float64(f)
		}
		if text != "!!!" && math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: norm² %v", text, n)
		}
		if text == "!!!" && n != 0 {
			t.Errorf("a text without features should give a zero vector")
		}
		w := e.Vector(text)
		for i := range v {
			if v[i] != w[i] {
				t.Fatalf("%q: not deterministic", text)
			}
		}
	}
}

func TestSimilarTextsAreCloser(t *testing.T) {
	e, _ := New(256)
	for _, tt := range []struct{ q, near, far string }{
		{"AI 意识", "关于AI意识，目前没有科学共识", "周末做什么菜？红烧肉还是火锅"},
		{"deploying the local model", "we deployed a local model with ollama", "cherry blossoms in kyoto"},
		{"本地模型部署", "我想在服务器上部署本地模型", "ryokan near Gion"},
	} {
		q := e.Vector(tt.q)
		near, far := vector.Dot(q, e.Vector(tt.near)), vector.Dot(q, e.Vector(tt.far))
		if near <= far {
			t.Errorf("%q: cos(near)=%v <= cos(far)=%v", tt.q, near, far)
		}
	}
}

// referenceVector is the embedder as first written: every feature built
// as a string, counted in a map and hashed with hash/fnv. Vector must give
// the same vectors, or stored vectors would no longer match new ones.
func referenceVector(dim int, text string) []float32 {
	counts := map[string]float64{}
	text = strings.ToLower(text)
	var word, cjk []rune
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		w := string(word)
		word = word[:0]
		if stop[w] {
			return
		}
		counts["w:"+w]++
		counts["s:"+stem(w)]++
	}
	flushCJK := func() {
		for i, r := range cjk {
			counts["u:"+string(r)] += 0.5
			if i+1 < len(cjk) {
				counts["b:"+string(cjk[i:i+2])]++
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
	v := make([]float64, dim)
	for f, w := range counts {
		h := fnv.New64a()
		h.Write([]byte(f))
		x := h.Sum64()
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		v[int(x%uint64(dim))] += sign * sublinear(w)
	}
	var norm float64
	for _, f := range v {
		norm += f * f
	}
	out := make([]float32, dim)
	if norm == 0 {
		return out
	}
	for i, f := range v {
		out[i] = float32(f / math.Sqrt(norm))
	}
	return out
}

// sameVectors reports whether a and b agree to float32 rounding (the two
// sum a bucket's features in different orders).
func sameVectors(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

var referenceTexts = []string{
	"", "!!!", "hello world", "Hello, World! Hello again.", "你好，世界", "mixed 中文 and English",
	"I finished reading 'The Three-Body Problem' for the book club. 黑暗森林让我睡不着。",
	"DEPLOYING deployed deploys quickly; the models are RUNNING", "Ünïcödé café naïve résumé ΣΊΣΥΦΟΣ",
	"日本語のテキストとカタカナ、한국어 문장", "x y z 1 2 3 2026-04-13 v1.2.3", "a\xffb\xfe invalid utf-8 \xc3",
	"İstanbul ǅemal ﬁne ligature", "e\u0301 combining marks \u0915\u093f",
}

func TestVectorMatchesReference(t *testing.T) {
	for _, dim := range []int{8, 256, 512} {
		e, _ := New(dim)
		for _, text := range referenceTexts {
			if got, want := e.Vector(text), referenceVector(dim, text); !sameVectors(got, want) {
				t.Errorf("dim %d, %q: vector differs from the reference\n got %v\nwant %v", dim, text, got, want)
			}
		}
	}
}

func FuzzVectorMatchesReference(f *testing.F) {
	for _, text := range referenceTexts {
		f.Add(text)
	}
	e, _ := New(64)
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := e.Vector(text), referenceVector(64, text); !sameVectors(got, want) {
			t.Errorf("%q: vector differs from the reference\n got %v\nwant %v", text, got, want)
		}
	})
}

func TestNewRejectsBadDimensions(t *testing.T) {
	for _, d := range []int{-1, 4, 1 << 17} {
		if _, err := New(d); err == nil {
			t.Errorf("New(%d) accepted", d)
		}
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"deployed": "deploy", "deploying": "deploy", "models": "model", "is": "is", "quickly": "quick"} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

var sink []float32

func BenchmarkVector(b *testing.B) {
	e, _ := New(256)
	text := "I finished reading 'The Three-Body Problem' for the book club. 黑暗森林让我睡不着。"
	for i := 0; i < b.N; i++ {
		sink = e.Vector(text)
	}
}
