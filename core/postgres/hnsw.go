package postgres

// pgvector's HNSW index, optional (storage.postgres.hnsw, issue 17).
//
// With it set, the vectors that the store keeps in bucket vectime are
// mirrored into one table that pgvector can index,
//
//	vectors_hnsw (ns text, id text, t bigint, embedding vector(DIM))
//	PRIMARY KEY (ns, id), and an HNSW index on embedding (cosine)
//
// and the engine searches it ([HNSW.Search]) instead of its per-server
// exact cache. t is the chunk's time in Unix nanoseconds, the store's own
// precision (a timestamptz would round to microseconds and move the
// edges of a time window).
//
//   - The table is not in a versioned migration: the extension may be
//     missing (it is not packaged for every distribution), and DIM is the
//     embedder's, known only from the vectors. It is created by the first
//     store transaction that writes a vector, and dropped and created
//     again when a transaction writes a vector of another dimension (a
//     re-embedding reindex, which empties vectime in the same transaction).
//   - Every Put and Delete of a vectime key, and the emptying of the
//     bucket, is mirrored in the same store transaction (kv.go), so the
//     table commits with the store and is as fresh as it; it needs no
//     notifications.
//   - On opening ([DB.enableHNSW]) the table is compared with the store
//     (row counts and dimension, under the store's write lock) and filled
//     again from vectime when they differ: a database that held vectors
//     before the option was set, or that a server without it has written.
//   - Vectors of unpublished staged ingests are in vectime too; a search
//     passes by them as the store's scans do.
//
// Nothing here runs without pgvector except the key and literal parsing
// and, on a stand-in for the extension, the mirror, back-fill and search
// logic (hnsw_test.go); docs/postgres.md says what was run.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// ErrNoPgvector is returned by [Open] when storage.postgres.hnsw is set
// and the database has no pgvector extension.
var ErrNoPgvector = errors.New("storage.postgres.hnsw is set but the database has no pgvector extension: CREATE EXTENSION vector, or unset it")

// The store's buckets that hold vectors (core/store/vectors.go).
var (
	bucketVecTime = []byte("vectime") // ns 0 time id → little-endian float32s
	bucketVecs    = []byte("vecs")    // layout 1: id → time and vector
)

// SQL of the HNSW path. Each statement's placeholders are counted by
// TestHNSWStatements; the ones that need pgvector itself (the vector(N)
// type, USING hnsw, <=> on real vectors) have not run on this project's
// machines, which do not package the extension.
const (
	sqlHasPgvector     = `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')`
	sqlPgvectorVersion = `SELECT extversion FROM pg_extension WHERE extname = 'vector'`
	// sqlHNSWDim reads the embedding column's type modifier, which
	// pgvector sets to the dimension (-1 for a column without one); no
	// row when the table does not exist.
	sqlHNSWDim = `SELECT a.atttypmod FROM pg_attribute a
		WHERE a.attrelid = to_regclass('vectors_hnsw') AND a.attname = 'embedding' AND NOT a.attisdropped`
	sqlHNSWDrop = `DROP TABLE IF EXISTS vectors_hnsw`
	// sqlHNSWCreate takes the dimension (a type modifier cannot be a
	// parameter).
	sqlHNSWCreate = `CREATE TABLE vectors_hnsw (
		ns        text   NOT NULL,
		id        text   NOT NULL,
		t         bigint NOT NULL,
		embedding vector(%d) NOT NULL,
		PRIMARY KEY (ns, id))`
	sqlHNSWIndex = `CREATE INDEX vectors_hnsw_embedding ON vectors_hnsw USING hnsw (embedding vector_cosine_ops)`
	// The vector goes as text ("[0.1,0.2]", [vectorLiteral]), cast by
	// PostgreSQL: pgx needs no codec for pgvector's type.
	sqlHNSWUpsert = `INSERT INTO vectors_hnsw (ns, id, t, embedding) VALUES ($1, $2, $3, $4::text::vector)
		ON CONFLICT (ns, id) DO UPDATE SET t = EXCLUDED.t, embedding = EXCLUDED.embedding`
	sqlHNSWDelete = `DELETE FROM vectors_hnsw WHERE ns = $1 AND id = $2 AND t = $3`
	sqlHNSWClear  = `DELETE FROM vectors_hnsw`
	sqlHNSWCount  = `SELECT count(*) FROM vectors_hnsw`
	// sqlHNSWSearch: <=> is cosine distance, so 1 - distance is the
	// cosine similarity that core/vector scores. Written as pgvector's
	// documentation writes an index scan: ORDER BY distance LIMIT k, with
	// nothing after the distance in the ORDER BY (ties are ordered in Go).
	sqlHNSWSearch = `SELECT id, t, 1 - (embedding <=> $2::text::vector) FROM vectors_hnsw
		WHERE ns = $1 AND t >= $3 AND t < $4
		ORDER BY embedding <=> $2::text::vector LIMIT $5`
	// sqlStagedChunks lists the chunk keys ("c" 0 id) of the buckets of
	// unpublished stages ("stage/<id>", core/store/stage.go).
	sqlStagedChunks = `SELECT key FROM kv WHERE bucket >= $1 AND bucket < $2 AND key >= $3 AND key < $4`
	// sqlVecSource is every vectime row with its vector, a layout-1 row's
	// read from vecs (time then vector), for the back-fill.
	sqlVecSource = `SELECT t.key, CASE WHEN length(t.value) > 0 THEN t.value ELSE substring(v.value FROM 9) END AS vec
		FROM kv t LEFT JOIN kv v ON v.bucket = 'vecs'::bytea
			AND v.key = substring(t.key FROM position('\x00'::bytea IN t.key) + 9)
		WHERE t.bucket = 'vectime'::bytea`
	// sqlVecSourceStats counts the vectors and reads their shortest and
	// longest lengths in bytes.
	sqlVecSourceStats = `SELECT count(*), coalesce(min(length(vec)), 0), coalesce(max(length(vec)), 0)
		FROM (` + sqlVecSource + `) s WHERE length(vec) > 0`
)

