package index

// This file is the small part of bleve's root package
// (github.com/blevesearch/bleve/v2, its indexImpl in index_impl.go and
// index_meta.go) that core/index uses, rebuilt on bleve's sub-packages.
//
// Why: the root package's config.go imports expvar, which links net/http
// into every binary that imports it, and its init starts an analysis queue
// and publishes expvars. The engine must link no net/http.
//
// What it keeps: the on-disk layout is bleve's, byte for byte, so that an
// index written by bleve.New opens here and one written here opens with
// bleve.Open (see bleveimpl_test.go): index_meta.json in the index folder,
// a scorch index under store/, and the mapping saved as JSON under bleve's
// internal key "_mapping". Searches put into their context what bleve puts
// there that changes scoring (the scoring model, BM25 for our mapping), so
// that scores and order are bit-identical to bleve's.
//
// What it leaves out, because core/index never uses it: upsidedown indexes
// (only scorch is linked), in-memory indexes, mapping updates at open, file
// callback writers (encryption hooks), kNN, synonyms, facets, highlighting,
// paging, explanations, nested mappings and the expvar statistics.

import (
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/util"
	bindex "github.com/blevesearch/bleve_index_api"
)

// The names bleve's root package writes into index_meta.json for a new
// index (Config.DefaultIndexType and, from config_disk.go,
// Config.DefaultKVStore), and the file and folder names it uses.
const (
	bleveIndexType = scorch.Name // "scorch"
	bleveKVStore   = "boltdb"    // boltdb.Name, without linking upsidedown's bolt store
	bleveMetaFile  = "index_meta.json"
	bleveStoreDir  = "store"
)

// Errors with the texts of bleve's own (error.go), so that messages stay as
// they were.
var (
	errPathExists        = errors.New("cannot create new index, path already exists")
	errPathDoesNotExist  = errors.New("cannot open index, path does not exist")
	errMetaMissing       = errors.New("cannot open index, metadata missing")
	errMetaCorrupt       = errors.New("cannot open index, metadata corrupt")
	errClosed            = errors.New("index is closed")
	errUnknownIndexType  = errors.New("unknown index type")
	errEmptyID           = errors.New("document ID cannot be empty")
	errReadInconsistency = errors.New("index read inconsistency detected")
)

// analysisQueue is the pool of workers that analyse the documents of a
// batch, shared by every index of the process, as bleve's
// Config.analysisQueue is; it has bleve's 4 workers. Unlike bleve, it is
// started on first use, not at init.
var analysisQueue = sync.OnceValue(func() *bindex.AnalysisQueue {
	return bindex.NewAnalysisQueue(4)
})

// bleveMeta is index_meta.json, as bleve's indexMeta marshals it.
type bleveMeta struct {
	Storage   string         `json:"storage"`
	IndexType string         `json:"index_type"`
	Config    map[string]any `json:"config,omitempty"`
}

// bleveIndex is a scorch index with its mapping: bleve's indexImpl, cut
// down to what core/index needs. It is safe for concurrent use; after
// [bleveIndex.Close] every method returns an error.
type bleveIndex struct {
	path string
	i    bindex.Index
	m    *mapping.IndexMappingImpl

	mu   sync.RWMutex
	open bool
	// pinned, when set, is the snapshot that reads see (see [Index.Pin]).
	pinned *scorch.IndexSnapshot
}

// snapshot returns a reader of what reads see: the pinned snapshot, when
// one is pinned, else the current one. The caller holds b.mu for reading
// and closes the reader.
func (b *bleveIndex) snapshot() (bindex.IndexReader, error) {
	if b.pinned != nil {
		b.pinned.AddRef()
		return b.pinned, nil
	}
	return b.i.Reader()
}

// openReader returns a reader of what reads see (see snapshot); the
// caller closes it.
func (b *bleveIndex) openReader() (bindex.IndexReader, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if !b.open {
		return nil, errClosed
	}
	return b.snapshot()
}

