package index

import (
	"sort"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// hanFoldName names the token filter that writes traditional Chinese
// characters as their simplified forms.
const hanFoldName = "huimem_hanfold"

// hanFoldFilter folds each traditional character of a token to its
// simplified form (hanfold_table.go, from OpenCC's character table), so
// that "我跟你說過的電影" and "我跟你说过的电影" give the same terms: a
// memory typed in one script answers questions typed in the other. It
// runs before the CJK filter makes pairs. Where OpenCC gives several
// simplified forms the first is taken; a few characters that simplified
// text also uses (著, 乾) fold too, which the index and the question do
// alike.
type hanFoldFilter struct{}

func (hanFoldFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if t.Type != analysis.Ideographic {
			continue
		}
		var out []byte
		for i := 0; i < len(t.Term); {
			r, n := utf8.DecodeRune(t.Term[i:])
			if s, ok := foldHan(r); ok {
				if out == nil {
					out = append(make([]byte, 0, len(t.Term)), t.Term[:i]...)
				}
				out = utf8.AppendRune(out, s)
			} else if out != nil {
				out = append(out, t.Term[i:i+n]...)
			}
			i += n
		}
		if out != nil {
			t.Term = out
		}
	}
	return input
}

// foldHan returns the simplified form of traditional character r.
func foldHan(r rune) (rune, bool) {
	if r < hanFold[0][0] || r > hanFold[len(hanFold)-1][0] {
		return 0, false
	}
	i := sort.Search(len(hanFold), func(i int) bool { return hanFold[i][0] >= r })
	if i < len(hanFold) && hanFold[i][0] == r {
		return hanFold[i][1], true
	}
	return 0, false
}

func init() {
	err := registry.RegisterTokenFilter(hanFoldName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return hanFoldFilter{}, nil
	})
	if err != nil {
		panic(err)
	}
}
