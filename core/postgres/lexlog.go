package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// The lexical index's change log (migration 9): what lets each server's
// in-memory copy (lexmirror.go) follow the writes of every server.

// lexLogLockKey serialises the log's numbering: an apply takes it just
// before it numbers its row, and holds it to its commit, so that the
// numbers are in commit order and a reader that has seen number N has
// seen every change numbered below N.
const lexLogLockKey int64 = 0x6875696d656d0003

// floorKey is the meta row (default namespace) that holds the highest
// log number whose row may be gone: pruned, or emptied by a reset.
const floorKey = "lex_log_floor"

// logPruneEvery and logKeep: every logPruneEvery-th apply prunes the rows
// older than logKeep.
const (
	logPruneEvery = 64
	logKeep       = "1 hour"
)

// logChange records, as the last write of an apply's transaction, that
// the chunks ids were written or removed.
func logChange(ctx context.Context, tx pgx.Tx, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lexLogLockKey); err != nil {
		return fmt.Errorf("logging the change: %w", err)
	}
	var seq int64
	if err := tx.QueryRow(ctx, `INSERT INTO lex_log (seq, ids) VALUES (nextval('lex_log_seq'), $1) RETURNING seq`, ids).Scan(&seq); err != nil {
		return fmt.Errorf("logging the change: %w", err)
	}
	if seq%logPruneEvery != 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `WITH gone AS (DELETE FROM lex_log WHERE at < now() - interval '`+logKeep+`' RETURNING seq)
		INSERT INTO meta (ns, key, value) SELECT '', $1, convert_to(max(seq)::text, 'UTF8') FROM gone HAVING count(*) > 0
		ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value`, floorKey)
	if err != nil {
		return fmt.Errorf("pruning the change log: %w", err)
	}
	return nil
}

// resetLog empties the log inside a reset's transaction and raises the
// floor past every number given so far, so that every copy loads again.
func resetLog(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lexLogLockKey); err != nil {
		return fmt.Errorf("emptying the change log: %w", err)
	}
	_, err := tx.Exec(ctx, `WITH gone AS (DELETE FROM lex_log)
		INSERT INTO meta (ns, key, value) VALUES ('', $1, convert_to(nextval('lex_log_seq')::text, 'UTF8'))
		ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value`, floorKey)
	if err != nil {
		return fmt.Errorf("emptying the change log: %w", err)
	}
	return nil
}

// sqlLogHead reads the log's last number and its floor.
var sqlLogHead = `SELECT coalesce((SELECT max(seq) FROM lex_log), 0),
	coalesce((SELECT convert_from(value, 'UTF8') FROM meta WHERE ns = '' AND key = '` + floorKey + `'), '0')`

// logHead returns the log's last number and its floor.
func (db *DB) logHead(ctx context.Context) (last, floor int64, err error) {
	var f string
	if err := db.pool.QueryRow(ctx, sqlLogHead).Scan(&last, &f); err != nil {
		return 0, 0, fmt.Errorf("reading the lexical change log: %w", err)
	}
	if floor, err = strconv.ParseInt(f, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("reading the lexical change log's floor %q: %w", f, err)
	}
	return last, floor, nil
}
