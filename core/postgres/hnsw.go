package postgres

// pgvector's HNSW index, optional (storage.postgres.hnsw).
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
//     bucket, is mirrored in the same store transaction (kv.go,
//     hnswmirror.go), so the table commits with the store and is as fresh
//     as it; it needs no notifications.
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
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/store"
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
	// sqlStagedChunks lists the chunk keys ("t" 0 time id, or a version-7
	// stage's "c" 0 id) of the buckets of the unpublished stages
	// ("stage/<id>" for each id in "stages", core/store/stage.go); a
	// published stage's bucket waits for its sweep and lists chunks that
	// are visible.
	sqlStagedChunks = `SELECT c.key FROM kv s JOIN kv c
		ON c.bucket = convert_to('stage/' || (convert_from(s.value, 'UTF8')::jsonb->>'id'), 'UTF8')
		WHERE s.bucket = $1 AND ((c.key >= $2 AND c.key < $3) OR (c.key >= $4 AND c.key < $5))`
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
