package index

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
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
//	5: no composite _all field: searches name their fields.
//	6: a chunk's time as three keyword terms (day, hour, exact time;
//	   timefields.go) instead of bleve's datetime field and its sixteen
//	   numeric terms.
//	7: typographic apostrophes folded to ASCII before the stop words and
//	   the stemmer (apostrophe.go).
//	8: each CJK character as a term beside each pair (cjkFilterName), and
//	   traditional characters folded to simplified ones (hanfold.go).
const Version = 8

// cjkFilterName is the token filter that makes terms of CJK text: every
// character and every pair of adjacent characters. Pairs alone miss a
// question that names a thing by one character ("那道鱼" against "鲈鱼"),
// and a question's own wording ("吐槽" for what the chat calls "苛刻")
// gives pairs no chunk holds; characters alone match everything. Pairs
// rank; characters also decide relevance (core/engine, rank.go).
const cjkFilterName = "huimem_cjk"

var (
	keyGen     = []byte("huimem.gen")
	keyVersion = []byte("huimem.version")
)

// allField is bleve's composite field, which this index leaves out.
const allField = "_all"

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
		fieldDay:  timeTerm(d.Time, dayLayout),
		fieldHour: timeTerm(d.Time, hourLayout),
		fieldAt:   timeTerm(d.Time, atLayout),
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
	b    *bleveIndex
	path string
	// readOnly is set when the index was opened with
	// [OpenOptions.ReadOnly]: scorch then runs no merger, and [Index.Merge]
	// refuses.
	readOnly bool
}

// NewMapping returns the index mapping.
func NewMapping() (*mapping.IndexMappingImpl, error) {
	m := mapping.NewIndexMapping()
	if err := m.AddCustomTokenFilter(cjkFilterName, map[string]any{"type": cjk.BigramName, "output_unigram": true}); err != nil {
		return nil, fmt.Errorf("adding token filter: %w", err)
	}
	err := m.AddCustomAnalyzer(AnalyzerName, map[string]any{
		"type":      custom.Name,
		"tokenizer": unicode.Name,
		"token_filters": []string{
			cjk.WidthName,
			lowercase.Name,
			apostropheName,
			en.PossessiveName,
			en.StopName,
			en.SnowballStemmerName,
			hanFoldName,
			cjkFilterName,
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

	text := mapping.NewTextFieldMapping()
	text.Analyzer = AnalyzerName
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false

	kw := mapping.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	kw.Store = false
	kw.IncludeTermVectors = false
	kw.IncludeInAll = false
	kw.DocValues = false

	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("text", text)
	doc.AddFieldMappingsAt("reply", text)
	doc.AddFieldMappingsAt("ctx", text)
	for _, f := range []string{"ns", "role", "speaker", "topic", "type", fieldDay, fieldHour, fieldAt} {
		doc.AddFieldMappingsAt(f, kw)
	}
	// The session is stored, so that a search returns each match's
	// session without a read of the chunk (session-level evidence).
	session := mapping.NewKeywordFieldMapping()
	session.Analyzer = keyword.Name
	session.Store = true
	session.IncludeTermVectors = false
	session.IncludeInAll = false
	session.DocValues = false
	doc.AddFieldMappingsAt("session", session)
	// No field goes into bleve's composite _all field (IncludeInAll is
	// off above), and a disabled _all mapping drops the field itself:
	// otherwise every document still carries an empty _all field with
	// term vectors. Searches always name their fields.
	doc.AddSubDocumentMapping(allField, mapping.NewDocumentDisabledMapping())
	m.DefaultMapping = doc
	return m, nil
}

// ErrCorrupt means the index on disk could not be opened or is of another
// version; rebuild it.
var ErrCorrupt = errors.New("index is missing, corrupt or of another version")

// Open opens the index at dir, creating it if it does not exist. An index
// that cannot be opened returns an error wrapping [ErrCorrupt].
func Open(dir string) (*Index, error) { return OpenWith(dir, OpenOptions{}) }

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
	b, err := newBleve(dir, m)
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

// Count returns the number of documents that reads see (see [Index.Pin]).
func (x *Index) Count() (uint64, error) { return x.b.DocCount() }

// Apply indexes docs, removes the ids in deletes and records gen, all in
// one batch. The batch is on disk when Apply returns. It analyses as
// [Index.ApplyParts] does (a stem cache; term counts without token
// streams), but keeps nothing of a document's analysis once it is
// indexed: without parts, no string repeats across documents. The index
// is the one bleve's own Batch.Index would build.
func (x *Index) Apply(docs []Doc, deletes []string, gen uint64) error {
	parts := make([][]string, len(docs))
	for i := range docs {
		parts[i] = []string{}
		if c := docs[i].Context; c != "" {
			parts[i] = []string{c}
		}
	}
	return x.applyParts(docs, parts, deletes, gen, false)
}

// Pin makes every read (searches, counts, term statistics) see the index
// as it is now until [Index.Unpin], while batches go on being applied:
// what they add is written, and durable, but seen only once unpinned.
// The engine pins the index while it indexes an unpublished (staged)
// ingest, so that recalls meanwhile see none of it. [Index.Gen]
// reads the latest batch's generation, pinned or not. A pin holds the
// segments it sees on disk until Unpin. The index must not be pinned
// already.
func (x *Index) Pin() error {
	if err := x.b.pin(); err != nil {
		return fmt.Errorf("pinning index %s: %w", x.path, err)
	}
	return nil
}

// Unpin ends a [Index.Pin]: reads see every batch applied. It does
// nothing if the index is not pinned.
func (x *Index) Unpin() { x.b.unpin() }

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
