package postgres

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/index"
)

// Searching the lexical index: bleve's BM25 in SQL (see docs/postgres.md).

// Search is one BM25 search: [index.Search], whose fields mean the same
// here.
type Search = index.Search

// Search runs a BM25 search scored as the embedded index scores it (see
// docs/postgres.md): per field and per query term, bleve's BM25 with
// sqrt(tf), the average field length taken as the field's distinct terms
// over the documents (rounded up), the idf counted twice (once in the
// term's score, once in its query weight), a coordination factor per
// field (none across fields), and the query norm. Ties go to the smaller id
// (in byte order). Statistics are those of the namespace s.NS.
//
// An empty Text matches every chunk that passes the other conditions,
// each with score 1, in id order (bleve's match-all query). The window,
// IDs and Filter restrict the matches and never change scores.
func (x *Lexical) Search(ctx context.Context, s Search) ([]index.Match, error) {
	if s.Size <= 0 {
		return []index.Match{}, nil
	}
	if s.Text == "" {
		args := pgx.NamedArgs{"ns": s.NS, "size": s.Size}
		where, err := conditions(s, args)
		if err != nil {
			return nil, err
		}
		return x.matches(ctx, `SELECT d.id, 1::float8, d.session FROM lex_docs d WHERE d.ns = @ns`+where+
			` ORDER BY d.id COLLATE "C" LIMIT @size`, args, s.NoSession)
	}
	toks, err := Analyze(s.Text)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return []index.Match{}, nil
	}
	st, err := x.Stats(ctx, s.NS)
	if err != nil {
		return nil, err
	}
	if st.Docs == 0 {
		return []index.Match{}, nil
	}
	distinct, mult := queryTerms(toks)
	df, err := x.termDFs(ctx, s.NS, distinct)
	if err != nil {
		return nil, err
	}
	args := bm25Args(s, st, toks, distinct, mult, df)
	where, err := conditions(s, args)
	if err != nil {
		return nil, err
	}
	return x.matches(ctx, bm25SQL+where+` ORDER BY score DESC, d.id COLLATE "C" LIMIT @size`, args, s.NoSession)
}

// queryTerms returns the distinct terms of toks that a tsvector can hold,
// in order of first appearance, and how many times each appears.
func queryTerms(toks []string) (distinct []string, mult map[string]int) {
	mult = map[string]int{}
	for _, t := range toks {
		if len(t) > maxLexeme {
			continue
		}
		if mult[t] == 0 {
			distinct = append(distinct, t)
		}
		mult[t]++
	}
	return distinct, mult
}

// termDFs reads the document frequencies of the query's terms in
// namespace ns, by field.
func (x *Lexical) termDFs(ctx context.Context, ns string, distinct []string) (map[termKey]int64, error) {
	df := map[termKey]int64{}
	rows, err := x.db.pool.Query(ctx, `SELECT field::text, term, df FROM lex_terms WHERE ns = $1 AND term = ANY($2)`, ns, distinct)
	if err != nil {
		return nil, fmt.Errorf("reading term statistics: %w", err)
	}
	for rows.Next() {
		var f, t string
		var n int64
		if err := rows.Scan(&f, &t, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading term statistics: %w", err)
		}
		df[termKey{f[0], t}] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading term statistics: %w", err)
	}
	return df, nil
}

// bm25IDF returns the idf of a term in a field, from the namespace's
// statistics st and the query terms' document frequencies df.
func bm25IDF(st Stats, df map[termKey]int64) func(f byte, t string) float64 {
	n := float64(st.Docs)
	return func(f byte, t string) float64 {
		d := float64(min(df[termKey{f, t}], st.Docs))
		if st.Terms[f-fieldText] == 0 {
			// A field no document has a term in has an average length of
			// 0 in bleve, which then takes the TF-IDF idf for it. Nothing
			// matches there, but the idf counts in the query norm.
			return 1 + math.Log(n/(d+1))
		}
		return math.Log(1 + (n-d+0.5)/(d+0.5))
	}
}

// bm25Args returns bm25SQL's parameters for the query terms toks (distinct
// of them, each mult times): the tsquery, each term's weight per field,
// and the fields' average lengths.
func bm25Args(s Search, st Stats, toks, distinct []string, mult map[string]int, df map[termKey]int64) pgx.NamedArgs {
	boosts := [3]float64{1, s.ReplyBoost, s.ContextBoost}
	var weights strings.Builder
	for k, w := range []byte{fieldText, fieldReply, fieldCtx} {
		if boosts[k] > 0 {
			weights.WriteByte(w)
		}
	}
	n := float64(st.Docs)
	idf := bm25IDF(st, df)
	// The query norm: every term scorer's (boost*idf)^2, repeats counted.
	var sum float64
	for _, t := range toks {
		for k, f := range []byte{fieldText, fieldReply, fieldCtx} {
			if boosts[k] > 0 {
				w := boosts[k] * idf(f, t)
				sum += w * w
			}
		}
	}
	qn := 1 / math.Sqrt(sum)
	var w [3][]float64
	mults := make([]int32, len(distinct))
	var q strings.Builder
	for i, t := range distinct {
		mults[i] = int32(mult[t])
		for k, f := range []byte{fieldText, fieldReply, fieldCtx} {
			v := 0.0
			if boosts[k] > 0 {
				id := idf(f, t)
				v = float64(mult[t]) * boosts[k] * id * id * qn
			}
			w[k] = append(w[k], v)
		}
		if i > 0 {
			q.WriteString(" | ")
		}
		q.WriteString(quoteLexeme(t))
		q.WriteByte(':')
		q.WriteString(weights.String())
	}
	var avg [3]float64
	for k := range avg {
		avg[k] = math.Max(1, math.Ceil(float64(st.Terms[k])/n))
	}
	return pgx.NamedArgs{
		"ns": s.NS, "q": q.String(), "terms": distinct, "wa": w[0], "wb": w[1], "wc": w[2], "mult": mults,
		"ntok": float64(len(toks)), "k1": search.BM25_k1, "b": search.BM25_b,
		"avga": avg[0], "avgb": avg[1], "avgc": avg[2], "size": s.Size,
	}
}

