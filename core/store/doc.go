// Package store is HuiMemory's source of truth: one bbolt file, huimem.db,
// in the engine's home, or the same buckets in another transactional
// key-value store (see kv.go and [OpenKV]: the PostgreSQL backend's kv
// table). It holds every message verbatim, the turn chunks with their
// anchors, the chunk vectors, the content hashes of ingested sources and
// the engine's metadata; in a shared KV also the transcripts and the
// sealed weeks' archives.
//
// Everything else on disk is derived from the store and can be rebuilt from
// it: the bleve index (see core/index) and the transcripts (see archive).
// To keep those in step after a crash, every write that changes chunks also
// records the changed ids in an outbox and bumps a generation counter in
// the same transaction; the engine applies the outbox to the index and
// clears it afterwards.
//
// Buckets (keys are byte strings; "ns" is the namespace, "sess" the
// session, "tkey" eight bytes of big-endian time with the sign bit flipped
// so that keys sort by time, "seq" an eight-byte arrival counter):
//
//	meta        name → value (schema version, generation, counters, embedder)
//	msgs        ns 0 sess 0 tkey seq → message record
//	msgids      message content key → msgs key (de-duplication)
//	chunks      id → chunk record
//	chunkkeys   chunk key → id
//	sesschunks  ns 0 sess 0 tkey seq → id (a session's chunks in order)
//	sessions    ns 0 sess → session record
//	vectime     ns 0 tkey id → little-endian float32 vector (a namespace's
//	            vectors in time order; a scan is one cursor walk)
//	veckeys     id → ns 0 tkey (finds a vector by chunk id)
//	vecs        id → tkey and vector: layout 1, still read (vectors.go)
//	sources     source name → sha256 of its content
//	outbox      id → generation (chunks not yet applied to the index)
//	dirty       ns 0 sess → generation (transcripts not yet rewritten)
//	weeks       ns 0 week → sealed week record (archive path, sha256, sizes)
//	sealedsess  ns 0 sess → where a sealed session's transcript sits
//	transcripts ns 0 sess → transcript (in a shared KV only)
//	archives    ns 0 week → a sealed week's zstd archive (in a shared KV only)
//	stages      source → an unpublished staged ingest (stage.go)
//	stage/<id>  that stage's sessions and chunks (swept in steps after
//	            its publication)
//	stagerun/<id>/<batch>  tag key → a batch's records of msgids, msgsrcs,
//	            chunks, chunkkeys and veckeys, merged at publication
//	            (stagerun.go); in a home, the file huimem.db.run-<id>
//	            beside the store instead (runfile.go), with the index of
//	            its older batches' keys, huimem.db.run-<id>.keys
//	            (runkeys.go)
//
// A write transaction holds back its writes to the large buckets (msgs,
// msgids, chunks, chunkkeys, vecs, vectime, veckeys, outbox) and applies them in key
// order when it commits: bbolt splits leaves only at commit, so a large
// ingest inserting in random order would move memory quadratically.
//
// A [Store] is safe for concurrent use. bbolt allows one writer at a time.
// A store opened with [Open] holds its file exclusively, and a second
// process that opens it gets [core.ErrLocked] after its wait. With
// [OpenWith] and [Options.Shared], any number of processes hold it
// read-only at once and a writer takes it only for its writes (see
// shared.go and docs/concurrency.md).
package store
