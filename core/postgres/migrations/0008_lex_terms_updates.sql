-- 0008: every index batch upserts the statistics of each term it holds,
-- most of them terms the table has: that upsert is made cheaper.
--
-- Term statistics are read through lex_terms' primary key (ns, field,
-- term), with the fields listed (field = ANY('{A,B,C}')), and the index
-- by term that version 5 added goes: keeping it took a third of the
-- upsert's time. With no index on df and room left on each page, an
-- update of a term's df stays on its page (a HOT update) and writes no
-- index entry: on 523k terms, an upsert of 28k took 490 ms at the
-- default fill factor and 400 ms at 60%; 70% leaves room for a term's
-- next updates at less growth. Pages written from now on keep the room;
-- the ones there fill it as their rows move.
DROP INDEX lex_terms_term;
ALTER TABLE lex_terms SET (fillfactor = 70);
