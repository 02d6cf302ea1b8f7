// Package plainbm25 is the baseline the dev sets' figures are set beside:
// Okapi BM25 (k1 1.2, b 0.75) over single messages, with lower-cased
// letter-and-digit runs as tokens and, for Chinese, every Han character
// and every pair of adjacent Han characters. No stemming, stop words,
// time filters or vectors: what anyone gets from a textbook BM25.
package plainbm25

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Tokens returns the tokens of s: lower-cased runs of letters and digits
// outside Han script, and each Han character and each adjacent pair.
func Tokens(s string) []string {
	var out []string
	var word []rune
	var prevHan rune
	flush := func() {
		if len(word) > 0 {
			out = append(out, string(word))
			word = word[:0]
		}
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.Is(unicode.Han, r):
			flush()
			out = append(out, string(r))
			if prevHan != 0 {
				out = append(out, string([]rune{prevHan, r}))
			}
			prevHan = r
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word = append(word, r)
		default:
			flush()
		}
		prevHan = 0
	}
	flush()
	return out
}

// Index is an in-memory BM25 index of documents, each with a ref.
type Index struct {
	refs  []string
	tf    []map[string]int
	lens  []int
	df    map[string]int
	avgdl float64
}

// New indexes texts, whose refs are refs[i].
func New(refs, texts []string) *Index {
	x := &Index{refs: refs, df: map[string]int{}}
	total := 0
	for _, t := range texts {
		toks := Tokens(t)
		tf := map[string]int{}
		for _, tok := range toks {
			tf[tok]++
		}
		for tok := range tf {
			x.df[tok]++
		}
		x.tf = append(x.tf, tf)
		x.lens = append(x.lens, len(toks))
		total += len(toks)
	}
	if len(texts) > 0 {
		x.avgdl = float64(total) / float64(len(texts))
	}
	return x
}

// Search returns the refs of the k best-scoring documents for query, best
// first; documents that match no term are left out.
func (x *Index) Search(query string, k int) []string {
	const k1, b = 1.2, 0.75
	n := float64(len(x.refs))
	scores := make([]float64, len(x.refs))
	seen := map[string]bool{}
	for _, tok := range Tokens(query) {
		if seen[tok] || x.df[tok] == 0 {
			continue
		}
		seen[tok] = true
		df := float64(x.df[tok])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, tf := range x.tf {
			f := float64(tf[tok])
			if f == 0 {
				continue
			}
			scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(x.lens[i])/x.avgdl))
		}
	}
	order := make([]int, 0, len(scores))
	for i, s := range scores {
		if s > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, c int) bool { return scores[order[a]] > scores[order[c]] })
	if len(order) > k {
		order = order[:k]
	}
	out := make([]string, len(order))
	for i, j := range order {
		out[i] = x.refs[j]
	}
	return out
}