// pin makes reads see the current snapshot until unpin, whatever batches
// are written meanwhile.
func (b *bleveIndex) pin() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return errClosed
	}
	if b.pinned != nil {
		return fmt.Errorf("the index is pinned already")
	}
	r, err := b.i.Reader()
	if err != nil {
		return err
	}
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		r.Close()
		return fmt.Errorf("a %T is not a scorch snapshot", r)
	}
	b.pinned = snap
	return nil
}

// unpin lets reads see the current snapshot again.
func (b *bleveIndex) unpin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dropPin()
}

// dropPin releases the pinned snapshot, if any. The caller holds b.mu.
func (b *bleveIndex) dropPin() {
	if b.pinned != nil {
		b.pinned.Close()
		b.pinned = nil
	}
}

// newBleve creates an index at path, which must not exist, as bleve.New
// does: it validates m, writes index_meta.json, creates the scorch index
// under path/store and saves m in it.
func newBleve(path string, m *mapping.IndexMappingImpl) (*bleveIndex, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.CountNested() > 0 {
		return nil, fmt.Errorf("nested mappings are not supported")
	}
	meta := bleveMeta{Storage: bleveKVStore, IndexType: bleveIndexType}
	if err := saveBleveMeta(path, &meta); err != nil {
		return nil, err
	}
	ctor := registry.IndexTypeConstructorByName(meta.IndexType)
	if ctor == nil {
		return nil, errUnknownIndexType
	}
	cfg := map[string]any{
		"create_if_missing": true,
		"error_if_exists":   true,
		"path":              filepath.Join(path, bleveStoreDir),
		// Not saved in index_meta.json: see merge.go.
		"scorchMergePlanOptions": mergePlanOptions,
	}
	i, err := ctor(meta.Storage, cfg, analysisQueue())
	if err != nil {
		return nil, err
	}
	if err := i.Open(); err != nil {
		return nil, err
	}
	mb, err := util.MarshalJSON(m)
	if err == nil {
		err = i.SetInternal(util.MappingInternalKey, mb)
	}
	if err != nil {
		i.Close()
		return nil, err
	}
	return &bleveIndex{path: path, i: i, m: m, open: true}, nil
}

// saveBleveMeta writes path/index_meta.json, creating path, and fails if
// the file exists (bleve's indexMeta.Save, without a file callback
// writer).
func saveBleveMeta(path string, meta *bleveMeta) (err error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		if os.IsExist(err) {
			return errPathExists
		}
		return err
	}
	b, err := util.MarshalJSON(meta)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(path, bleveMetaFile), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		if os.IsExist(err) {
			return errPathExists
		}
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = f.Write(b)
	return err
}

// openBleve opens the index at path as bleve.OpenUsing(path, runtime)
// does: it reads index_meta.json, opens the scorch index under path/store
// with the stored config overridden by runtime (such as "read_only" and
// "bolt_timeout"), and loads and validates the mapping saved in it. Given
// a mapping m, it uses m instead of decoding the saved one (a JSON
// decode of 0.5–0.7 ms in every process that opens the index); the
// caller vouches that the index was built with m (OpenWith: its
// version).
func openBleve(path string, runtime map[string]any, m *mapping.IndexMappingImpl) (*bleveIndex, error) {
	meta, err := readBleveMeta(path)
	if err != nil {
		return nil, err
	}
	cfg := meta.Config
	if cfg == nil {
		cfg = map[string]any{}
	}
	cfg["path"] = filepath.Join(path, bleveStoreDir)
	cfg["create_if_missing"] = false
	cfg["error_if_exists"] = false
	if _, ok := cfg["scorchMergePlanOptions"]; !ok {
		cfg["scorchMergePlanOptions"] = mergePlanOptions // see merge.go
	}
	for k, v := range runtime {
		if k == "updated_mapping" {
			return nil, fmt.Errorf("updated_mapping is not supported")
		}
		cfg[k] = v
	}
	ctor := registry.IndexTypeConstructorByName(meta.IndexType)
	if ctor == nil {
		return nil, errUnknownIndexType
	}
	i, err := ctor(meta.Storage, cfg, analysisQueue())
	if err != nil {
		return nil, err
	}
	if err := i.Open(); err != nil {
		return nil, err
	}
	if m == nil {
		if m, err = loadMapping(i); err != nil {
			i.Close()
			return nil, err
		}
	}
	return &bleveIndex{path: path, i: i, m: m, open: true}, nil
}

