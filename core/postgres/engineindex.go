package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/index"
)

// genKey is the key of the meta row, in the default namespace, that
// holds the index generation: the store generation the lexical index
// reflects, one value for the whole database, as the bleve index keeps
// one for its home.
const genKey = "lex_gen"

// versionKey is the key of the meta row that holds the [index.Version]
// whose analyzer made the lexical rows' terms. A database whose rows were
// made by another version (or by a build that recorded none) is
// [EngineIndex.Stale], and the engine rebuilds its rows.
const versionKey = "lex_version"

// EngineIndex is the lexical index as the engine uses it: the methods of
// [index.Index] (the engine's Lexical interface, and Reset for a rebuild)
// over every namespace of the database. Statistics for scoring are per
// namespace (see [Lexical.Search]). Chunk ids are unique across the
// database, as they are across a home (the store keys chunks by id
// alone).
//
// Methods without a context (Apply, ApplyParts, Gen, Count, Reset) run
// with [context.Background]. It is safe for concurrent use, by any
// number of processes.
//
// Searches with text, IDF and Presence are answered from an in-memory
// copy of the index that follows every server's writes (lexmirror.go),
// once it has loaded in the background; until then, and whenever the
// copy cannot answer, from the SQL.
type EngineIndex struct {
	db *DB
	lx *Lexical
	m  *lexMirror
}

// EngineIndex returns the database's lexical index for the engine, with
// no in-memory copy when the configuration's NoLexicalCopy is set. Close
// it to stop its copy's loading.
func (db *DB) EngineIndex() *EngineIndex {
	m := newLexMirror(db)
	if db.cfg.NoLexicalCopy {
		m.off = true
		m.close()
	}
	return &EngineIndex{db: db, lx: db.Lexical(), m: m}
}

// Apply indexes docs (each in its namespace, Doc.NS; a doc already
// indexed is replaced), removes the chunks in deletes, whatever their
// namespace, and records gen as the index generation, all in one
// transaction.
func (x *EngineIndex) Apply(docs []index.Doc, deletes []string, gen uint64) error {
	return x.ApplyParts(docs, nil, deletes, gen)
}

