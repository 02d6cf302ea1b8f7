package postgres

// Keeping vectors_hnsw in step with the store (hnsw.go): the check and
// back-fill on opening, and each store transaction's mirror of bucket
// vectime.

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// enableHNSW checks that pgvector is installed and brings vectors_hnsw in
// step with the store (see the top of hnsw.go). [OpenBackend] runs it
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