// readBleveMeta reads path/index_meta.json (bleve's openIndexMeta, without
// file callback readers or the recovery of an interrupted writer update,
// which only those use).
func readBleveMeta(path string) (*bleveMeta, error) {
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil, errPathDoesNotExist
	}
	b, err := os.ReadFile(filepath.Join(path, bleveMetaFile))
	if err != nil {
		return nil, errMetaMissing
	}
	var meta bleveMeta
	if err := util.UnmarshalJSON(b, &meta); err != nil {
		return nil, errMetaCorrupt
	}
	if meta.IndexType == "" {
		meta.IndexType = "upsidedown" // bleve's default for old indexes; not linked here
	}
	return &meta, nil
}

// loadMapping reads the mapping saved in i and validates it.
func loadMapping(i bindex.Index) (m *mapping.IndexMappingImpl, err error) {
	r, err := i.Reader()
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	b, err := r.GetInternal(util.MappingInternalKey)
	if err != nil {
		return nil, err
	}
	if err := util.UnmarshalJSON(b, &m); err != nil {
		return nil, fmt.Errorf("error parsing mapping JSON: %v\nmapping contents:\n%s", err, b)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.CountNested() > 0 {
		return nil, fmt.Errorf("nested mappings are not supported")
	}
	return m, nil
}

// Mapping returns the index mapping.
func (b *bleveIndex) Mapping() *mapping.IndexMappingImpl { return b.m }

// Advanced returns the scorch index itself.
func (b *bleveIndex) Advanced() (bindex.Index, error) { return b.i, nil }

// Close closes the index; later calls return an error.
func (b *bleveIndex) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.open = false
	b.dropPin()
	return b.i.Close()
}

// reader runs f on a reader of what reads see (see snapshot), or with
// live set of the current snapshot, pinned or not.
func (b *bleveIndex) reader(live bool, f func(r bindex.IndexReader) error) (err error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if !b.open {
		return errClosed
	}
	var r bindex.IndexReader
	if live {
		r, err = b.i.Reader()
	} else {
		r, err = b.snapshot()
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	return f(r)
}

// GetInternal returns the value stored under key, nil if none, as the
// latest batch left it: the index's own records (its generation, its
// version) are the writer's, pinned or not.
func (b *bleveIndex) GetInternal(key []byte) (val []byte, err error) {
	err = b.reader(true, func(r bindex.IndexReader) error {
		val, err = r.GetInternal(key)
		return err
	})
	if err != nil {
		return nil, err
	}
	return val, nil
}

// SetInternal stores val under key, on disk when it returns.
func (b *bleveIndex) SetInternal(key, val []byte) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if !b.open {
		return errClosed
	}
	return b.i.SetInternal(key, val)
}

