package postgres

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/index"
)

// The lexical index keeps one lex_docs row per chunk with a tsvector of
// its three fields, and the statistics BM25 needs (lex_terms, lex_stats),
// all maintained in the transaction that writes the chunk.
//
// Terms come from the embedded index's own analyzer (index.NewMapping's
// "huimem" analyzer: CJK bigrams, lower case, English stop words and
// snowball stems), so both backends see the same terms. A tsvector entry
// is 'term':P where P = 4*tf + f, f being 1 (text, weight A), 2 (reply,
// weight B) or 3 (ctx, weight C): the position carries the term's
// frequency in the field instead of a place in the text. PostgreSQL never
// analyses the text itself; phrase operators (<->) mean nothing on this
// column.

// Field weights in the tsvector.
const (
	fieldText  = 'A'
	fieldReply = 'B'
	fieldCtx   = 'C'
)

// maxTF is the largest frequency a position can carry (positions stop at
// 16383).
const maxTF = (16383 - 3) / 4

// maxLexeme is the longest term a tsvector takes, in bytes; longer terms
// are left out of both the tsvector and the statistics.
const maxLexeme = 2046

var analyzer = sync.OnceValues(func() (analysis.Analyzer, error) {
	m, err := index.NewMapping()
	if err != nil {
		return nil, err
	}
	a := m.AnalyzerNamed(index.AnalyzerName)
	if a == nil {
		return nil, fmt.Errorf("postgres: the index mapping has no %q analyzer", index.AnalyzerName)
	}
	return a, nil
})

// Analyze returns the terms the embedded index makes of text, in order,
// with repeats (the same as [index.Index.Analyze]).
func Analyze(text string) ([]string, error) {
	a, err := analyzer()
	if err != nil {
		return nil, err
	}
	toks := a.Analyze([]byte(text))
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		out = append(out, string(t.Term))
	}
	return out, nil
}

// field is one analysed field of a document.
type field struct {
	tf  map[string]int
	len int
}

func analyzeField(text string) (field, error) {
	terms, err := Analyze(text)
	if err != nil {
		return field{}, err
	}
	f := field{tf: map[string]int{}, len: len(terms)}
	for _, t := range terms {
		if len(t) <= maxLexeme {
			f.tf[t]++
		}
	}
	return f, nil
}

// quoteLexeme quotes a term for a tsvector or tsquery literal.
func quoteLexeme(s string) string { return string(appendLexeme(nil, s)) }

// docLiterals renders the three fields of a document as the text of its
// lex_docs tsv and tf columns. The tsvector holds each term once, with a
// position 4*tf+f and weight A, B or C for each field f (1, 2, 3) it is
// in; the map holds each term's frequencies packed into one number,
// text + 4096*reply + 4096^2*ctx, each at most maxTF.
func docLiterals(fs [3]field) (tsv, tf string) {
	n := 0
	for _, f := range fs {
		n += len(f.tf)
	}
	sorted := make([]string, 0, n)
	for k, f := range fs {
		for t := range f.tf {
			if k == 0 || fs[0].tf[t] == 0 && (k == 1 || fs[1].tf[t] == 0) {
				sorted = append(sorted, t)
			}
		}
	}
	sort.Strings(sorted)
	v := make([]byte, 0, 16*len(sorted))
	m := make([]byte, 0, 20*len(sorted)+2)
	m = append(m, '{')
	for i, t := range sorted {
		if i > 0 {
			v = append(v, ' ')
			m = append(m, ',')
		}
		v = appendLexeme(v, t)
		m = appendJSONString(m, t)
		m = append(m, ':')
		sep := byte(':')
		var packed int64
		for k, w := range []byte{fieldText, fieldReply, fieldCtx} {
			tf := min(fs[k].tf[t], maxTF)
			if tf == 0 {
				continue
			}
			packed |= int64(tf) << (12 * k)
			v = append(v, sep)
			v = strconv.AppendInt(v, int64(4*tf+k+1), 10)
			v = append(v, w)
			sep = ','
		}
		m = strconv.AppendInt(m, packed, 10)
	}
	return string(v), string(append(m, '}'))
}

// appendLexeme appends t quoted as a tsvector or tsquery lexeme.
func appendLexeme(b []byte, t string) []byte {
	b = append(b, '\'')
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case '\'', '\\':
			b = append(b, c, c)
		default:
			b = append(b, c)
		}
	}
	return append(b, '\'')
}

// appendJSONString appends s as a JSON string. s is valid UTF-8 (the
// analyzer's terms are), which JSON takes as it is but for the quote,
// the backslash and the control characters.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Lexical is the lexical index in PostgreSQL: the counterpart of
// core/index's bleve index. It is safe for concurrent use.
type Lexical struct {
	db *DB
}

