package index

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	bindex "github.com/blevesearch/bleve_index_api"
)

// ApplyParts is [Index.Apply] with each document's context given in
// parts: parts[i], when not nil, replaces docs[i].Context with the
// neighbours' texts one by one, as if joined by newlines. Each distinct
// string (a text, a reply, a part) is analysed once per call, and its
// term counts are computed once: a chunk's text field shares them, and
// its neighbours' ctx fields add them up (see [ctxField]). The index is
// the same as with the joined text (the analyser never pairs tokens
// across a newline, and BM25 uses only each term's count). Memory grows
// with the batch's text (bleve analyses it all before it writes a
// segment): callers bound a batch by count and bytes (see [DocBytes]).
func (x *Index) ApplyParts(docs []Doc, parts [][]string, deletes []string, gen uint64) error {
	return x.applyParts(docs, parts, deletes, gen, true)
}

// applyParts is ApplyParts; share is whether strings repeat across the
// batch's documents, so that their analysis is worth keeping until the
// batch is written.
func (x *Index) applyParts(docs []Doc, parts [][]string, deletes []string, gen uint64, share bool) error {
	batch := x.b.NewBatch()
	ctx := newContextAnalysis(x.b.Mapping().AnalyzerNamed(AnalyzerName))
	ctx.share = share
	for i := range docs {
		d := &docs[i]
		var p []string
		if i < len(parts) {
			p = parts[i]
		}
		if p == nil || ctx.an == nil {
			if err := batch.Index(d.ID, d.fields()); err != nil {
				return fmt.Errorf("indexing chunk %s: %w", d.ID, err)
			}
			continue
		}
		doc, err := x.document(d, p, ctx)
		if err != nil {
			return fmt.Errorf("indexing chunk %s: %w", d.ID, err)
		}
		if err := batch.IndexAdvanced(doc); err != nil {
			return fmt.Errorf("indexing chunk %s: %w", d.ID, err)
		}
	}
	for _, id := range deletes {
		batch.Delete(id)
	}
	batch.SetInternal(keyGen, []byte(strconv.FormatUint(gen, 10)))
	if err := x.b.Batch(batch); err != nil {
		return fmt.Errorf("writing index batch: %w", err)
	}
	return nil
}

// DocBytes is about how much text a document and its context parts give
// the analyser, for sizing batches.
func DocBytes(d *Doc, parts []string) int {
	n := len(d.Text) + len(d.Reply) + len(d.Context)
	for _, p := range parts {
		n += len(p)
	}
	return n
}

// document maps d as bleve's Batch.Index would, except that its text,
// reply and ctx fields take their tokens from a cache shared across the
// batch: each distinct string is analysed once, whether it is a chunk's
// own text or a part of its neighbours' context.
func (x *Index) document(d *Doc, parts []string, ctx *contextAnalysis) (*document.Document, error) {
	fields := d.fields()
	fields["ctx"] = "" // mapped like any ctx field, then replaced
	doc := document.NewDocument(d.ID)
	if err := x.b.Mapping().MapDocument(doc, fields); err != nil {
		return nil, err
	}
	found := false
	for i, f := range doc.Fields {
		var src []string
		switch f.Name() {
		case "text":
			src = []string{d.Text}
		case "reply":
			src = []string{d.Reply}
		case "ctx":
			src, found = parts, true
		default:
			continue
		}
		opts := f.Options()
		if countsOnly(opts) && len(f.ArrayPositions()) == 0 {
			// The usual case: the field keeps each term's count, which
			// the parts' cached counts give without a token stream.
			doc.Fields[i] = &ctxField{TextField: document.NewTextFieldCustom(f.Name(), nil, nil, opts, nil), c: ctx, parts: src}
			continue
		}
		doc.Fields[i] = document.NewTextFieldCustom(f.Name(), f.ArrayPositions(), nil, opts,
			&contextAnalyzer{c: ctx, parts: src, positions: opts.IncludeTermVectors()})
	}
	if !found {
		return nil, fmt.Errorf("the mapping has no ctx field")
	}
	return doc, nil
}

// countsOnly reports whether a field with these options keeps only each
// term's count (no positions), so that [ctxField] can index it.
func countsOnly(o bindex.FieldIndexingOptions) bool {
	return !o.IncludeTermVectors() && !o.SkipFreqNorm()
}