// DocCount returns the number of documents that reads see.
func (b *bleveIndex) DocCount() (n uint64, err error) {
	err = b.reader(false, func(r bindex.IndexReader) error {
		n, err = r.DocCount()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("error opening index reader %v", err)
	}
	return n, nil
}

// bleveBatch groups updates, deletes and internal values, applied together
// by [bleveIndex.Batch]. It is not safe for concurrent use.
type bleveBatch struct {
	m        mapping.IndexMapping
	internal *bindex.Batch
}

// NewBatch returns an empty batch.
func (b *bleveIndex) NewBatch() *bleveBatch {
	return &bleveBatch{m: b.m, internal: bindex.NewBatch()}
}

// Index adds the document the mapping makes of data, under id.
func (bb *bleveBatch) Index(id string, data any) error {
	if id == "" {
		return errEmptyID
	}
	doc := document.NewDocument(id)
	if err := bb.m.MapDocument(doc, data); err != nil {
		return err
	}
	bb.internal.Update(doc)
	return nil
}

// IndexAdvanced adds doc as it is, without the mapping.
func (bb *bleveBatch) IndexAdvanced(doc *document.Document) error {
	if doc.ID() == "" {
		return errEmptyID
	}
	bb.internal.Update(doc)
	return nil
}

// Delete removes the document id, if any.
func (bb *bleveBatch) Delete(id string) {
	if id != "" {
		bb.internal.Delete(id)
	}
}

// SetInternal stores val under key.
func (bb *bleveBatch) SetInternal(key, val []byte) { bb.internal.SetInternal(key, val) }

// Batch applies bb in one segment; it is on disk when Batch returns
// (scorch's unsafe_batch is not set).
func (b *bleveIndex) Batch(bb *bleveBatch) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if !b.open {
		return errClosed
	}
	return b.i.Batch(bb.internal)
}

// bleveSearch is the part of a bleve.SearchRequest that core/index uses.
type bleveSearch struct {
	Query query.Query
	Size  int
	// Sort is as [search.ParseSortOrderStrings] takes it, such as
	// "-_score" and "_id".
	Sort []string
	// Fields names the stored text fields to return in each hit's Fields.
	Fields []string
	// Whole, when set, is Query without its namespace conjunct, for when
	// every chunk of the snapshot searched is in namespace NS: the
	// conjunct then rules nothing out, and advancing it beside the text's
	// terms was a tenth of a long question's search. A conjunct's zero
	// score added to a match's changes nothing, so the scores are the
	// same. The snapshot is the one searched, so a chunk of another
	// namespace written meanwhile cannot slip in.
	Whole query.Query
	NS    string
	// AllScores, when above 0, asks for the score of every match, not
	// only of the top Size, as long as there are no more than AllScores
	// matches (see [matchRecorder]).
	AllScores int
}

// bleveResult is what [bleveIndex.Search] found.
type bleveResult struct {
	Hits search.DocumentMatchCollection
	// All holds the score of every match when bleveSearch.AllScores asked
	// for them and they were no more than that; nil otherwise. It holds
	// the search's snapshot open until it is closed.
	All *Scores
}

// Search runs s as bleve's indexImpl.SearchInContext runs a request with
// From 0, no explanation, no facets, highlighting, kNN or paging: the top
// s.Size hits in s.Sort order, each with the stored text fields s.Fields
// names. The context carries the scoring model (BM25 when the mapping asks
// for it) just as bleve's does, so scores are bleve's to the bit.
func (b *bleveIndex) Search(ctx context.Context, s bleveSearch) (res bleveResult, err error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if !b.open {
		return res, errClosed
	}
	r, err := b.snapshot()
	if err != nil {
		return res, fmt.Errorf("error opening index reader %v", err)
	}
	defer func() {
		if res.All != nil && err == nil {
			return // the snapshot is res.All's to close
		}
		res.All = nil
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()

	// The scoring model: without it, term searchers fall back to tf-idf.
	model := bindex.DefaultScoringModel
	if b.m.ScoringModel == bindex.BM25Scoring {
		model = bindex.BM25Scoring
	}
	ctx = context.WithValue(ctx, search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return model }))
	// Bytes read, accounted to scorch's statistics as bleve does.
	var cost uint64
	ctx = context.WithValue(ctx, search.SearchIOStatsCallbackKey,
		search.SearchIOStatsCallbackFunc(func(n uint64) { cost += n }))
	defer func() {
		if is, ok := r.(*scorch.IndexSnapshot); ok {
			is.UpdateIOStats(cost)
		}
		search.RecordSearchCost(ctx, search.DoneM, 0)
	}()
	// A limit on term searchers, if the caller's context sets one.
	ctx = search.ContextWithTermSearchersCounter(ctx)

	coll := collector.NewTopNCollector(s.Size, 0, search.ParseSortOrderStrings(s.Sort))
	q := s.Query
	if s.Whole != nil && allIn(ctx, r, "ns", s.NS) {
		q = s.Whole
	}
	searcher, err := q.Searcher(ctx, r, b.m, search.SearcherOptions{})
	if err != nil {
		return res, err
	}
	defer func() {
		if serr := searcher.Close(); err == nil && serr != nil {
			err = serr
		}
	}()
	var rec *matchRecorder
	if s.AllScores > 0 {
		rec = &matchRecorder{Searcher: searcher, limit: s.AllScores}
		searcher = rec
	}
	if s.Size > 0 {
		searcher = &topGate{Searcher: searcher, size: s.Size}
	}
	if err := coll.Collect(ctx, searcher, r); err != nil {
		return res, err
	}
	res.Hits = coll.Results()
	if rec != nil && !rec.over {
		res.All = &Scores{r: r, n: rec.n, kept: rec.kept}
	}
	if len(s.Fields) == 0 {
		return res, nil
	}
	var stored uint64
	for _, h := range res.Hits {
		n, err := loadTextFields(h, s.Fields, r)
		if err != nil {
			return res, err
		}
		stored += n
	}
	cost += stored
	search.RecordSearchCost(ctx, search.AddM, stored)
	return res, nil
}