// hnswFetchCap bounds the rows one search reads from the index while it
// over-fetches past filtered ones; it is also pgvector's upper bound of
// hnsw.ef_search.
const hnswFetchCap = 1000

// hnswState is what [DB.enableHNSW] found.
type hnswState struct {
	// iterative is set for pgvector 0.8 and later, whose
	// hnsw.iterative_scan lets an index scan go on past ef_search rows
	// when a WHERE clause removes some.
	iterative bool
}

// parseVecKey splits a vectime key (store.VecKey: namespace, 0, 8-byte
// time key, chunk id) into its parts; t is in Unix nanoseconds.
func parseVecKey(key []byte) (ns string, t int64, id string, err error) {
	i := bytes.IndexByte(key, 0)
	switch {
	case i < 0:
		return "", 0, "", fmt.Errorf("vector key %q has no namespace separator", key)
	case len(key) <= i+9:
		return "", 0, "", fmt.Errorf("vector key %q is too short", key)
	}
	ns, id = string(key[:i]), string(key[i+9:])
	if !utf8.ValidString(ns) || !utf8.ValidString(id) || strings.IndexByte(id, 0) >= 0 {
		return "", 0, "", fmt.Errorf("vector key %q: namespace or id is not text", key)
	}
	return ns, store.TimeFromKey(key[i+1 : i+9]), id, nil
}

// decodeVector reads a stored vector (little-endian float32s).
func decodeVector(raw []byte) ([]float32, error) {
	if len(raw) == 0 || len(raw)%4 != 0 {
		return nil, fmt.Errorf("stored vector of %d bytes is not float32s", len(raw))
	}
	return store.DecodeVector(nil, raw), nil
}

// vectorLiteral writes v as pgvector's text form, "[0.1,-2,3e-05]", each
// number the shortest that reads back as the same float32. pgvector
// refuses NaN and infinities, and so does this.
func vectorLiteral(v []float32) (string, error) {
	if len(v) == 0 {
		return "", errors.New("empty vector")
	}
	b := make([]byte, 0, 2+len(v)*11)
	b = append(b, '[')
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return "", fmt.Errorf("vector component %d is %v", i, x)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return string(append(b, ']')), nil
}

// atLeastVersion reports whether the dotted version v ("0.8.0") is at
// least min; a part that is not a number counts as 0.
func atLeastVersion(v string, min ...int) bool {
	parts := strings.Split(v, ".")
	for i, m := range min {
		n := 0
		if i < len(parts) {
			n, _ = strconv.Atoi(parts[i])
		}
		if n != m {
			return n > m
		}
	}
	return true
}

