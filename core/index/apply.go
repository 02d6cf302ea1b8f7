package index

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
)

// ApplyParts is [Index.Apply] with each document's context given in
// parts: parts[i], when not nil, replaces docs[i].Context with the
// neighbours' texts one by one, as if joined by newlines. Each distinct
// string (a text, a reply, a part) is analysed once per call, so a chunk
// whose text and reply are also its neighbours' context parts costs one
// analysis, not three; the index is the same as with the joined text
// (the analyser never pairs tokens across a newline, and BM25 uses only
// each term's count). Memory grows with the batch's text
// (bleve analyses it all before it writes a segment): callers bound a
// batch by count and bytes (see [DocBytes]).
func (x *Index) ApplyParts(docs []Doc, parts [][]string, deletes []string, gen uint64) error {
	batch := x.b.NewBatch()
	ctx := &contextAnalysis{an: x.b.Mapping().AnalyzerNamed(AnalyzerName), parts: map[string]*partTokens{}}
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

// document maps d as [bleve.Batch.Index] would, except that its text,
// reply and ctx fields take their tokens from a cache shared across the
// batch: each distinct string is analysed once, whether it is a chunk's
// own text or a part of its neighbours' context.
func (x *Index) document(d *Doc, parts []string, ctx *contextAnalysis) (*document.Document, error) {
	fields := d.fields()
	fields["ctx"] = "" // mapped (and so kept out of _all) like any ctx field, then replaced
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
		doc.Fields[i] = document.NewTextFieldCustom(f.Name(), nil, nil, f.Options(),
			&contextAnalyzer{c: ctx, parts: src, positions: f.Options().IncludeTermVectors()})
	}
	if !found {
		return nil, fmt.Errorf("the mapping has no ctx field")
	}
	return doc, nil
}

// contextAnalysis caches the token streams of context parts during one
// Apply. Analysis runs on bleve's workers, in parallel: each part is
// analysed once, by the first worker that needs it.
type contextAnalysis struct {
	an    analysis.Analyzer
	mu    sync.Mutex
	parts map[string]*partTokens
}

type partTokens struct {
	once   sync.Once
	tokens analysis.TokenStream
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
		return c.part(parts[0])
	}
	var out analysis.TokenStream
	if !positions {
		for _, p := range parts {
			out = append(out, c.part(p)...)
		}
		return out
	}
	pos, off := 0, 0
	for _, p := range parts {
		for _, t := range c.part(p) {
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

func (c *contextAnalysis) part(p string) analysis.TokenStream {
	c.mu.Lock()
	pt := c.parts[p]
	if pt == nil {
		pt = &partTokens{}
		c.parts[p] = pt
	}
	c.mu.Unlock()
	pt.once.Do(func() { pt.tokens = c.an.Analyze([]byte(p)) })
	return pt.tokens
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
