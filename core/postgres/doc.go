// Package postgres is HuiMemory's PostgreSQL backend: what lets several
// `huimem serve` processes share one memory in one database.
//
// [Open] connects a pgx pool and applies the versioned schema in
// core/postgres/migrations. [OpenBackend] puts the engine on it:
//
//   - the store ([DB.KV]): core/store's key-value interface on the kv and
//     kv_buckets tables, so the engine runs the same store code as on a
//     home's bbolt file (transcripts and sealed weeks' archives
//     included), with store writes serialised across servers and the
//     engine's writer lock held as an advisory lock;
//   - the lexical index ([Lexical], and [EngineIndex] as the engine uses
//     it): a tsvector per chunk built in Go from core/index's own analyzer
//     (so both backends see the same terms), with the BM25 statistics
//     kept in step in the writing transaction, and a BM25 search scored
//     as the embedded bleve index scores it; [EngineIndex] answers
//     searches from each server's in-memory copy of the index, which
//     follows every server's writes through a change log (lexlog.go,
//     lexmirror.go, lexmirror_search.go);
//   - fresh vector caches ([DB.WatchVectors]): each server keeps its own
//     core/vector cache, loaded from the store; the store's transactions
//     announce the namespaces and days they change and their generation
//     on LISTEN/NOTIFY (core/store's notify.go), and the watcher drops
//     what changed and tells the engine how far it has heard;
//   - optionally ([HNSW], storage.postgres.hnsw), pgvector's HNSW index
//     instead of the exact scan, its table kept by the store's
//     transactions (hnsw.go, hnswmirror.go, hnswsearch.go).
//
// docs/postgres.md has the schema and the ranking details. Everything
// here is safe for concurrent use.
package postgres