// enableHNSW checks that pgvector is installed and brings vectors_hnsw in
// step with the store (see the top of this file). [OpenBackend] runs it
// when storage.postgres.hnsw is set.
func (db *DB) enableHNSW(ctx context.Context) (*hnswState, error) {
	var has bool
	if err := db.pool.QueryRow(ctx, sqlHasPgvector).Scan(&has); err != nil {
		return nil, fmt.Errorf("postgres: looking for the pgvector extension: %w", err)
	}
	if !has {
		return nil, fmt.Errorf("postgres: %w", ErrNoPgvector)
	}
	var version string
	if err := db.pool.QueryRow(ctx, sqlPgvectorVersion).Scan(&version); err != nil {
		return nil, fmt.Errorf("postgres: reading pgvector's version: %w", err)
	}
	if err := db.syncHNSW(ctx); err != nil {
		return nil, err
	}
	return &hnswState{iterative: atLeastVersion(version, 0, 8)}, nil
}

// tableDim reads vectors_hnsw's dimension: exists is false when there is
// no table, and dim is -1 for a column without a dimension.
func tableDim(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (dim int, exists bool, err error) {
	var mod int32
	err = q.QueryRow(ctx, sqlHNSWDim).Scan(&mod)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("reading the dimension of vectors_hnsw: %w", err)
	}
	return int(mod), true, nil
}

// syncHNSW fills vectors_hnsw again from the store when their row counts
// or dimensions differ, in one transaction that holds the store's write
// lock. The store's vectors are read through a cursor, a page at a time,
// and converted in Go. A table whose column has no dimension (made by
// hand, or the tests' stand-in) is emptied and refilled, not re-created.
func (db *DB) syncHNSW(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, storeTxLockKey); err != nil {
			return fmt.Errorf("locking the store: %w", err)
		}
		var n int64
		var minLen, maxLen int
		if err := tx.QueryRow(ctx, sqlVecSourceStats).Scan(&n, &minLen, &maxLen); err != nil {
			return fmt.Errorf("counting the store's vectors: %w", err)
		}
		if minLen != maxLen || minLen%4 != 0 {
			return fmt.Errorf("the store holds vectors of %d to %d bytes; reindex first", minLen, maxLen)
		}
		dim := maxLen / 4
		tdim, exists, err := tableDim(ctx, tx)
		if err != nil {
			return err
		}
		if !exists && n == 0 {
			return nil // created by the first vector written
		}
		if exists {
			var have int64
			if err := tx.QueryRow(ctx, sqlHNSWCount).Scan(&have); err != nil {
				return fmt.Errorf("counting vectors_hnsw: %w", err)
			}
			if have == n && (n == 0 || tdim == dim || tdim == -1) {
				return nil // in step
			}
		}
		index := false
		switch {
		case exists && (tdim == -1 || n == 0):
			if _, err := tx.Exec(ctx, sqlHNSWClear); err != nil {
				return fmt.Errorf("emptying vectors_hnsw: %w", err)
			}
		default:
			// Loading before indexing is pgvector's advice for bulk loads.
			for _, q := range []string{sqlHNSWDrop, fmt.Sprintf(sqlHNSWCreate, dim)} {
				if _, err := tx.Exec(ctx, q); err != nil {
					return fmt.Errorf("creating vectors_hnsw: %w", err)
				}
			}
			index = true
		}
		if err := backfill(ctx, tx); err != nil {
			return err
		}
		if index {
			if _, err := tx.Exec(ctx, sqlHNSWIndex); err != nil {
				return fmt.Errorf("building the HNSW index: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres: bringing vectors_hnsw in step with the store: %w", err)
	}
	return nil
}

// backfill copies every vector of the store into vectors_hnsw, 500 rows
// at a time from a cursor.
func backfill(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `DECLARE huimem_vecs NO SCROLL CURSOR FOR `+sqlVecSource); err != nil {
		return fmt.Errorf("reading the store's vectors: %w", err)
	}
	for {
		rows, err := tx.Query(ctx, `FETCH 500 FROM huimem_vecs`)
		if err != nil {
			return fmt.Errorf("reading the store's vectors: %w", err)
		}
		var batch pgx.Batch
		var convErr error
		n := 0
		for rows.Next() {
			n++
			var key, raw []byte
			if err := rows.Scan(&key, &raw); err != nil {
				convErr = err
				break
			}
			if len(raw) == 0 {
				continue // a layout-1 entry whose vector is missing
			}
			ns, t, id, err := parseVecKey(key)
			if err != nil {
				convErr = err
				break
			}
			vec, err := decodeVector(raw)
			if err != nil {
				convErr = fmt.Errorf("chunk %s: %w", id, err)
				break
			}
			lit, err := vectorLiteral(vec)
			if err != nil {
				convErr = fmt.Errorf("chunk %s: %w", id, err)
				break
			}
			batch.Queue(sqlHNSWUpsert, ns, id, t, lit)
		}
		rows.Close()
		if err := errors.Join(convErr, rows.Err()); err != nil {
			return fmt.Errorf("reading the store's vectors: %w", err)
		}
		if batch.Len() > 0 {
			if err := tx.SendBatch(ctx, &batch).Close(); err != nil {
				return fmt.Errorf("writing vectors_hnsw: %w", err)
			}
		}
		if n == 0 {
			break
		}
	}
	_, err := tx.Exec(ctx, `CLOSE huimem_vecs`)
	return err
}