// Lexical returns the database's lexical index.
func (db *DB) Lexical() *Lexical { return &Lexical{db: db} }

type termKey struct {
	field byte
	term  string
}

// Apply indexes docs and removes the chunks in deletes, in one
// transaction (see [Lexical.ApplyTx]).
func (x *Lexical) Apply(ctx context.Context, ns string, docs []index.Doc, deletes []string) error {
	return x.db.InTx(ctx, func(tx pgx.Tx) error { return x.ApplyTx(ctx, tx, ns, docs, deletes) })
}

// ApplyTx indexes docs (all of namespace ns; a doc already indexed is
// replaced) and removes the chunks in deletes, inside tx, keeping the
// BM25 statistics in step. The engine calls it in the transaction that
// writes the chunks, so that the index never lags the store.
//
// Statistics rows are locked in (field, term) order, then the namespace's
// lex_stats row, so that concurrent writers never deadlock on them; they
// do queue on the terms they share until the first commits.
func (x *Lexical) ApplyTx(ctx context.Context, tx pgx.Tx, ns string, docs []index.Doc, deletes []string) error {
	fields, err := newAnalyses().docs(docs, nil)
	if err != nil {
		return err
	}
	if err := applyTx(ctx, tx, ns, docs, fields, deletes); err != nil {
		return err
	}
	return logChange(ctx, tx, withIDs(slices.Clone(deletes), docs))
}

// withIDs appends the ids of docs to ids.
func withIDs(ids []string, docs []index.Doc) []string {
	for i := range docs {
		ids = append(ids, docs[i].ID)
	}
	return ids
}

// analyses caches the analysis of each distinct string during one
// apply: a chunk's text is often also its neighbours' context.
type analyses map[string]field

func newAnalyses() analyses { return analyses{} }

// field returns the analysis of text. The result is shared: do not
// modify its map.
func (a analyses) field(text string) (field, error) {
	if f, ok := a[text]; ok {
		return f, nil
	}
	f, err := analyzeField(text)
	if err != nil {
		return field{}, err
	}
	a[text] = f
	return f, nil
}

// parts returns the analysis of a ctx field made of parts: each part is
// analysed on its own and the frequencies and lengths are summed, as
// core/index's ApplyParts does.
func (a analyses) parts(parts []string) (field, error) {
	if len(parts) == 1 {
		return a.field(parts[0])
	}
	out := field{tf: map[string]int{}}
	for _, p := range parts {
		f, err := a.field(p)
		if err != nil {
			return field{}, err
		}
		for t, n := range f.tf {
			out.tf[t] += n
		}
		out.len += f.len
	}
	return out, nil
}

