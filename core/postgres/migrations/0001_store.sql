-- 0001: the store. Every table and every index leads with ns, the
-- namespace ('' is the default one).

CREATE TABLE meta (
	ns    text NOT NULL,
	key   text NOT NULL,
	value bytea NOT NULL,
	PRIMARY KEY (ns, key)
);

-- Arrival order across every server.
CREATE SEQUENCE message_seq AS bigint;

CREATE TABLE messages (
	ns       text NOT NULL,
	session  text NOT NULL,
	t        timestamptz NOT NULL,
	-- the original UTC offset of t, in seconds east
	t_offset integer NOT NULL,
	seq      bigint NOT NULL,
	msg_key  bytea NOT NULL,
	role     text NOT NULL DEFAULT '',
	speaker  text NOT NULL DEFAULT '',
	ref      text NOT NULL DEFAULT '',
	text     text NOT NULL,
	lines    integer NOT NULL,
	sealed   boolean NOT NULL DEFAULT false,
	PRIMARY KEY (ns, session, t, seq),
	UNIQUE (ns, msg_key)
);

-- The id registry: a chunk key's short id, unique in its namespace.
CREATE TABLE chunk_keys (
	ns        text NOT NULL,
	chunk_key bytea NOT NULL,
	id        text NOT NULL,
	PRIMARY KEY (ns, chunk_key),
	UNIQUE (ns, id)
);

CREATE TABLE chunks (
	ns          text NOT NULL,
	id          text NOT NULL,
	chunk_key   bytea NOT NULL,
	session     text NOT NULL,
	ord         integer NOT NULL,
	prev        text NOT NULL DEFAULT '',
	next        text NOT NULL DEFAULT '',
	t           timestamptz NOT NULL,
	t_offset    integer NOT NULL,
	t_end       timestamptz NOT NULL,
	end_offset  integer NOT NULL,
	file        text NOT NULL,
	line_start  integer NOT NULL,
	line_end    integer NOT NULL,
	-- the chunk's messages as [[unix nanos, seq], ...]
	msgs        jsonb NOT NULL,
	text        text NOT NULL DEFAULT '',
	section     text NOT NULL DEFAULT '',
	topic       text NOT NULL DEFAULT '',
	memories    jsonb,
	roles       text[] NOT NULL DEFAULT '{}',
	speakers    text[] NOT NULL DEFAULT '{}',
	hash        text NOT NULL,
	ctx_hash    text NOT NULL DEFAULT '',
	pending_extract text[] NOT NULL DEFAULT '{}',
	PRIMARY KEY (ns, id),
	FOREIGN KEY (ns, chunk_key) REFERENCES chunk_keys (ns, chunk_key),
	UNIQUE (ns, session, ord) DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX chunks_time ON chunks (ns, t);
CREATE INDEX chunks_pending ON chunks (ns, id) WHERE cardinality(pending_extract) > 0;

CREATE TABLE sessions (
	ns       text NOT NULL,
	session  text NOT NULL,
	file     text NOT NULL,
	first_t  text NOT NULL,
	last_t   text NOT NULL,
	count    integer NOT NULL,
	chunks   integer NOT NULL,
	stale    text[] NOT NULL DEFAULT '{}',
	PRIMARY KEY (ns, session)
);

-- Little-endian float32 vectors (core/store's EncodeVector).
CREATE TABLE vectors (
	ns  text NOT NULL,
	id  text NOT NULL,
	t   timestamptz NOT NULL,
	vec bytea NOT NULL,
	PRIMARY KEY (ns, id)
);
CREATE INDEX vectors_time ON vectors (ns, t, id);

CREATE TABLE sources (
	ns   text NOT NULL,
	name text NOT NULL,
	hash text NOT NULL,
	PRIMARY KEY (ns, name)
);
CREATE TABLE source_contents (
	ns   text NOT NULL,
	hash text NOT NULL,
	PRIMARY KEY (ns, hash)
);
-- Which tracked source holds which message.
CREATE TABLE source_claims (
	ns      text NOT NULL,
	source  text NOT NULL,
	msg_key bytea NOT NULL,
	PRIMARY KEY (ns, source, msg_key)
);
CREATE INDEX source_claims_msg ON source_claims (ns, msg_key);

-- Transcripts, written whole (the embedded home's sessions/ folder).
CREATE TABLE transcripts (
	ns      text NOT NULL,
	path    text NOT NULL,
	data    bytea NOT NULL,
	sha256  text NOT NULL,
	updated timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (ns, path)
);

-- Sealed weeks and their zstd archives.
CREATE TABLE weeks (
	ns            text NOT NULL,
	week          text NOT NULL,
	seal          bigint NOT NULL,
	archive_path  text NOT NULL,
	archive       bytea NOT NULL,
	sha256        text NOT NULL,
	archive_bytes bigint NOT NULL,
	raw_bytes     bigint NOT NULL,
	files         integer NOT NULL,
	sessions      integer NOT NULL,
	sealed_at     timestamptz NOT NULL,
	PRIMARY KEY (ns, week)
);
CREATE TABLE sealed_sessions (
	ns      text NOT NULL,
	session text NOT NULL,
	week    text NOT NULL,
	seal    bigint NOT NULL,
	file    text NOT NULL,
	PRIMARY KEY (ns, session)
);
CREATE INDEX sealed_sessions_week ON sealed_sessions (ns, week);

-- The generation of each namespace: bumped by every write that changes
-- chunks, so that a server can tell its caches are behind.
CREATE TABLE generations (
	ns  text NOT NULL PRIMARY KEY,
	gen bigint NOT NULL
);
