// Package engine is HuiMemory's memory engine: it ingests messages, cuts
// them into turn chunks with stable anchors, keeps them in the store, the
// full-text index and the vector cache, and recalls them by keyword, meaning
// and time.
//
// An [Engine] owns one home directory:
//
//	<home>/huimem.db      the store, the source of truth (core/store)
//	<home>/index/         the bleve index, derived from the store (core/index)
//	<home>/sessions/      markdown transcripts, derived from the store, and
//	                      sealed weeks as zstd archives (archive)
//	<home>/cache/         decompressed sealed weeks (storage.cache_dir)
//
// Writes go to the store first, in one transaction per ingested file, which
// also queues the changed chunks in an outbox. The outbox is then applied
// to the index. If the process dies between the two, [Open] finds the index
// behind the store and replays the outbox, or rebuilds the index when it is
// missing or damaged, before any recall can run. Recall never reads an index
// that is known to be stale. A large file is written in batches under a
// stage that readers cannot see, and indexed as it goes behind a pinned
// index (ingeststage.go, stageindex.go).
//
// An Engine is a facade over four components (see [Engine]): the shared access
// to the open store, index and vectors; the reader (recall); the writer
// (ingest and the sync of the derived index and transcripts); and the
// maintainer (seal, tidy, forget, reindex, verify). The reader and the
// writer use only the shared component, the maintainer uses the writer too,
// and each file holds one component's code, named for its concept; the table in
// docs/architecture.md lists them.
//
// The engine builds none of its parts: [Open] takes the embedder, the
// chunker and the extractors in [Options]. plugins/host's Open builds them
// from a core.Config (in process, or as plugin processes) and opens the
// engine; this package links no plugin transport.
//
// An Engine is safe for concurrent use by several goroutines. Writes are
// serialised; recalls run in parallel with each other and with writes.
// Another process that opens the same home gets core.ErrLocked.
package engine
