-- 0002: the lexical index. One row per chunk; tsv holds every analysed
-- term of the chunk's three fields with weight A (text), B (reply) or
-- C (ctx). A position does not say where the term is: it carries the
-- term's frequency in that field, as 4*tf + field (1, 2, 3), so that BM25
-- can be computed from the tsvector alone (see core/postgres/lexical.go).

CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE lex_docs (
	ns        text NOT NULL,
	id        text NOT NULL,
	session   text NOT NULL,
	t         timestamptz NOT NULL,
	tsv       tsvector NOT NULL,
	-- field lengths in analysed tokens
	len_text  integer NOT NULL,
	len_reply integer NOT NULL,
	len_ctx   integer NOT NULL,
	roles     text[] NOT NULL DEFAULT '{}',
	speakers  text[] NOT NULL DEFAULT '{}',
	topic     text NOT NULL DEFAULT '',
	types     text[] NOT NULL DEFAULT '{}',
	PRIMARY KEY (ns, id)
);
CREATE INDEX lex_docs_tsv ON lex_docs USING gin (ns, tsv);
CREATE INDEX lex_docs_time ON lex_docs (ns, t);

-- Document frequency of each term per field: field is 'A', 'B' or 'C'.
CREATE TABLE lex_terms (
	ns    text NOT NULL,
	field "char" NOT NULL,
	term  text NOT NULL,
	df    integer NOT NULL,
	PRIMARY KEY (ns, field, term)
);

-- Per-namespace totals: documents, distinct terms and tokens per field.
CREATE TABLE lex_stats (
	ns           text NOT NULL PRIMARY KEY,
	docs         bigint NOT NULL,
	terms_text   bigint NOT NULL,
	terms_reply  bigint NOT NULL,
	terms_ctx    bigint NOT NULL,
	tokens_text  bigint NOT NULL,
	tokens_reply bigint NOT NULL,
	tokens_ctx   bigint NOT NULL
);

-- lex_tf returns the frequencies of each of terms in the text, reply and
-- ctx fields of tsv, reading the 4*tf + field positions written by Go.
CREATE FUNCTION lex_tf(tsv tsvector, terms text[],
	OUT term text, OUT tf_text integer, OUT tf_reply integer, OUT tf_ctx integer)
RETURNS SETOF record LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT u.lexeme,
		coalesce(max(p / 4) FILTER (WHERE p % 4 = 1), 0),
		coalesce(max(p / 4) FILTER (WHERE p % 4 = 2), 0),
		coalesce(max(p / 4) FILTER (WHERE p % 4 = 3), 0)
	FROM unnest(ts_delete(tsv, tsvector_to_array(ts_delete(tsv, terms)))) AS u,
		unnest(u.positions) AS p
	GROUP BY u.lexeme
$$;

-- lex_bm25 is bleve's BM25 term frequency part: k1*sqrt(tf) / (sqrt(tf) +
-- k1*(1 - b + b*len/avg)), with len recovered as bleve recovers it from
-- its float32 norm 1/sqrt(len).
CREATE FUNCTION lex_bm25(tf integer, len integer, avg float8, k1 float8, b float8)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT k1 * sqrt(tf) / (sqrt(tf) + k1 * (1 - b + b * (1 / (n * n)) / avg))
	FROM (SELECT ((1 / sqrt(greatest(len, 1)))::real)::float8 AS n) s
$$;