// contextAnalysis caches the analysis of the strings of one Apply: their
// token streams, or, for fields without term vectors, their term counts.
// Analysis runs on bleve's workers, in parallel: each string is analysed
// once, by the first worker that needs it.
type contextAnalysis struct {
	an    analysis.Analyzer
	share bool // keep each string's analysis for the batch (else: none is kept)
	mu    sync.Mutex
	parts map[string]*partTokens
}

func newContextAnalysis(an analysis.Analyzer) *contextAnalysis {
	return &contextAnalysis{an: fastAnalyzer(an), parts: map[string]*partTokens{}}
}

type partTokens struct {
	tokensOnce sync.Once
	tokens     analysis.TokenStream
	freqsOnce  sync.Once
	freqs      bindex.TokenFrequencies
	length     int
}

// tokens returns the tokens the analyser makes of the parts joined by
// newlines: each part's tokens, in order, with positions and offsets
// continuing from the part before. (A newline always ends a token, so
// this equals analysing the joined text, except that two Chinese,
// Japanese or Korean characters on either side of a join are not paired
// into a bigram; chunk contents start with their speaker's name, so this
// does not arise for message chunks.)
//
// Without term vectors the index keeps only each term's count, so the
// parts' tokens are shared as they are, unless positions is set.
func (c *contextAnalysis) tokens(parts []string, positions bool) analysis.TokenStream {
	if len(parts) == 1 {
		return c.partTokens(parts[0])
	}
	var out analysis.TokenStream
	if !positions {
		for _, p := range parts {
			out = append(out, c.partTokens(p)...)
		}
		return out
	}
	pos, off := 0, 0
	for _, p := range parts {
		for _, t := range c.partTokens(p) {
			u := *t
			u.Position += pos
			u.Start += off
			u.End += off
			out = append(out, &u)
		}
		if n := len(out); n > 0 {
			pos = out[n-1].Position
		}
		off += len(p) + 1
	}
	return out
}

func (c *contextAnalysis) part(p string) *partTokens {
	if !c.share {
		return &partTokens{}
	}
	c.mu.Lock()
	pt := c.parts[p]
	if pt == nil {
		pt = &partTokens{}
		c.parts[p] = pt
	}
	c.mu.Unlock()
	return pt
}

func (c *contextAnalysis) partTokens(p string) analysis.TokenStream {
	pt := c.part(p)
	pt.tokensOnce.Do(func() { pt.tokens = c.an.Analyze([]byte(p)) })
	return pt.tokens
}

// partFreqs returns the term counts of p and its number of tokens, as
// [analysis.TokenFrequency] counts them for a field without term
// vectors. The token stream is not kept.
func (c *contextAnalysis) partFreqs(p string) (bindex.TokenFrequencies, int) {
	pt := c.part(p)
	pt.freqsOnce.Do(func() {
		toks := c.an.Analyze([]byte(p))
		pt.freqs, pt.length = termCounts(toks), len(toks)
	})
	return pt.freqs, pt.length
}

// termCounts is [analysis.TokenFrequency] for a field without term
// vectors, with the counts allocated together.
func termCounts(toks analysis.TokenStream) bindex.TokenFrequencies {
	out := make(bindex.TokenFrequencies, len(toks))
	var slab []bindex.TokenFreq
	for _, t := range toks {
		if tf := out[string(t.Term)]; tf != nil {
			tf.SetFrequency(tf.Frequency() + 1)
			continue
		}
		if len(slab) == cap(slab) {
			slab = make([]bindex.TokenFreq, 0, min(len(toks), 64))
		}
		slab = append(slab, bindex.TokenFreq{Term: t.Term})
		tf := &slab[len(slab)-1]
		tf.SetFrequency(1)
		out[string(t.Term)] = tf
	}
	return out
}

// contextAnalyzer is the analyser of one document's ctx field: it ignores
// the field's (empty) value and returns the tokens of its parts.
type contextAnalyzer struct {
	c         *contextAnalysis
	parts     []string
	positions bool
}

func (a *contextAnalyzer) Analyze([]byte) analysis.TokenStream {
	return a.c.tokens(a.parts, a.positions)
}
