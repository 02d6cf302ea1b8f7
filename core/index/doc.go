// Package index is HuiMemory's full-text index: a bleve v2 index with BM25
// scoring, derived from the store and rebuilt from it at will.
//
// Each chunk is one document, keyed by its chunk id, with these fields:
//
//	text       the chunk's content (without its assistant messages) with speaker names, analysed by the
//	           "huimem" analyzer (CJK bigrams for Chinese, Japanese and
//	           Korean; lower-cased, stop-word-filtered, snowball-stemmed
//	           tokens for Latin text)
//	reply      the chunk's assistant messages, same analyzer, searched
//	           with its own boost: BM25 normalises length per field, so a
//	           long reply does not drown the user's short message
//	ctx        context given with the document (Doc.Context), same
//	           analyzer, searched with Search.ContextBoost; the engine
//	           leaves it empty since it adds the neighbours' scores at
//	           query time, and indexes written before that hold the
//	           text of the chunks just before and after each chunk
//	tday, thour, tat   the chunk's first message time in UTC as
//	           keyword terms: its day, its hour and the time to the
//	           nanosecond (timefields.go); a window is the term ranges
//	           of its whole days and hours and of its exact edges
//	ns         namespace (keyword; "~" stands for the default namespace)
//	session, role, speaker, topic, type   keywords, for filters
//
// bleve's composite _all field is turned off: every search names its
// fields. Only the session is stored besides the index itself, so that a
// match carries its session; texts and vectors live in the store.
//
// The package uses bleve's sub-packages (scorch, mapping, query,
// collector), never bleve's root package, whose expvar import would link
// net/http into the engine: bleveimpl.go does for it what the root
// package's indexImpl did, with the same files on disk (index_meta.json,
// the scorch index under store/, the mapping under bleve's "_mapping"
// key) and the same scores, so that bleve.Open reads our indexes and we
// read one bleve.New wrote.
//
// The index records the store generation it reflects (see
// [Index.Gen]) so that the engine can tell when the two have diverged.
//
// [Index.Pin] makes every read see the index as it is while batches go
// on being written, until [Index.Unpin]: the engine indexes a large
// ingest as it goes, and readers must not see it before it is published.
//
// bleve's BM25 takes a field's average length to be the number of
// distinct terms in each segment's dictionary, summed over segments and
// divided by the number of chunks. That sum changes as scorch merges
// segments in the background, so the same data can score, and rank a few
// deep hits, differently from one run to the next.
//
// Persisted segments are read-only shared memory maps of their files.
// [Index.ReleaseMapped] lets the process's resident set drop the pages
// that reads and merges mapped (they stay in the page cache), so that a
// bulk ingest's resident memory need not grow with the index it builds.
package index
