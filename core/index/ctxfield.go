package index

import (
	"github.com/blevesearch/bleve/v2/document"
	bindex "github.com/blevesearch/bleve_index_api"
)

// ctxField is a text, reply or ctx field whose terms are the sum of the
// term counts of its parts, each counted once per batch by a
// [contextAnalysis]. It stands for a [document.TextField] without term
// vectors, whose analysis it equals: the index keeps each term's count
// and the field's length, both sums over the parts. A field of one part
// shares that part's counts with every other field of the batch made of
// the same string; bleve and zap only read them.
type ctxField struct {
	*document.TextField
	c      *contextAnalysis
	parts  []string
	length int
	freqs  bindex.TokenFrequencies
	owned  bool // freqs were built for this field alone
}

var _ document.Field = (*ctxField)(nil)

// Analyze counts the field's terms from its parts' cached counts.
func (f *ctxField) Analyze() {
	switch len(f.parts) {
	case 0:
		f.freqs, f.length, f.owned = bindex.TokenFrequencies{}, 0, true
	case 1:
		f.freqs, f.length = f.c.partFreqs(f.parts[0])
	default:
		all := make([]bindex.TokenFrequencies, len(f.parts))
		n, length := 0, 0
		for i, p := range f.parts {
			var l int
			all[i], l = f.c.partFreqs(p)
			n += len(all[i])
			length += l
		}
		out := make(bindex.TokenFrequencies, n)
		slab := make([]bindex.TokenFreq, 0, n)
		for _, tfs := range all {
			for term, tf := range tfs {
				if sum := out[term]; sum != nil {
					sum.SetFrequency(sum.Frequency() + tf.Frequency())
					continue
				}
				slab = append(slab, bindex.TokenFreq{Term: tf.Term})
				sum := &slab[len(slab)-1]
				sum.SetFrequency(tf.Frequency())
				out[term] = sum
			}
		}
		f.freqs, f.length, f.owned = out, length, true
	}
}

// AnalyzedLength is the field's number of tokens.
func (f *ctxField) AnalyzedLength() int { return f.length }

// AnalyzedTokenFrequencies are the field's term counts.
func (f *ctxField) AnalyzedTokenFrequencies() bindex.TokenFrequencies { return f.freqs }

// Size is the memory the field holds on its own, for bleve's accounting.
func (f *ctxField) Size() int {
	n := f.TextField.Size()
	if f.owned {
		n += f.freqs.Size()
	}
	return n
}
