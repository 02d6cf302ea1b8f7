// Package postgres is HuiMemory's PostgreSQL backend: the parts that let
// several `huimem serve` processes share one memory in one database.
//
// [Open] connects a pgx pool and applies the versioned schema in
// core/postgres/migrations. On that schema the package provides:
//
//   - the lexical index ([Lexical]): a tsvector per chunk built in Go from
//     core/index's own analyzer (so both backends see the same terms),
//     with the BM25 statistics kept in step in the writing transaction,
//     and a BM25 search scored as the embedded bleve index scores it;
//   - vectors: a [vector.Index] (exact cosine, cached per namespace in
//     each server) loading from the vectors table ([DB.NewVectorIndex]),
//     kept fresh by LISTEN/NOTIFY ([DB.WatchVectors]); and, when the
//     pgvector extension is installed, an HNSW copy ([DB.EnableHNSW],
//     [DB.SearchHNSW]);
//   - what concurrent writers must agree on: per-session advisory locks
//     ([LockSessionsTx]), chunk id allocation ([AllocIDTx]), generations
//     and transcript blobs.
//
// The engine does not use this package yet: docs/postgres.md has the plan
// (the interfaces the engine must take and how this package fills them),
// the schema, and the ranking details. Everything here is safe for
// concurrent use; the *Tx functions work inside a caller's transaction.
package postgres