// ApplyParts is [EngineIndex.Apply] with each document's context given in
// parts: parts[i], when not nil, replaces docs[i].Context with the
// neighbours' texts; each is analysed on its own and their term
// frequencies and lengths are summed, as [index.Index.ApplyParts] does.
// Each distinct string is analysed once per call.
//
// As in a bleve batch, a later document with the same id replaces an
// earlier one, and an id in deletes removes the document even if docs
// holds it. A document replaces the chunk of its id in its own namespace
// only (a chunk's id derives from a key that holds its namespace); a
// delete finds the chunk in whichever namespace holds it, probing each
// namespace's primary key (namespaces × ids probes).
//
// Namespaces are written in order, and within each the statistics in
// (field, term) order (see [Lexical.ApplyTx]), so concurrent writers
// do not deadlock; the generation row is written last.
func (x *EngineIndex) ApplyParts(docs []index.Doc, parts [][]string, deletes []string, gen uint64) error {
	ctx := context.Background()
	byNS := groupByNS(docs, parts, deletes)
	// Analyse before the transaction, so that a retry does not repeat it.
	an := newAnalyses()
	fields := map[string][][3]field{}
	for ns, g := range byNS {
		fs, err := an.docs(g.docs, g.parts)
		if err != nil {
			return err
		}
		fields[ns] = fs
	}
	return x.db.InTx(ctx, func(tx pgx.Tx) error {
		// The first documents of a new database record the analyzer's
		// version; rows without one were made before versions were kept.
		_, err := tx.Exec(ctx, `INSERT INTO meta (ns, key, value) SELECT '', $1, $2
			WHERE NOT EXISTS (SELECT 1 FROM lex_stats WHERE docs > 0)
			ON CONFLICT (ns, key) DO NOTHING`, versionKey, []byte(strconv.Itoa(index.Version)))
		if err != nil {
			return fmt.Errorf("recording the analyzer version: %w", err)
		}
		gone, err := findDeleted(ctx, tx, deletes)
		if err != nil {
			return err
		}
		for _, ns := range nsOrder(byNS, gone) {
			var ds []index.Doc
			if g := byNS[ns]; g != nil {
				ds = g.docs
			}
			if err := applyTx(ctx, tx, ns, ds, fields[ns], gone[ns]); err != nil {
				return fmt.Errorf("indexing namespace %q: %w", ns, err)
			}
		}
		if err := logChange(ctx, tx, changed(byNS, deletes)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO meta (ns, key, value) VALUES ('', $1, $2)
			ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value`,
			genKey, []byte(strconv.FormatUint(gen, 10)))
		if err != nil {
			return fmt.Errorf("recording the index generation: %w", err)
		}
		return nil
	})
}

// nsDocs are the documents of one namespace in an apply, with their
// context parts (nil where a document has none).
type nsDocs struct {
	docs  []index.Doc
	parts [][]string
}

// groupByNS groups docs, and their parts, by namespace, keeping the last
// document of each id unless the id is in deletes.
func groupByNS(docs []index.Doc, parts [][]string, deletes []string) map[string]*nsDocs {
	deleted := make(map[string]bool, len(deletes))
	for _, id := range deletes {
		deleted[id] = true
	}
	last := make(map[string]int, len(docs))
	for i := range docs {
		last[docs[i].ID] = i
	}
	byNS := map[string]*nsDocs{}
	for i := range docs {
		d := &docs[i]
		if deleted[d.ID] || last[d.ID] != i {
			continue
		}
		g := byNS[d.NS]
		if g == nil {
			g = &nsDocs{}
			byNS[d.NS] = g
		}
		var p []string
		if i < len(parts) {
			p = parts[i]
		}
		g.docs, g.parts = append(g.docs, *d), append(g.parts, p)
	}
	return byNS
}

// changed returns the ids an apply writes or removes.
func changed(byNS map[string]*nsDocs, deletes []string) []string {
	ids := slices.Clone(deletes)
	for _, g := range byNS {
		ids = withIDs(ids, g.docs)
	}
	return ids
}

// findDeleted returns the ids in deletes that are indexed, by the
// namespace that holds them.
func findDeleted(ctx context.Context, tx pgx.Tx, deletes []string) (map[string][]string, error) {
	gone := map[string][]string{}
	if len(deletes) == 0 {
		return gone, nil
	}
	rows, err := tx.Query(ctx, `SELECT ns, id FROM lex_docs
		WHERE ns = ANY(ARRAY(SELECT ns FROM lex_stats)) AND id = ANY($1)`, deletes)
	if err != nil {
		return nil, fmt.Errorf("finding deleted chunks: %w", err)
	}
	for rows.Next() {
		var ns, id string
		if err := rows.Scan(&ns, &id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("finding deleted chunks: %w", err)
		}
		gone[ns] = append(gone[ns], id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("finding deleted chunks: %w", err)
	}
	return gone, nil
}

// nsOrder returns the namespaces an apply writes, those with documents or
// deletions, in order.
func nsOrder(byNS map[string]*nsDocs, gone map[string][]string) []string {
	var nss []string
	for ns := range byNS {
		nss = append(nss, ns)
	}
	for ns := range gone {
		if byNS[ns] == nil {
			nss = append(nss, ns)
		}
	}
	slices.Sort(nss)
	return nss
}

// Search runs a BM25 search in namespace s.NS (see [Lexical.Search]).
func (x *EngineIndex) Search(ctx context.Context, s index.Search) ([]index.Match, error) {
	if s.Text != "" && s.Size > 0 {
		if ms, ok := x.m.search(ctx, s); ok {
			return ms, nil
		}
	}
	return x.lx.Search(ctx, s)
}

// Matching returns the ids of the chunks of namespace s.NS that pass s's
// window, IDs and Filter, in id order (see [Lexical.Matching]).
func (x *EngineIndex) Matching(ctx context.Context, s index.Search) ([]string, error) {
	return x.lx.Matching(ctx, s)
}

// Analyze returns the terms the index makes of text, in order, with
// repeats; nil if the analyser cannot be built.
func (x *EngineIndex) Analyze(text string) []string {
	out, err := Analyze(text)
	if err != nil {
		return nil
	}
	return out
}

// IDF returns the BM25 inverse document frequency of each term over the
// chunks' own text (the text and reply fields: df is the number of
// chunks holding the term in text plus the number holding it in reply,
// at most N), ln(1 + (N - df + 0.5) / (df + 0.5)), and N, the number of
// chunks, as [index.Index.IDF] does. The embedded index counts over its
// home; here the counts are over all namespaces of the database together
// (one snapshot), which is the same when the database holds one
// namespace. It probes lex_terms once per namespace and term.
func (x *EngineIndex) IDF(ctx context.Context, terms []string) ([]float64, uint64, error) {
	if out, n, ok := x.m.idf(ctx, terms); ok {
		return out, n, nil
	}
	var n int64
	var dfs []int64
	err := x.db.pool.QueryRow(ctx, `SELECT
			(SELECT coalesce(sum(docs), 0) FROM lex_stats)::bigint,
			ARRAY(SELECT coalesce((SELECT sum(l.df) FROM lex_terms l
					WHERE l.ns = ANY(ARRAY(SELECT ns FROM lex_stats)) AND l.field = ANY('{A,B}'::"char"[]) AND l.term = u.t), 0)::bigint
				FROM unnest($1::text[]) WITH ORDINALITY AS u(t, o) ORDER BY u.o)`,
		terms).Scan(&n, &dfs)
	if err != nil {
		return nil, 0, fmt.Errorf("reading term statistics: %w", err)
	}
	if len(dfs) != len(terms) {
		return nil, 0, fmt.Errorf("reading term statistics: %d frequencies for %d terms", len(dfs), len(terms))
	}
	out := make([]float64, len(terms))
	for i := range terms {
		df := float64(min(dfs[i], n))
		out[i] = math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
	}
	return out, uint64(n), nil
}

// Presence reports, for each chunk in ids (in any namespace) and each of
// the (analysed) terms, whether the chunk holds the term: [index.InChunk]
// (in its text or reply field), [index.InContext] (only in its ctx field)
// or [index.Absent], as [index.Index.Presence] does. An id that is not in
// the index gets Absent for every term.
func (x *EngineIndex) Presence(ctx context.Context, ids, terms []string) ([][]uint8, error) {
	if len(ids) > 0 && len(terms) > 0 {
		if out, ok := x.m.presence(ctx, ids, terms); ok {
			return out, nil
		}
	}
	out := make([][]uint8, len(ids))
	for i := range out {
		out[i] = make([]uint8, len(terms))
	}
	if len(ids) == 0 || len(terms) == 0 {
		return out, nil
	}
	rowsOf := map[string][]int{}
	for i, id := range ids {
		rowsOf[id] = append(rowsOf[id], i)
	}
	colsOf := map[string][]int{}
	for j, t := range terms {
		colsOf[t] = append(colsOf[t], j)
	}
	rows, err := x.db.pool.Query(ctx, `SELECT d.id, u.term, ((d.tf -> u.term)::bigint & 4095) + (((d.tf -> u.term)::bigint >> 12) & 4095),
			(d.tf -> u.term)::bigint >> 24
		FROM lex_docs d, unnest($2::text[]) AS u(term)
		WHERE d.ns = ANY(ARRAY(SELECT ns FROM lex_stats)) AND d.id = ANY($1) AND d.tf ? u.term`, ids, terms)
	if err != nil {
		return nil, fmt.Errorf("reading term presence: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, term string
		var own, ctxTF int
		if err := rows.Scan(&id, &term, &own, &ctxTF); err != nil {
			return nil, fmt.Errorf("reading term presence: %w", err)
		}
		mark := uint8(index.Absent)
		switch {
		case own > 0:
			mark = index.InChunk
		case ctxTF > 0:
			mark = index.InContext
		}
		for _, i := range rowsOf[id] {
			for _, j := range colsOf[term] {
				out[i][j] = mark
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading term presence: %w", err)
	}
	return out, nil
}

// Gen returns the index generation recorded by the last Apply; 0 for a
// new or reset index.
func (x *EngineIndex) Gen() (uint64, error) {
	var v []byte
	err := x.db.pool.QueryRow(context.Background(), `SELECT value FROM meta WHERE ns = '' AND key = $1`, genKey).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the index generation: %w", err)
	}
	g, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reading the index generation %q: %w", v, err)
	}
	return g, nil
}

// Stale says why the lexical rows must be rebuilt: their terms come from
// another version of the analyzer than this build's [index.Version]. It
// returns "" when they need no rebuild (the versions agree, or there are
// no documents).
func (x *EngineIndex) Stale(ctx context.Context) (string, error) {
	var v []byte
	err := x.db.pool.QueryRow(ctx, `SELECT value FROM meta WHERE ns = '' AND key = $1`, versionKey).Scan(&v)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("reading the analyzer version: %w", err)
	}
	if string(v) == strconv.Itoa(index.Version) {
		return "", nil
	}
	n, err := x.Count()
	if err != nil || n == 0 {
		return "", err
	}
	if v == nil {
		return fmt.Sprintf("its terms come from an analyzer older than version %d", index.Version), nil
	}
	return fmt.Sprintf("its terms come from analyzer version %s, this build's is %d", v, index.Version), nil
}

// Count returns the number of documents in all namespaces.
func (x *EngineIndex) Count() (uint64, error) {
	var n int64
	// lex_stats keeps each namespace's document count in the writing
	// transaction: one row a namespace, where count(*) reads every row.
	if err := x.db.pool.QueryRow(context.Background(), `SELECT coalesce(sum(docs), 0)::bigint FROM lex_stats`).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting indexed chunks: %w", err)
	}
	return uint64(n), nil
}

// Fresh brings the in-memory copy up to date with every server's writes
// and returns a context under which this index's reads use the copy as
// it is, without checking the log again: for the several reads of one
// recall. They still see the changes that later checks bring in.
func (x *EngineIndex) Fresh(ctx context.Context) context.Context {
	if !x.m.fresh(ctx) {
		return ctx
	}
	return context.WithValue(ctx, freshKey{x.m}, true)
}

// freshKey marks a context under which a copy counts as up to date.
type freshKey struct{ m *lexMirror }

// Warm loads the in-memory copy of the index, if it is not loaded, and
// waits until it is, or the index is closed, or ctx is done.
func (x *EngineIndex) Warm(ctx context.Context) error { return x.m.waitReady(ctx) }

// Close stops the loading of the in-memory copy, if one is under way;
// the connection pool belongs to the [DB].
func (x *EngineIndex) Close() error {
	x.m.close()
	return nil
}

// Reset removes every document and statistic of every namespace, sets
// the generation to 0 and records this build's analyzer version, in one
// transaction. It truncates the lexical
// tables, so readers on other connections wait for it to commit.
func (x *EngineIndex) Reset() error {
	ctx := context.Background()
	return x.db.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `TRUNCATE lex_docs, lex_terms, lex_stats`); err != nil {
			return fmt.Errorf("emptying the lexical index: %w", err)
		}
		if err := resetLog(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM meta WHERE ns = '' AND key = $1`, genKey); err != nil {
			return fmt.Errorf("resetting the index generation: %w", err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO meta (ns, key, value) VALUES ('', $1, $2)
			ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value`, versionKey, []byte(strconv.Itoa(index.Version)))
		if err != nil {
			return fmt.Errorf("recording the analyzer version: %w", err)
		}
		return nil
	})
}