// docs analyses the text, reply and ctx fields of docs; parts[i], when
// not nil, replaces docs[i].Context (see [index.Index.ApplyParts]).
func (a analyses) docs(docs []index.Doc, parts [][]string) ([][3]field, error) {
	out := make([][3]field, len(docs))
	for i := range docs {
		d := &docs[i]
		var err error
		if out[i][0], err = a.field(d.Text); err != nil {
			return nil, err
		}
		if out[i][1], err = a.field(d.Reply); err != nil {
			return nil, err
		}
		if i < len(parts) && parts[i] != nil {
			out[i][2], err = a.parts(parts[i])
		} else {
			out[i][2], err = a.field(d.Context)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// applyTx is [Lexical.ApplyTx] with the documents already analysed:
// fields[i] holds the text, reply and ctx fields of docs[i].
func applyTx(ctx context.Context, tx pgx.Tx, ns string, docs []index.Doc, fields [][3]field, deletes []string) error {
	// What the replaced and deleted documents held.
	gone := withIDs(slices.Clone(deletes), docs)
	d := lexDelta{df: map[termKey]int{}}
	if err := d.forgetTerms(ctx, tx, ns, gone); err != nil {
		return err
	}
	if err := d.removeDocs(ctx, tx, ns, gone); err != nil {
		return err
	}
	if err := d.insertDocs(ctx, tx, ns, docs, fields); err != nil {
		return err
	}
	dTerms, err := updateTermStats(ctx, tx, ns, d.df)
	if err != nil {
		return err
	}
	return d.updateNamespaceStats(ctx, tx, ns, dTerms)
}

// lexDelta is what one apply changes in a namespace's statistics.
type lexDelta struct {
	df     map[termKey]int // document frequency of each (field, term)
	docs   int64
	tokens [3]int64 // tokens of text, reply, ctx
}

// forgetTerms counts the terms of the documents gone (replaced or
// deleted) out of the document frequencies.
func (d *lexDelta) forgetTerms(ctx context.Context, tx pgx.Tx, ns string, gone []string) error {
	rows, err := tx.Query(ctx, `SELECT u.lexeme, w FROM lex_docs d, unnest(d.tsv) u, unnest(u.weights) w
		WHERE d.ns = $1 AND d.id = ANY($2)`, ns, gone)
	if err != nil {
		return fmt.Errorf("reading replaced documents: %w", err)
	}
	for rows.Next() {
		var term, w string
		if err := rows.Scan(&term, &w); err != nil {
			rows.Close()
			return fmt.Errorf("reading replaced documents: %w", err)
		}
		d.df[termKey{w[0], term}]--
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading replaced documents: %w", err)
	}
	return nil
}

// removeDocs deletes the documents gone and counts them and their tokens
// out.
func (d *lexDelta) removeDocs(ctx context.Context, tx pgx.Tx, ns string, gone []string) error {
	rows, err := tx.Query(ctx, `DELETE FROM lex_docs WHERE ns = $1 AND id = ANY($2) RETURNING len_text, len_reply, len_ctx`, ns, gone)
	if err != nil {
		return fmt.Errorf("removing documents: %w", err)
	}
	for rows.Next() {
		var l [3]int64
		if err := rows.Scan(&l[0], &l[1], &l[2]); err != nil {
			rows.Close()
			return fmt.Errorf("removing documents: %w", err)
		}
		d.docs--
		for k := range l {
			d.tokens[k] -= l[k]
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("removing documents: %w", err)
	}
	return nil
}

// insertDocs writes docs, in one batch, and counts them, their terms and
// their tokens in.
func (d *lexDelta) insertDocs(ctx context.Context, tx pgx.Tx, ns string, docs []index.Doc, fields [][3]field) error {
	if len(docs) == 0 {
		return nil
	}
	var r docRows
	for i := range docs {
		doc := &docs[i]
		fs := fields[i]
		for k := range fs {
			for t := range fs[k].tf {
				d.df[termKey{[]byte{fieldText, fieldReply, fieldCtx}[k], t}]++
			}
			d.tokens[k] += int64(fs[k].len)
		}
		d.docs++
		r.add(doc, fs)
		if len(r.ids) == docsPerInsert || i == len(docs)-1 {
			if _, err := tx.Exec(ctx, sqlInsertDocs, ns, r.ids, r.sessions, r.times, r.tsvs, r.lens[0], r.lens[1], r.lens[2],
				r.roles, r.speakers, r.topics, r.types, r.tfs); err != nil {
				return fmt.Errorf("indexing documents: %w", err)
			}
			r = docRows{}
		}
	}
	return nil
}

// docsPerInsert is how many documents one statement inserts.
const docsPerInsert = 1000

// sqlInsertDocs inserts lex_docs rows given as arrays, one element a row:
// the tsvectors, the term maps and the roles, speakers and types as their
// text literals.
const sqlInsertDocs = `INSERT INTO lex_docs (ns, id, session, t, tsv, len_text, len_reply, len_ctx, roles, speakers, topic, types, tf)
	SELECT $1, id, session, t, tsv::tsvector, lt, lr, lc, roles::text[], speakers::text[], topic, types::text[], tf::jsonb
	FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::int[], $7::int[], $8::int[],
		$9::text[], $10::text[], $11::text[], $12::text[], $13::text[]) AS u(id, session, t, tsv, lt, lr, lc, roles, speakers, topic, types, tf)`

// docRows are lex_docs rows as the columns of sqlInsertDocs.
type docRows struct {
	ids, sessions, tsvs, roles, speakers, topics, types, tfs []string
	times                                                    []time.Time
	lens                                                     [3][]int32
}

func (r *docRows) add(doc *index.Doc, fs [3]field) {
	r.ids = append(r.ids, doc.ID)
	r.sessions = append(r.sessions, doc.Session)
	r.times = append(r.times, doc.Time)
	tsv, tf := docLiterals(fs)
	r.tsvs = append(r.tsvs, tsv)
	r.tfs = append(r.tfs, tf)
	for k := range fs {
		r.lens[k] = append(r.lens[k], int32(fs[k].len))
	}
	r.roles = append(r.roles, arrayLiteral(doc.Roles))
	r.speakers = append(r.speakers, arrayLiteral(doc.Speakers))
	r.topics = append(r.topics, doc.Topic)
	r.types = append(r.types, arrayLiteral(doc.Types))
}

// arrayElemEscaper escapes a string inside a quoted array element.
var arrayElemEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// arrayLiteral renders ss as a PostgreSQL text[] literal, every element
// quoted.
func arrayLiteral(ss []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(arrayElemEscaper.Replace(s))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// updateTermStats adds the changes of document frequency in delta to
// lex_terms, in (field, term) order, and removes the terms no document
// holds any more. It returns the change in distinct terms of each field
// (text, reply, ctx).
func updateTermStats(ctx context.Context, tx pgx.Tx, ns string, delta map[termKey]int) ([3]int64, error) {
	var dTerms [3]int64
	keys := make([]termKey, 0, len(delta))
	for k, v := range delta {
		if v != 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return dTerms, nil
	}
	slices.SortFunc(keys, func(a, b termKey) int {
		if a.field != b.field {
			return int(a.field) - int(b.field)
		}
		return strings.Compare(a.term, b.term)
	})
	fieldNames := make([]string, len(keys))
	terms := make([]string, len(keys))
	dfs := make([]int32, len(keys))
	var fewer []string // the terms whose frequency falls
	for i, k := range keys {
		fieldNames[i], terms[i], dfs[i] = string(k.field), k.term, int32(delta[k])
		if dfs[i] < 0 {
			fewer = append(fewer, k.term)
		}
	}
	rows, err := tx.Query(ctx, `WITH up AS (
			INSERT INTO lex_terms AS l (ns, field, term, df)
			SELECT $1, f::"char", t, d FROM unnest($2::text[], $3::text[], $4::int[]) WITH ORDINALITY AS u(f, t, d, o) ORDER BY o
			ON CONFLICT (ns, field, term) DO UPDATE SET df = l.df + EXCLUDED.df
			RETURNING field, (xmax = 0) AS created, df)
		SELECT field::text, count(*) FILTER (WHERE created), count(*) FILTER (WHERE df <= 0) FROM up GROUP BY field`,
		ns, fieldNames, terms, dfs)
	if err != nil {
		return dTerms, fmt.Errorf("updating term statistics: %w", err)
	}
	for rows.Next() {
		var f string
		var created, emptied int64
		if err := rows.Scan(&f, &created, &emptied); err != nil {
			rows.Close()
			return dTerms, fmt.Errorf("updating term statistics: %w", err)
		}
		dTerms[f[0]-fieldText] += created - emptied
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return dTerms, fmt.Errorf("updating term statistics: %w", err)
	}
	if len(fewer) == 0 {
		return dTerms, nil // no term can have reached 0
	}
	if _, err := tx.Exec(ctx, `DELETE FROM lex_terms
		WHERE ns = $1 AND `+sqlEveryField+` AND term = ANY($2) AND df <= 0`, ns, fewer); err != nil {
		return dTerms, fmt.Errorf("updating term statistics: %w", err)
	}
	return dTerms, nil
}

// updateNamespaceStats adds d and dTerms, the change in distinct terms of
// each field, to the namespace's lex_stats row.
func (d *lexDelta) updateNamespaceStats(ctx context.Context, tx pgx.Tx, ns string, dTerms [3]int64) error {
	_, err := tx.Exec(ctx, `INSERT INTO lex_stats AS s VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (ns) DO UPDATE SET docs = s.docs + EXCLUDED.docs,
			terms_text = s.terms_text + EXCLUDED.terms_text, terms_reply = s.terms_reply + EXCLUDED.terms_reply,
			terms_ctx = s.terms_ctx + EXCLUDED.terms_ctx, tokens_text = s.tokens_text + EXCLUDED.tokens_text,
			tokens_reply = s.tokens_reply + EXCLUDED.tokens_reply, tokens_ctx = s.tokens_ctx + EXCLUDED.tokens_ctx`,
		ns, d.docs, dTerms[0], dTerms[1], dTerms[2], d.tokens[0], d.tokens[1], d.tokens[2])
	if err != nil {
		return fmt.Errorf("updating namespace statistics: %w", err)
	}
	return nil
}

// Stats are a namespace's lexical statistics.
type Stats struct {
	Docs   int64
	Terms  [3]int64 // distinct terms of text, reply, ctx
	Tokens [3]int64 // tokens of text, reply, ctx
}

// sqlStats reads the statistics of namespace $1.
const sqlStats = `SELECT docs, terms_text, terms_reply, terms_ctx, tokens_text, tokens_reply, tokens_ctx
	FROM lex_stats WHERE ns = $1`

// Stats returns the statistics of namespace ns.
func (x *Lexical) Stats(ctx context.Context, ns string) (Stats, error) {
	var s Stats
	err := x.db.pool.QueryRow(ctx, sqlStats, ns).Scan(&s.Docs, &s.Terms[0], &s.Terms[1], &s.Terms[2], &s.Tokens[0], &s.Tokens[1], &s.Tokens[2])
	if err == pgx.ErrNoRows {
		return Stats{}, nil
	}
	if err != nil {
		return Stats{}, fmt.Errorf("reading lexical statistics: %w", err)
	}
	return s, nil
}
