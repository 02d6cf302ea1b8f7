-- 0009: the lexical index's change log. Each server keeps a copy of the
-- lexical index in memory and follows this log to keep it current
-- (core/postgres/lexmirror.go). Every apply adds one row, numbered in
-- commit order (the number is taken under a transaction-level advisory
-- lock held to the commit), with the ids of the chunks it wrote or
-- removed. Rows older than an hour are pruned; meta's lex_log_floor then
-- holds the highest number pruned, and a copy older than it loads again.
CREATE SEQUENCE lex_log_seq AS bigint;
CREATE TABLE lex_log (
	seq bigint PRIMARY KEY,
	at  timestamptz NOT NULL DEFAULT now(),
	ids text[] NOT NULL
);
