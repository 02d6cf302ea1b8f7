package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

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
	distinct, mult := queryTerms(toks)
	st, df, err := x.statistics(ctx, s.NS, distinct)
	if err != nil {
		return nil, err
	}
	if st.Docs == 0 {
		return []index.Match{}, nil
	}
	args := bm25Args(s, st, toks, distinct, mult, df)
	where, err := conditions(s, args)
	if err != nil {
		return nil, err
	}
	boosts := [3]float64{1, s.ReplyBoost, s.ContextBoost}
	searched := [3]bool{true, s.ReplyBoost > 0, s.ContextBoost > 0}
	order := where + ` ORDER BY score DESC, d.id COLLATE "C" LIMIT @size`
	if len(s.IDs) == 0 && !noTextFirst && (searched[1] || searched[2]) {
		// The chunks that hold a query term in their text first: when the
		// page's last score is above any score that the other fields alone
		// can give, no other chunk can be on the page.
		ms, err := x.matches(ctx, bm25SQL(len(distinct), boosts, [3]bool{true})+order, args, s.NoSession)
		if err != nil {
			return nil, err
		}
		complete := len(ms) == s.Size && otherFieldsBound(args, len(distinct), boosts)*(1+1e-9) < ms[len(ms)-1].Score
		if textFirstDone != nil {
			textFirstDone(complete)
		}
		if complete {
			return ms, nil
		}
	}
	return x.matches(ctx, bm25SQL(len(distinct), boosts, searched)+order, args, s.NoSession)
}

// noTextFirst turns the text-first search off, and textFirstDone, when
// set, is told whether each text-first search was complete: for the tests
// that compare both ways.
var (
	noTextFirst   bool
	textFirstDone func(complete bool)
)

// otherFieldsBound returns a score that no chunk reaches that holds the
// query's n terms in its reply and ctx fields only: per field, k1 times
// the sum of the terms' weights (the tf factor of bleve's BM25 is below
// k1), times the query tokens, over the query's tokens.
func otherFieldsBound(args pgx.NamedArgs, n int, boosts [3]float64) float64 {
	var tokens, sum float64
	for i := range n {
		tokens += float64(args[fmt.Sprintf("m%d", i)].(int32))
		for k := 1; k < 3; k++ {
			if boosts[k] > 0 {
				sum += search.BM25_k1 * args[fmt.Sprintf("w%c%d", 'a'+k, i)].(float64)
			}
		}
	}
	return sum * tokens / args["ntok"].(float64)
}

// statistics reads the namespace's statistics and the document
// frequencies of the query's terms, in one round trip.
func (x *Lexical) statistics(ctx context.Context, ns string, distinct []string) (Stats, map[termKey]int64, error) {
	var st Stats
	batch := &pgx.Batch{}
	batch.Queue(sqlStats, ns).QueryRow(func(r pgx.Row) error {
		err := r.Scan(&st.Docs, &st.Terms[0], &st.Terms[1], &st.Terms[2], &st.Tokens[0], &st.Tokens[1], &st.Tokens[2])
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	df := map[termKey]int64{}
	batch.Queue(sqlTermDFs, ns, distinct).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var f, t string
			var n int64
			if err := rows.Scan(&f, &t, &n); err != nil {
				return err
			}
			df[termKey{f[0], t}] = n
		}
		return rows.Err()
	})
	if err := x.db.pool.SendBatch(ctx, batch).Close(); err != nil {
		return Stats{}, nil, fmt.Errorf("reading lexical statistics: %w", err)
	}
	return st, df, nil
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

// sqlEveryField names the three fields in a condition on lex_terms, so
// that a lookup of terms by namespace walks the primary key (ns, field,
// term): the table has no index by term.
const sqlEveryField = `field = ANY('{A,B,C}'::"char"[])`

// sqlTermDFs reads the document frequencies of terms $2 in namespace $1,
// by field.
const sqlTermDFs = `SELECT field::text, term, df FROM lex_terms
	WHERE ns = $1 AND ` + sqlEveryField + ` AND term = ANY($2)`

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

// bm25Plan is what scoring a query takes besides each chunk's own
// frequencies and lengths, from the namespace's statistics.
type bm25Plan struct {
	// avg is each field's average length (text, reply, ctx).
	avg [3]float64
	// w is each searched field's weight of each distinct term: its
	// multiplicity times boost*idf^2 times the query norm; nil for a field
	// not searched (boost 0).
	w [3][]float64
	// m is each distinct term's multiplicity, and ntok the query's tokens.
	m    []int32
	ntok float64
}

// newBM25Plan returns the plan of the query terms toks (distinct of them,
// each mult times) under statistics st and the terms' document
// frequencies df.
func newBM25Plan(s Search, st Stats, toks, distinct []string, mult map[string]int, df map[termKey]int64) bm25Plan {
	boosts := [3]float64{1, s.ReplyBoost, s.ContextBoost}
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
	p := bm25Plan{ntok: float64(len(toks)), m: make([]int32, len(distinct))}
	for k := range boosts {
		p.avg[k] = math.Max(1, math.Ceil(float64(st.Terms[k])/n))
		if boosts[k] > 0 {
			p.w[k] = make([]float64, len(distinct))
		}
	}
	for i, t := range distinct {
		p.m[i] = int32(mult[t])
		for k, f := range []byte{fieldText, fieldReply, fieldCtx} {
			if boosts[k] > 0 {
				id := idf(f, t)
				p.w[k][i] = float64(mult[t]) * boosts[k] * id * id * qn
			}
		}
	}
	return p
}

