-- 0005: term statistics are read by term (every search, every IDF), and
-- the primary key (ns, field, term) cannot find a term without its field
-- (issue 17: 35 ms per search at 10k chunks without it).
CREATE INDEX lex_terms_term ON lex_terms (ns, term);