// allIn reports whether every live document of r holds term in field
// (a keyword field that each document has once): whether the term's
// postings, less the deleted documents, are as many as the documents.
func allIn(ctx context.Context, r bindex.IndexReader, field, term string) bool {
	n, err := r.DocCount()
	if err != nil || n == 0 {
		return false
	}
	tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
	if err != nil {
		return false
	}
	defer tfr.Close()
	return tfr.Count() == n
}

// topGate is a searcher that passes on only the matches that can still
// be among the size best by score: those that score at least the
// size-th best score of the matches before them. The collector reads
// the id of every match it is handed, to break ties of score by id (a
// lookup of the id's stored field, most of the collector's cost on a
// large index); a match below that score cannot enter the top size
// whatever its id, so leaving it out changes no hit. Ties with the
// size-th score pass, for the collector to break.
type topGate struct {
	search.Searcher
	size int
	best scoreHeap // the size best scores seen, the least first
}

func (g *topGate) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	for {
		d, err := g.Searcher.Next(ctx)
		if d == nil || err != nil {
			return d, err
		}
		if g.pass(d.Score) {
			return d, nil
		}
		ctx.DocumentMatchPool.Put(d)
	}
}

// pass reports whether a match of score can be among the size best, and
// notes the score.
func (g *topGate) pass(score float64) bool {
	if len(g.best) < g.size {
		heap.Push(&g.best, score)
		return true
	}
	if score < g.best[0] {
		return false
	}
	if score > g.best[0] {
		g.best[0] = score
		heap.Fix(&g.best, 0)
	}
	return true
}

// scoreHeap is a min-heap of scores.
type scoreHeap []float64

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// matchRecorder is a searcher that notes the score of every document
// its searcher returns, the way the collector sees them, up to limit
// documents. The collector scores every match of a query to find the top
// ones; keeping the scores lets a caller read the score of a match
// outside the top without searching again.
type matchRecorder struct {
	search.Searcher
	limit int
	n     int
	last  uint64
	kept  matchBlocks
	over  bool // more than limit matches, an id of another shape, or out of order
}

// matchBlock holds matchBlockLen matches: scorch's ids (8 bytes,
// big-endian) with their scores.
type matchBlock struct {
	docs  [matchBlockLen]uint64
	score [matchBlockLen]float64
}

// matchBlockLen is the number of matches a block holds (16 KiB). The
// matches are kept in blocks rather than one growing slice so that
// keeping n matches allocates n×16 bytes and at most one block more,
// not twice that in copies as the slice grows (a long question matches
// a few thousand chunks of a 5k-chunk home).
const matchBlockLen = 1024

