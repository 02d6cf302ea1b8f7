package postgres

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

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
	rows, err := tx.Query(ctx, sqlStagedChunks, []byte("stages"), []byte("c\x00"), []byte("c\x01"), []byte("t\x00"), []byte("t\x01"))
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
		if id := store.StagedChunkID(k); id != nil {
			out[string(id)] = true
		}
	}
	return out, nil
}