// The store transaction's mirror (kv.go calls these for bucket vectime).

// hnswTable learns, once per transaction, whether vectors_hnsw exists and
// its dimension; with want > 0 it makes sure the table takes vectors of
// that dimension, creating it or, when its dimension is another,
// dropping and creating it again (the vectors of the old dimension are an
// old embedder's, which a re-embedding removes in the same transaction).
// It reports whether the table exists afterwards.
func (t *kvTx) hnswTable(want int) (bool, error) {
	if !t.hnswKnown {
		if err := t.flush(); err != nil {
			return false, err
		}
		dim, exists, err := tableDim(t.ctx, t.tx)
		if err != nil {
			t.fail(fmt.Errorf("postgres: %w", err))
			return false, t.err
		}
		t.hnswKnown, t.hnswExists, t.hnswDim = true, exists, dim
	}
	if want <= 0 || (t.hnswExists && (t.hnswDim == want || t.hnswDim == -1)) {
		return t.hnswExists, nil
	}
	// Run at once, not queued: a pipelined batch would parse the writes
	// that follow before the table exists.
	if err := t.flush(); err != nil {
		return false, err
	}
	for _, q := range []string{sqlHNSWDrop, fmt.Sprintf(sqlHNSWCreate, want), sqlHNSWIndex} {
		if _, err := t.tx.Exec(t.ctx, q); err != nil {
			t.fail(fmt.Errorf("postgres: creating vectors_hnsw for %d dimensions: %w", want, err))
			return false, t.err
		}
	}
	t.hnswExists, t.hnswDim = true, want
	return true, nil
}

// hnswPut mirrors the write of vectime key into vectors_hnsw. An empty
// value is a layout-1 entry, whose vector is read from bucket vecs.
func (t *kvTx) hnswPut(key, value []byte) error {
	ns, tm, id, err := parseVecKey(key)
	if err != nil {
		t.fail(fmt.Errorf("postgres: mirroring a vector: %w", err))
		return t.err
	}
	if len(value) == 0 {
		old := (&kvBucket{t: t, name: bucketVecs}).Get([]byte(id))
		if t.err != nil {
			return t.err
		}
		if len(old) <= 8 {
			return nil // no vector to mirror; a back-fill skips it too
		}
		value = old[8:]
	}
	vec, err := decodeVector(value)
	var lit string
	if err == nil {
		lit, err = vectorLiteral(vec)
	}
	if err != nil {
		t.fail(fmt.Errorf("postgres: mirroring the vector of chunk %s: %w", id, err))
		return t.err
	}
	if _, err := t.hnswTable(len(vec)); err != nil {
		return err
	}
	return t.exec(sqlHNSWUpsert, ns, id, tm, lit)
}

// hnswDelete mirrors the deletion of vectime key.
func (t *kvTx) hnswDelete(key []byte) error {
	ns, tm, id, err := parseVecKey(key)
	if err != nil {
		t.fail(fmt.Errorf("postgres: mirroring a vector's deletion: %w", err))
		return t.err
	}
	exists, err := t.hnswTable(0)
	if err != nil || !exists {
		return err
	}
	return t.exec(sqlHNSWDelete, ns, id, tm)
}

// hnswClear mirrors the deletion of bucket vectime.
func (t *kvTx) hnswClear() error {
	exists, err := t.hnswTable(0)
	if err != nil || !exists {
		return err
	}
	return t.exec(sqlHNSWClear)
}

// HNSW searches the vectors with pgvector's HNSW index; [OpenBackend]
// makes one when storage.postgres.hnsw is set. It is safe for concurrent
// use.
type HNSW struct {
	db *DB
	st *hnswState
}

