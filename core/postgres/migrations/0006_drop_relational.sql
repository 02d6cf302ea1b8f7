-- 0006: drop the first design's relational store. Since version 4 the
-- engine's store runs on kv and kv_buckets (transcripts and sealed weeks'
-- archives included), and the store itself sends the vector notifications
-- (core/store's notify.go), so nothing reads or writes these tables any
-- more. What stays: meta (the lexical index's generation, ns '' key
-- 'lex_gen'), the lex_* tables and functions, kv, kv_buckets and version
-- 5's index.

-- Version 3's notifications on the vectors table.
DROP TRIGGER vectors_notify_insert ON vectors;
DROP TRIGGER vectors_notify_update ON vectors;
DROP TRIGGER vectors_notify_delete ON vectors;
DROP FUNCTION notify_vectors();

-- The pgvector copy of the vectors table, made outside the versioned
-- schema by the HNSW option that went with it.
DROP TABLE IF EXISTS vectors_hnsw;

-- Version 1's tables but meta; chunks before chunk_keys, which it
-- references.
DROP TABLE chunks;
DROP TABLE chunk_keys;
DROP TABLE messages;
DROP TABLE sessions;
DROP TABLE vectors;
DROP TABLE sources;
DROP TABLE source_contents;
DROP TABLE source_claims;
DROP TABLE transcripts;
DROP TABLE weeks;
DROP TABLE sealed_sessions;
DROP TABLE generations;
DROP SEQUENCE message_seq;
