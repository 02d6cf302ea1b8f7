package index

import (
	"bytes"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// stemCacheLimit bounds the words whose English stem is remembered, and
// so the cache's memory (about 100 bytes a word: under 4 MiB). Once full,
// further words are stemmed each time, as bleve does.
const stemCacheLimit = 1 << 15

// stems remembers the Snowball English stem of the words met while
// indexing, across batches: stemming is a pure function of the word, and
// a chat's vocabulary repeats. A nil value means the word is its own stem.
var stems = struct {
	sync.RWMutex
	m map[string][]byte
}{m: map[string][]byte{}}

// fastAnalyzer returns an analyser that gives the same tokens as an, for
// indexing, with two of bleve's token filters replaced by faster ones that
// give the same terms: the English stemmer by [stemCacheFilter], and the
// CJK width filter by [widthFilter]. An analyser of another shape is
// returned as it is. an is not changed; the new analyser may change the
// bytes it is given.
func fastAnalyzer(an analysis.Analyzer) analysis.Analyzer {
	da, ok := an.(*analysis.DefaultAnalyzer)
	if !ok {
		return an
	}
	out := *da
	out.TokenFilters = slices.Clone(da.TokenFilters)
	changed := false
	for i, f := range out.TokenFilters {
		switch f := f.(type) {
		case *en.EnglishStemmerFilter:
			out.TokenFilters[i], changed = stemCacheFilter{}, true
		case *cjk.CJKWidthFilter:
			out.TokenFilters[i], changed = widthFilter{f}, true
		}
	}
	if !changed {
		return an
	}
	return &out
}

// widthFilter is bleve's CJK width filter, which folds fullwidth ASCII
// and halfwidth katakana (U+FF01 to U+FF9F, whose UTF-8 encodings all
// start with the byte 0xEF), run only on a token stream that holds such a
// byte: bleve's filter copies every token's term into runes and back.
type widthFilter struct{ f *cjk.CJKWidthFilter }

func (w widthFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if bytes.IndexByte(t.Term, 0xEF) >= 0 {
			return w.f.Filter(input)
		}
	}
	return input
}

// stemCacheFilter is [en.EnglishStemmerFilter] with the stems remembered
// (see stems). Tokens of a remembered word share its stem's bytes, which
// the filters after it (the CJK bigram filter) and the index only read.
// Safe for concurrent use.
type stemCacheFilter struct{}

func (stemCacheFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		stems.RLock()
		s, ok := stems.m[string(t.Term)]
		stems.RUnlock()
		if ok {
			if s != nil {
				t.Term = s
			}
			continue
		}
		env := snowballstem.NewEnv(string(t.Term))
		english.Stem(env)
		cur := env.Current()
		var stem []byte
		if cur != string(t.Term) {
			stem = []byte(cur)
		}
		stems.Lock()
		if len(stems.m) < stemCacheLimit {
			stems.m[string(t.Term)] = stem
		}
		stems.Unlock()
		if stem != nil {
			t.Term = stem
		}
	}
	return input
}