// matches runs a search query returning id, score and session.
func (x *Lexical) matches(ctx context.Context, sql string, args pgx.NamedArgs, noSession bool) ([]index.Match, error) {
	rows, err := x.db.pool.Query(ctx, sql, args)
	if err != nil {
		return nil, fmt.Errorf("searching: %w", err)
	}
	defer rows.Close()
	out := []index.Match{}
	for rows.Next() {
		var m index.Match
		if err := rows.Scan(&m.ID, &m.Score, &m.Session); err != nil {
			return nil, fmt.Errorf("searching: %w", err)
		}
		if noSession {
			m.Session = ""
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("searching: %w", err)
	}
	return out, nil
}

// Matching returns the ids of the chunks of namespace s.NS that pass s's
// window, IDs and Filter, in id order (byte order), ignoring its Text and
// Size (see [index.Index.Matching]).
func (x *Lexical) Matching(ctx context.Context, s Search) ([]string, error) {
	args := pgx.NamedArgs{"ns": s.NS}
	where, err := conditions(s, args)
	if err != nil {
		return nil, err
	}
	rows, err := x.db.pool.Query(ctx, `SELECT d.id FROM lex_docs d WHERE d.ns = @ns`+where+` ORDER BY d.id COLLATE "C"`, args)
	if err != nil {
		return nil, fmt.Errorf("listing matching chunks: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("listing matching chunks: %w", err)
	}
	if ids == nil {
		ids = []string{}
	}
	return ids, nil
}

// conditions returns the SQL conditions on lex_docs d (each starting with
// " AND ") for s's window, IDs and Filter, adding their parameters to
// args.
func conditions(s Search, args pgx.NamedArgs) (string, error) {
	var b strings.Builder
	if !s.Since.IsZero() {
		b.WriteString(" AND d.t >= @since")
		args["since"] = s.Since
	}
	if !s.Before.IsZero() {
		b.WriteString(" AND d.t < @before")
		args["before"] = s.Before
	}
	if len(s.IDs) > 0 {
		b.WriteString(" AND d.id = ANY(@ids)")
		args["ids"] = s.IDs
	}
	if s.Filter != nil {
		c := filterCompiler{args: args}
		b.WriteString(" AND ")
		b.WriteString(c.compile(s.Filter))
	}
	return b.String(), nil
}

// bm25SQL scores the candidates: for each field, the sum over the matched
// query terms of weight * k1*sqrt(tf) / (sqrt(tf) + k1*(1 - b + b*len/avg)),
// where len is the field length as bleve recovers it from its float32
// norm, times the share of query terms matched in the field; then the sum
// over fields (no coordination across fields: see index's fieldSum).
const bm25SQL = `
WITH q AS (
	SELECT * FROM unnest(@terms::text[], @wa::float8[], @wb::float8[], @wc::float8[], @mult::int[]) AS q(term, wa, wb, wc, mult)
)
SELECT d.id, z.score, d.session
FROM lex_docs d
CROSS JOIN LATERAL (
	SELECT (coalesce(y.sa * y.ma, 0) + coalesce(y.sb * y.mb, 0) + coalesce(y.sc * y.mc, 0)) / @ntok::float8 AS score
	FROM (
		SELECT
			sum(q.wa * lex_bm25(x.tf_text, d.len_text, @avga::float8, @k1::float8, @b::float8)) FILTER (WHERE x.tf_text > 0 AND q.wa > 0) AS sa,
			coalesce(sum(q.mult) FILTER (WHERE x.tf_text > 0 AND q.wa > 0), 0) AS ma,
			sum(q.wb * lex_bm25(x.tf_reply, d.len_reply, @avgb::float8, @k1::float8, @b::float8)) FILTER (WHERE x.tf_reply > 0 AND q.wb > 0) AS sb,
			coalesce(sum(q.mult) FILTER (WHERE x.tf_reply > 0 AND q.wb > 0), 0) AS mb,
			sum(q.wc * lex_bm25(x.tf_ctx, d.len_ctx, @avgc::float8, @k1::float8, @b::float8)) FILTER (WHERE x.tf_ctx > 0 AND q.wc > 0) AS sc,
			coalesce(sum(q.mult) FILTER (WHERE x.tf_ctx > 0 AND q.wc > 0), 0) AS mc
		FROM lex_tf(d.tsv, @terms::text[]) x JOIN q USING (term)
	) y
) z
WHERE d.ns = @ns AND d.tsv @@ @q::tsquery`