// matchBlocks holds matches in ascending order of id, matchBlockLen a
// block, the last block filled up to n%matchBlockLen.
type matchBlocks []*matchBlock

func (m *matchRecorder) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	d, err := m.Searcher.Next(ctx)
	m.note(d)
	return d, err
}

func (m *matchRecorder) Advance(ctx *search.SearchContext, id bindex.IndexInternalID) (*search.DocumentMatch, error) {
	d, err := m.Searcher.Advance(ctx, id)
	m.note(d)
	return d, err
}

func (m *matchRecorder) note(d *search.DocumentMatch) {
	if d == nil || m.over {
		return
	}
	if m.n == m.limit || len(d.IndexInternalID) != 8 {
		m.over, m.kept = true, nil
		return
	}
	doc := binary.BigEndian.Uint64(d.IndexInternalID)
	if m.n > 0 && doc <= m.last {
		m.over, m.kept = true, nil // Scores.Of searches them in order
		return
	}
	i := m.n % matchBlockLen
	if i == 0 {
		m.kept = append(m.kept, new(matchBlock))
	}
	b := m.kept[len(m.kept)-1]
	b.docs[i], b.score[i] = doc, d.Score
	m.n, m.last = m.n+1, doc
}

// find returns the score of doc among the n matches, and whether it is
// there.
func (k matchBlocks) find(n int, doc uint64) (float64, bool) {
	// The first block whose first id is past doc; doc can only be in the
	// one before.
	j := sort.Search(len(k), func(j int) bool { return k[j].docs[0] > doc })
	if j == 0 {
		return 0, false
	}
	b := k[j-1]
	size := matchBlockLen
	if j == len(k) {
		size = n - (len(k)-1)*matchBlockLen
	}
	if i, ok := slices.BinarySearch(b.docs[:size], doc); ok {
		return b.score[i], true
	}
	return 0, false
}

// Scores holds the BM25 score of every chunk a search matched (see
// [Index.SearchAll]), and the index snapshot the search read, until
// Close.
type Scores struct {
	r    bindex.IndexReader
	n    int
	kept matchBlocks
}

// Of returns the scores of the chunks in ids that the search matched. A
// chunk's score is found through its id's posting (one term lookup an
// id), not by reading every match's id: that read every match's stored
// fields, and mapped them.
func (s *Scores) Of(ids []string) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	internal, err := internalIDs(s.r, ids)
	if err != nil {
		return nil, fmt.Errorf("reading index: %w", err)
	}
	for id, in := range internal {
		if len(in) != 8 {
			continue
		}
		if score, ok := s.kept.find(s.n, binary.BigEndian.Uint64(in)); ok {
			out[id] = score
		}
	}
	return out, nil
}

// Close releases the search's snapshot. Safe on nil and more than once.
func (s *Scores) Close() error {
	if s == nil || s.r == nil {
		return nil
	}
	r := s.r
	s.r = nil
	return r.Close()
}

// loadTextFields adds to h the stored text fields named in fields, as
// bleve's LoadAndHighlightFields does for text fields (core/index stores no
// other kind), and returns the stored bytes read.
func loadTextFields(h *search.DocumentMatch, fields []string, r bindex.IndexReader) (uint64, error) {
	doc, err := r.Document(h.ID)
	if doc == nil {
		return 0, errReadInconsistency
	}
	if err != nil || h.Fields != nil {
		return 0, nil // as bleve: a document it cannot read keeps no fields
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f] {
			continue
		}
		seen[f] = true
		doc.VisitFields(func(df bindex.Field) {
			if tf, ok := df.(bindex.TextField); ok && (f == "*" || df.Name() == f) {
				h.AddFieldValue(df.Name(), tf.Text())
			}
		})
	}
	return doc.StoredFieldsBytes(), nil
}
