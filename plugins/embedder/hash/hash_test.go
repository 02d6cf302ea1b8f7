package hash

import (
	"math"
	"testing"

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