// Search returns up to k chunks of namespace ns, with times in [since,
// before) (a zero time leaves that side open), whose vectors are closest
// to q by cosine, best first, ties to the newer chunk, as
// (*vector.Index).Search does; Score is the cosine similarity. allow,
// when set, must return true for a chunk to count. Chunks of unpublished
// staged ingests are passed by.
//
// HNSW is approximate: a search may miss some of the true k nearest.
// pgvector applies the namespace, time and allow conditions to the rows
// its graph walk returns (at most hnsw.ef_search, set here to the rows
// asked for, up to 1000), so a search over-fetches when it filters: 4k
// rows, then twice as many, up to 1000 rows, and may return fewer than k
// when most of the nearest are filtered out. pgvector 0.8's
// hnsw.iterative_scan (used when installed) lets the walk go on for the
// WHERE clause, which helps a small namespace or a narrow window.
func (h *HNSW) Search(ctx context.Context, ns string, q []float32, since, before time.Time, k int, allow func(string) bool) ([]vector.Match, error) {
	if k <= 0 {
		return nil, nil
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if !since.IsZero() {
		lo = since.UnixNano()
	}
	if !before.IsZero() {
		hi = before.UnixNano()
	}
	if lo >= hi {
		return nil, nil
	}
	lit, err := vectorLiteral(q)
	if err != nil {
		return nil, fmt.Errorf("postgres: HNSW search: %w", err)
	}
	var out []vector.Match
	err = pgx.BeginTxFunc(ctx, h.db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		dim, exists, err := tableDim(ctx, tx)
		if err != nil || !exists {
			return err // no table: no vector was ever written
		}
		if dim > 0 && dim != len(q) {
			return fmt.Errorf("query vector has dimension %d, want %d", len(q), dim)
		}
		staged, err := stagedChunks(ctx, tx)
		if err != nil {
			return err
		}
		keep := func(id string) bool { return !staged[id] && (allow == nil || allow(id)) }
		limit := k
		if allow != nil || len(staged) > 0 {
			limit = min(4*k, max(k, hnswFetchCap))
		}
		if h.st.iterative {
			if _, err := tx.Exec(ctx, `SET LOCAL hnsw.iterative_scan = relaxed_order`); err != nil {
				return fmt.Errorf("setting hnsw.iterative_scan: %w", err)
			}
		}
		for {
			out, err = searchOnce(ctx, tx, ns, lit, lo, hi, limit)
			if err != nil {
				return err
			}
			fetched := len(out)
			out = slices.DeleteFunc(out, func(m vector.Match) bool { return !keep(m.ID) })
			if len(out) >= k || fetched < limit || limit >= max(k, hnswFetchCap) {
				return nil
			}
			limit = min(2*limit, max(k, hnswFetchCap))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: HNSW search: %w", err)
	}
	// Relaxed order and equal distances: order as core/vector does.
	slices.SortStableFunc(out, func(a, b vector.Match) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Time, a.Time))
	})
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// searchOnce reads the limit nearest rows of ns in [lo, hi).
func searchOnce(ctx context.Context, tx pgx.Tx, ns, lit string, lo, hi int64, limit int) ([]vector.Match, error) {
	if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL hnsw.ef_search = %d", min(max(limit, 40), hnswFetchCap))); err != nil {
		return nil, fmt.Errorf("setting hnsw.ef_search: %w", err)
	}
	rows, err := tx.Query(ctx, sqlHNSWSearch, ns, lit, lo, hi, limit)
	if err != nil {
		return nil, err
	}
	var out []vector.Match
	for rows.Next() {
		var m vector.Match
		var score float64
		if err := rows.Scan(&m.ID, &m.Time, &score); err != nil {
			rows.Close()
			return nil, err
		}
		m.Score = float32(score)
		out = append(out, m)
	}
	return out, rows.Err()
}

// stagedChunks reads the ids of the chunks of unpublished stages
// (usually none: one index probe).
func stagedChunks(ctx context.Context, tx pgx.Tx) (map[string]bool, error) {
	rows, err := tx.Query(ctx, sqlStagedChunks, []byte("stage/"), []byte("stage0"), []byte("c\x00"), []byte("c\x01"))
	if err != nil {
		return nil, fmt.Errorf("reading staged chunks: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, fmt.Errorf("reading staged chunks: %w", err)
	}
	var out map[string]bool
	for _, k := range keys {
		if out == nil {
			out = map[string]bool{}
		}
		out[string(k[2:])] = true
	}
	return out, nil
}
