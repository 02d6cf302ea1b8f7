package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/huimemory/huimemory/core/filter"
)

// AnalyzerName is the name of the mixed Chinese/English analyzer.
const AnalyzerName = "huimem"

// Version is the version of the index mapping. A change forces a rebuild.
//
// Changelog:
//
//	1: first version.
//	2: ctx field with the neighbours' text.
//	3: reply field: assistant messages apart from the text field.
//	4: session field stored, returned with each match.
const Version = 4

var (
	keyGen     = []byte("huimem.gen")
	keyVersion = []byte("huimem.version")
)

// DefaultNS is the keyword stored for the default (empty) namespace.
const DefaultNS = "~"

// Doc is one chunk as the index sees it.
type Doc struct {
	ID      string
	NS      string
	Session string
	Time    time.Time
	Text    string
	// Reply is the text of the chunk's assistant messages, indexed in its
	// own field so that a long reply does not drown the short user message
	// beside it (BM25 normalises length per field). Text then holds the
	// other messages.
	Reply string
	// Context is the text of the chunks around this one in its session,
	// indexed in its own field so that a question matching the turn before
	// an answer also finds the answer.
	Context  string
	Roles    []string
	Speakers []string
	Topic    string
	Types    []string
}

func (d *Doc) fields() map[string]any {
	ns := d.NS
	if ns == "" {
		ns = DefaultNS
	}
	m := map[string]any{
		"text":    d.Text,
		"reply":   d.Reply,
		"ctx":     d.Context,
		"time":    d.Time.UTC(),
		"ns":      ns,
		"session": d.Session,
	}
	if len(d.Roles) > 0 {
		m["role"] = d.Roles
	}
	if len(d.Speakers) > 0 {
		m["speaker"] = d.Speakers
	}
	if d.Topic != "" {
		m["topic"] = d.Topic
	}
	if len(d.Types) > 0 {
		m["type"] = d.Types
	}
	return m
}

// Index is a bleve index of chunks. It is safe for concurrent use.
type Index struct {
	b    bleve.Index
	path string
}

// NewMapping returns the index mapping.
func NewMapping() (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	err := m.AddCustomAnalyzer(AnalyzerName, map[string]any{
		"type":      custom.Name,
		"tokenizer": unicode.Name,
		"token_filters": []string{
			cjk.WidthName,
			lowercase.Name,
			en.PossessiveName,
			en.StopName,
			en.SnowballStemmerName,
			cjk.BigramName,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("adding analyzer: %w", err)
	}
	m.ScoringModel = bindex.BM25Scoring
	m.DefaultAnalyzer = AnalyzerName
	m.DefaultField = "text"
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false

	text := bleve.NewTextFieldMapping()
	text.Analyzer = AnalyzerName
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false

	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	kw.Store = false
	kw.IncludeTermVectors = false
	kw.IncludeInAll = false
	kw.DocValues = false

	tm := bleve.NewDateTimeFieldMapping()
	tm.Store = false
	tm.IncludeInAll = false
	tm.DocValues = false

	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("text", text)
	doc.AddFieldMappingsAt("reply", text)
	doc.AddFieldMappingsAt("ctx", text)
	doc.AddFieldMappingsAt("time", tm)
	for _, f := range []string{"ns", "role", "speaker", "topic", "type"} {
		doc.AddFieldMappingsAt(f, kw)
	}
	// The session is stored, so that a search returns each match's
	// session without a read of the chunk (session-level evidence).
	session := bleve.NewKeywordFieldMapping()
	session.Analyzer = keyword.Name
	session.Store = true
	session.IncludeTermVectors = false
	session.IncludeInAll = false
	session.DocValues = false
	doc.AddFieldMappingsAt("session", session)
	m.DefaultMapping = doc
	return m, nil
}

// ErrCorrupt means the index on disk could not be opened or is of another
// version; rebuild it.
var ErrCorrupt = errors.New("index is missing, corrupt or of another version")

// Open opens the index at dir, creating it if it does not exist. An index
// that cannot be opened returns an error wrapping [ErrCorrupt].
func Open(dir string) (*Index, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return create(dir)
	}
	b, err := bleve.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("opening index %s: %w: %v", dir, ErrCorrupt, err)
	}
	x := &Index{b: b, path: dir}
	v, err := b.GetInternal(keyVersion)
	if err != nil || string(v) != strconv.Itoa(Version) {
		b.Close()
		return nil, fmt.Errorf("opening index %s: %w: version %q", dir, ErrCorrupt, v)
	}
	if _, err := b.DocCount(); err != nil {
		b.Close()
		return nil, fmt.Errorf("opening index %s: %w: %v", dir, ErrCorrupt, err)
	}
	return x, nil
}

// Create removes any index at dir and creates an empty one.
func Create(dir string) (*Index, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("removing index %s: %w", dir, err)
	}
	return create(dir)
}

