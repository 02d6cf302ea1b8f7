package plainbm25

import (
	"slices"
	"testing"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Hello, World 42", []string{"hello", "world", "42"}},
		{"上周三", []string{"上", "周", "上周", "三", "周三"}},
		{"看了Avatar电影", []string{"看", "了", "看了", "avatar", "电", "影", "电影"}},
		{"", nil},
	} {
		got := Tokens(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSearch(t *testing.T) {
	x := New([]string{"a", "b", "c"}, []string{
		"我去了绿禾公园，看到了樱花",
		"今天学做了清蒸鲈鱼",
		"I watched a movie about space",
	})
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"我在绿禾公园看到了什么？", []string{"a"}},
		{"清蒸鲈鱼怎么做", []string{"b"}},
		{"which movie", []string{"c"}},
		{"xyz", []string{}},
	} {
		got := x.Search(tc.q, 1)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Search(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}
