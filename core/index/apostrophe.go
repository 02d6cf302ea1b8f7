package index

import (
	"bytes"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// apostropheName names the token filter that writes a word's
// typographic apostrophe as the ASCII one.
const apostropheName = "huimem_apostrophe"

// typographic are the apostrophes that keyboards and editors type in
// place of ASCII's (phones and word processors turn "I've" into "I’ve"):
// right and left single quotation marks and the modifier letter
// apostrophe, each three bytes in UTF-8 starting with 0xE2 or 0xCA.
var typographic = [][]byte{[]byte("\u2019"), []byte("\u2018"), []byte("\u02BC")}

// apostropheFilter rewrites each typographic apostrophe in a token as
// "'", so that "I’ve" is the stop word "i've" and "don’t" the term
// "don't", as the ASCII spellings are: the English stop word list and
// the stemmer know only the ASCII form, and a question typed on a phone
// held a term ("i’v") that no chunk typed on a computer has, which the
// relevance floor counted as a word the memory lacks
// (docs/recall-quality.md, "Typographic apostrophes"). The fullwidth
// apostrophe is folded by the CJK width filter before it.
type apostropheFilter struct{}

func (apostropheFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if bytes.IndexByte(t.Term, 0xE2) < 0 && bytes.IndexByte(t.Term, 0xCA) < 0 {
			continue
		}
		for _, a := range typographic {
			if bytes.Contains(t.Term, a) {
				t.Term = bytes.ReplaceAll(t.Term, a, []byte{'\''})
			}
		}
	}
	return input
}

func init() {
	err := registry.RegisterTokenFilter(apostropheName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return apostropheFilter{}, nil
	})
	if err != nil {
		panic(err)
	}
}