// bm25Args returns bm25SQL's parameters for the query terms toks (see
// newBM25Plan): the tsquery, each distinct term (t0, t1, ...) with its
// multiplicity (m0, ...) and its weight in each searched field (wa0, wb0,
// wc0, ...), and the fields' average lengths (avga, avgb, avgc).
func bm25Args(s Search, st Stats, toks, distinct []string, mult map[string]int, df map[termKey]int64) pgx.NamedArgs {
	p := newBM25Plan(s, st, toks, distinct, mult, df)
	args := pgx.NamedArgs{
		"ns": s.NS, "q": orQuery(distinct),
		"ntok": p.ntok, "k1": search.BM25_k1, "b": search.BM25_b, "size": s.Size,
	}
	for k := range p.avg {
		args[fmt.Sprintf("avg%c", 'a'+k)] = p.avg[k]
	}
	for i, t := range distinct {
		args[fmt.Sprintf("t%d", i)] = t
		args[fmt.Sprintf("m%d", i)] = p.m[i]
		for k := range p.w {
			if p.w[k] != nil {
				args[fmt.Sprintf("w%c%d", 'a'+k, i)] = p.w[k][i]
			}
		}
	}
	return args
}

// orQuery returns the tsquery that matches the documents holding any of
// terms: 't1' | 't2'. The search applies it to the fields whose boost is
// above 0, each through its own index.
func orQuery(terms []string) string {
	var q []byte
	for i, t := range terms {
		if i > 0 {
			q = append(q, " | "...)
		}
		q = appendLexeme(q, t)
	}
	return string(q)
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

// bm25SQL returns the query that scores the candidates of n distinct
// query terms (see bm25Args for its parameters): for each field whose
// boost is above 0, the sum over the query terms it holds of weight *
// k1*sqrt(tf) / (sqrt(tf) + k1*(1 - b + b*len/avg)), where len is the
// field length as bleve recovers it from its float32 norm, times the query
// tokens it holds; then the sum over the fields (no coordination across
// fields: see index's fieldSum), over the query's tokens. Each term's
// frequencies are looked up once per candidate in its lex_docs.tf map
// (x0, x1, ...), and each field's length part once (c0, c1, c2). Sums go
// in query order. The candidates are the chunks that hold a query term in
// one of the candidate fields, each found through its field's index.
func bm25SQL(n int, boosts [3]float64, candidates [3]bool) string {
	key := [7]int{n}
	for k := range boosts {
		if boosts[k] > 0 {
			key[k+1] = 1
		}
		if candidates[k] {
			key[k+4] = 1
		}
	}
	if q, ok := bm25Queries.Load(key); ok {
		return q.(string)
	}
	lens := [3]string{"d.len_text", "d.len_reply", "d.len_ctx"}
	var b strings.Builder
	b.WriteString("SELECT d.id, (")
	first := true
	for k := range boosts {
		if key[k+1] == 0 {
			continue
		}
		if !first {
			b.WriteString(" + ")
		}
		first = false
		var sum, matched []string
		for i := range n {
			tf := fmt.Sprintf("((v.x%d >> %d) & 4095)", i, 12*k)
			sum = append(sum, fmt.Sprintf("CASE WHEN %[1]s > 0 THEN @w%[2]c%[3]d::float8 * (@k1::float8 * sqrt(%[1]s) / (sqrt(%[1]s) + v.c%[4]d)) ELSE 0 END",
				tf, 'a'+k, i, k))
			matched = append(matched, fmt.Sprintf("CASE WHEN %s > 0 THEN @m%d::int ELSE 0 END", tf, i))
		}
		fmt.Fprintf(&b, "(%s) * (%s)::float8", strings.Join(sum, " + "), strings.Join(matched, " + "))
	}
	b.WriteString(") / @ntok::float8 AS score, d.session\nFROM lex_docs d CROSS JOIN LATERAL (SELECT ")
	for i := range n {
		fmt.Fprintf(&b, "coalesce((d.tf -> @t%d::text)::bigint, 0) AS x%d, ", i, i)
	}
	// The fields' length parts: k1*(1 - b + b*len/avg).
	sep := ""
	for k := range lens {
		if key[k+1] == 0 {
			continue
		}
		b.WriteString(sep)
		sep = ", "
		norm := fmt.Sprintf("((1 / sqrt(greatest(%s, 1)))::real)::float8", lens[k])
		fmt.Fprintf(&b, "@k1::float8 * (1 - @b::float8 + @b::float8 * (1 / (%[1]s * %[1]s)) / @avg%[2]c::float8) AS c%[3]d", norm, 'a'+k, k)
	}
	b.WriteString(" OFFSET 0) v\nWHERE d.ns = @ns AND (")
	sep = ""
	for k, name := range []string{"a", "b", "c"} {
		if key[k+4] == 1 {
			fmt.Fprintf(&b, "%sts_filter(d.tsv, '{%s}') @@ @q::tsquery", sep, name)
			sep = " OR "
		}
	}
	b.WriteString(")")
	q, _ := bm25Queries.LoadOrStore(key, b.String())
	return q.(string)
}

// bm25Queries caches bm25SQL's queries by term count and searched fields.
var bm25Queries sync.Map
