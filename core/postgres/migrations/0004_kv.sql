-- 0004: the engine's store as ordered buckets of byte keys (core/store's
-- KV interface, issue 17). The engine runs the same store code on these
-- two tables as on a home's bbolt file, so every record, every id and
-- every anchor has one definition for both backends. Keys carry the
-- namespace first wherever the embedded store's do (store.NamespacePrefix),
-- so a namespace is still a range of keys.

CREATE TABLE kv_buckets (
	name bytea PRIMARY KEY,
	-- the bucket's NextSequence counter
	seq  bigint NOT NULL DEFAULT 0
);

-- bytea compares bytewise, as bbolt orders keys.
CREATE TABLE kv (
	bucket bytea NOT NULL,
	key    bytea NOT NULL,
	value  bytea NOT NULL,
	PRIMARY KEY (bucket, key)
);
