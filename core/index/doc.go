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
//	ctx        the text of the chunks just before and after it in its
//	           session, same analyzer, searched with a lower boost
//	time       the chunk's first message time (datetime)
//	ns         namespace (keyword; "~" stands for the default namespace)
//	session, role, speaker, topic, type   keywords, for filters
//
// Nothing is stored but the index itself: texts and vectors live in the
// store. The index records the store generation it reflects (see
// [Index.Gen]) so that the engine can tell when the two have diverged.
package index