func create(dir string) (*Index, error) {
	m, err := NewMapping()
	if err != nil {
		return nil, err
	}
	b, err := bleve.New(dir, m)
	if err != nil {
		return nil, fmt.Errorf("creating index %s: %w", dir, err)
	}
	if err := b.SetInternal(keyVersion, []byte(strconv.Itoa(Version))); err != nil {
		b.Close()
		return nil, fmt.Errorf("creating index %s: %w", dir, err)
	}
	return &Index{b: b, path: dir}, nil
}

// Close closes the index.
func (x *Index) Close() error { return x.b.Close() }

// Path returns the index directory.
func (x *Index) Path() string { return x.path }

// Gen returns the store generation the index reflects; 0 for a new index.
func (x *Index) Gen() (uint64, error) {
	v, err := x.b.GetInternal(keyGen)
	if err != nil || v == nil {
		return 0, err
	}
	return strconv.ParseUint(string(v), 10, 64)
}

// Count returns the number of documents.
func (x *Index) Count() (uint64, error) { return x.b.DocCount() }

// Apply indexes docs, removes the ids in deletes and records gen, all in
// one batch. The batch is on disk when Apply returns.
func (x *Index) Apply(docs []Doc, deletes []string, gen uint64) error {
	batch := x.b.NewBatch()
	for i := range docs {
		if err := batch.Index(docs[i].ID, docs[i].fields()); err != nil {
			return fmt.Errorf("indexing chunk %s: %w", docs[i].ID, err)
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

// Search describes one BM25 search.
type Search struct {
	// Text is matched against chunk text; empty matches every chunk.
	Text string
	// ContextBoost weighs matches in the neighbours' text (the ctx field)
	// against matches in the chunk's own text; 0 ignores the neighbours.
	ContextBoost float64
	// ReplyBoost weighs matches in the assistant's messages (the reply
	// field) against matches in the text field; 0 ignores them.
	ReplyBoost float64
	// NS is the only namespace searched.
	NS string
	// Since and Before bound chunk time; zero leaves a side open.
	Since, Before time.Time
	// Filter, when set, is an extra condition on the chunks' keyword
	// fields and time (core/filter); it never changes scores.
	Filter filter.Expr
	// IDs, when set, restricts the search to these chunks.
	IDs []string
	// Size is the number of matches to return.
	Size int
	// NoSession leaves Match.Session empty, saving the read of each
	// match's stored session.
	NoSession bool
}

// Match is one BM25 match.
type Match struct {
	ID    string
	Score float64
	// Session is the chunk's session.
	Session string
}

// Search runs a BM25 search. Filters never change scores: a chunk scores
// the same with or without them.
func (x *Index) Search(ctx context.Context, s Search) ([]Match, error) {
	var must query.Query
	if s.Text != "" {
		mq := query.NewMatchQuery(s.Text)
		mq.SetField("text")
		mq.Analyzer = AnalyzerName
		must = mq
		parts := []query.Query{mq}
		for _, f := range []struct {
			name  string
			boost float64
		}{{"reply", s.ReplyBoost}, {"ctx", s.ContextBoost}} {
			if f.boost > 0 {
				q := query.NewMatchQuery(s.Text)
				q.SetField(f.name)
				q.Analyzer = AnalyzerName
				q.SetBoost(f.boost)
				parts = append(parts, q)
			}
		}
		if len(parts) > 1 {
			must = query.NewDisjunctionQuery(parts)
		}
	} else {
		must = query.NewMatchAllQuery()
	}
	ns := s.NS
	if ns == "" {
		ns = DefaultNS
	}
	// Filters are zero-boosted conjuncts: the conjunction advances all of
	// them together, so a narrow filter (one week) keeps the search narrow,
	// and a zero boost keeps them out of the score.
	conj := []query.Query{must, zeroBoost(termQuery("ns", ns))}
	if !s.Since.IsZero() || !s.Before.IsZero() {
		conj = append(conj, zeroBoost(DateRange(s.Since, s.Before)))
	}
	if len(s.IDs) > 0 {
		conj = append(conj, zeroBoost(query.NewDocIDQuery(s.IDs)))
	}
	var q query.Query = query.NewConjunctionQuery(conj)
	if s.Filter != nil {
		// A filter expression may be any shape; bleve's boolean filter
		// clause checks it without scoring.
		bq := query.NewBooleanQuery([]query.Query{q}, nil, nil)
		bq.AddFilter(filterQuery(s.Filter))
		q = bq
	}
	req := bleve.NewSearchRequestOptions(q, s.Size, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	if !s.NoSession {
		req.Fields = []string{"session"}
	}
	res, err := x.b.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("searching index: %w", err)
	}
	out := make([]Match, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = Match{ID: h.ID, Score: h.Score}
		out[i].Session, _ = h.Fields["session"].(string)
	}
	return out, nil
}

func termQuery(field, term string) *query.TermQuery {
	q := query.NewTermQuery(term)
	q.SetField(field)
	return q
}

// DateRange returns a query for chunk times in [since, before); a zero
// bound leaves that side open.
func DateRange(since, before time.Time) query.Query {
	t, f := true, false
	q := query.NewDateRangeInclusiveQuery(since.UTC(), before.UTC(), &t, &f)
	if since.IsZero() {
		q.Start = query.BleveQueryTime{}
	}
	if before.IsZero() {
		q.End = query.BleveQueryTime{}
	}
	q.SetField("time")
	return q
}

func zeroBoost(q query.Query) query.Query {
	if b, ok := q.(query.BoostableQuery); ok {
		b.SetBoost(0)
	}
	return q
}

// Matching returns the ids of every chunk that matches s's namespace,
// window and filter, ignoring its text and size.
func (x *Index) Matching(ctx context.Context, s Search) ([]string, error) {
	s.Text, s.Size = "", 0
	count, err := x.b.DocCount()
	if err != nil {
		return nil, err
	}
	s.Size, s.NoSession = int(count), true
	ms, err := x.Search(ctx, s)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids, nil
}

// Analyze returns the terms the index would make of text, in order, with
// repeats.
func (x *Index) Analyze(text string) []string {
	a := x.b.Mapping().AnalyzerNamed(AnalyzerName)
	if a == nil {
		return nil
	}
	toks := a.Analyze([]byte(text))
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = string(t.Term)
	}
	return out
}

// IDF returns the BM25 inverse document frequency of each term over the
// chunks' own text (the text and reply fields), ln(1 + (N - df + 0.5) /
// (df + 0.5)), as bleve computes it. A term that no chunk holds gets the
// largest value. It also returns N, the number of chunks. Safe for
// concurrent use.
func (x *Index) IDF(ctx context.Context, terms []string) ([]float64, uint64, error) {
	adv, err := x.b.Advanced()
	if err != nil {
		return nil, 0, fmt.Errorf("reading index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, 0, fmt.Errorf("reading index: %w", err)
	}
	defer r.Close()
	n, err := r.DocCount()
	if err != nil {
		return nil, 0, fmt.Errorf("reading index: %w", err)
	}
	out := make([]float64, len(terms))
	for i, t := range terms {
		var df uint64
		for _, field := range []string{"text", "reply"} {
			tfr, err := r.TermFieldReader(ctx, []byte(t), field, false, false, false)
			if err != nil {
				return nil, 0, fmt.Errorf("reading index: %w", err)
			}
			df += tfr.Count()
			tfr.Close()
		}
		df = min(df, n)
		out[i] = math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
	}
	return out, n, nil
}

// Where a chunk holds a term, as [Index.Presence] reports it.
const (
	Absent    = 0 // neither in the chunk's text nor in its neighbours'
	InContext = 1 // only in its neighbours' text (the ctx field)
	InChunk   = 2 // in the chunk's own text (the text or reply field)
)

// Presence reports, for each chunk in ids and each of the (analysed)
// terms, whether the chunk holds the term: [InChunk], [InContext] or
// [Absent]. It reads the postings, not the chunks' text. An id that is
// not in the index gets Absent for every term. Safe for concurrent use.
func (x *Index) Presence(ctx context.Context, ids, terms []string) ([][]uint8, error) {
	out := make([][]uint8, len(ids))
	for i := range out {
		out[i] = make([]uint8, len(terms))
	}
	if len(ids) == 0 || len(terms) == 0 {
		return out, nil
	}
	adv, err := x.b.Advanced()
	if err != nil {
		return nil, fmt.Errorf("reading index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading index: %w", err)
	}
	defer r.Close()
	type doc struct {
		id  bindex.IndexInternalID
		row int
	}
	var docs []doc
	for i, id := range ids {
		in, err := r.InternalID(id)
		if err != nil {
			return nil, fmt.Errorf("reading index: %w", err)
		}
		if len(in) > 0 {
			docs = append(docs, doc{in, i})
		}
	}
	// A term field reader only moves forward: visit the documents in the
	// index's order.
	slices.SortFunc(docs, func(a, b doc) int { return a.id.Compare(b.id) })
	for j, t := range terms {
		for _, f := range []struct {
			name string
			mark uint8
		}{{"text", InChunk}, {"reply", InChunk}, {"ctx", InContext}} {
			tfr, err := r.TermFieldReader(ctx, []byte(t), f.name, false, false, false)
			if err != nil {
				return nil, fmt.Errorf("reading index: %w", err)
			}
			for _, d := range docs {
				if out[d.row][j] >= f.mark {
					continue
				}
				m, err := tfr.Advance(d.id, nil)
				if err != nil {
					tfr.Close()
					return nil, fmt.Errorf("reading index: %w", err)
				}
				if m == nil {
					break
				}
				if m.ID.Equals(d.id) {
					out[d.row][j] = f.mark
				}
			}
			tfr.Close()
		}
	}
	return out, nil
}
