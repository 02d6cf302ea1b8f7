-- 0007: what a search reads per candidate, made cheaper.
--
-- tf: each chunk's terms with their frequencies as a map, beside the
-- tsvector: {"term": tf_text + 4096*tf_reply + 4096^2*tf_ctx, ...}.
-- Scoring a candidate looks each query term up in the map, a binary
-- search, where reading the frequencies out of the tsvector took a
-- set-returning function per candidate (lex_tf, which stays for older
-- binaries). Rows up to 8 kB stay uncompressed, so that a lookup need not
-- decompress the map.
--
-- One GIN index per field (text A, reply B, ctx C) instead of one over the
-- whole tsvector: a search finds the chunks that hold a query term in a
-- given field without reading the others (the reply field holds twice
-- the text field's tokens, and with a small reply boost the candidates
-- that hold a term in the text field are the ones that matter).

DROP INDEX lex_docs_tsv;
ALTER TABLE lex_docs SET (toast_tuple_target = 8160);
ALTER TABLE lex_docs ADD COLUMN tf jsonb;
UPDATE lex_docs d SET tf = coalesce((
	SELECT jsonb_object_agg(u.lexeme, (
		SELECT sum(CASE p % 4 WHEN 1 THEN (p / 4)::bigint WHEN 2 THEN (p / 4)::bigint << 12 ELSE (p / 4)::bigint << 24 END)
		FROM unnest(u.positions) AS p))
	FROM unnest(d.tsv) AS u), '{}'::jsonb);
ALTER TABLE lex_docs ALTER COLUMN tf SET NOT NULL;
CREATE INDEX lex_docs_text ON lex_docs USING gin (ns, ts_filter(tsv, '{a}'));
CREATE INDEX lex_docs_reply ON lex_docs USING gin (ns, ts_filter(tsv, '{b}'));
CREATE INDEX lex_docs_ctx ON lex_docs USING gin (ns, ts_filter(tsv, '{c}'));
