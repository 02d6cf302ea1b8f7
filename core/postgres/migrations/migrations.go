// Package migrations holds the PostgreSQL backend's schema as versioned
// SQL files, NNNN_name.sql, embedded in the binary, and applies them.
//
// The database records the versions applied in the schema_version table.
// [Apply] runs the missing ones in order, each in its own transaction with
// its row in schema_version, under a transaction-level advisory lock so
// that several servers starting together apply each version once. A
// database whose version is newer than the binary's is refused: an old
// binary must not write a schema it does not know.
//
// Changelog (one file per version; never edit a released file, add one):
//
//	1: the store: messages, chunk ids, chunks, sessions, vectors, sources,
//	   transcripts, sealed weeks, generations.
//	2: the lexical index: lex_docs (a tsvector per chunk), lex_terms,
//	   lex_stats, and the lex_tf and lex_bm25 functions.
//	3: LISTEN/NOTIFY on vector changes (statement triggers).
//	4: kv and kv_buckets: the engine's store as ordered buckets of keys
//	   (core/store's KV interface).
//	5: an index on lex_terms by term.
//	6: drops the tables, sequence and triggers of 1 and 3 that the kv
//	   store replaced (meta stays: it holds the index generation).
//	7: lex_docs.tf, each chunk's terms and frequencies as a jsonb map,
//	   filled from the tsvectors (rows up to 8 kB stay uncompressed), and
//	   a GIN index per field in place of the one over the tsvector.
//	8: drops version 5's index (lex_terms is read by its primary key,
//	   the fields listed) and leaves room on lex_terms' pages for its
//	   updates.
//	9: lex_log, the lexical index's change log, numbered in commit order
//	   (lex_log_seq), that each server's in-memory copy follows.
package migrations

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed *.sql
var files embed.FS

// lockID is the advisory lock key taken while migrating ("huimemig").
const lockID = 0x6875696d656d6967

// Migration is one schema version.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// ErrTooNew means the database has a schema version this binary does not
// know.
var ErrTooNew = errors.New("database schema is newer than this binary")

// All returns the embedded migrations in version order. The versions run
// 1, 2, 3, ... without gaps.
func All() ([]Migration, error) {
	ents, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var out []Migration
	for _, e := range ents {
		name := e.Name()
		num, rest, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(rest, ".sql") {
			return nil, fmt.Errorf("migrations: file %q is not named NNNN_name.sql", name)
		}
		b, err := files.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("migrations: %w", err)
		}
		out = append(out, Migration{Version: v, Name: strings.TrimSuffix(rest, ".sql"), SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migrations: version %d follows %d", m.Version, i)
		}
	}
	return out, nil
}

// Latest returns the newest version.
func Latest() int {
	all, err := All()
	if err != nil {
		return 0
	}
	return len(all)
}

// Conn is what Apply needs: a pgx connection or pool.
type Conn interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Version returns the database's schema version, 0 for an empty one.
func Version(ctx context.Context, c Conn) (int, error) {
	tx, err := c.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("reading schema version: %w", err)
	}
	defer tx.Rollback(ctx)
	return version(ctx, tx)
}

func version(ctx context.Context, tx pgx.Tx) (int, error) {
	var v int
	err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&v)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading schema version: %w", err)
	}
	return v, nil
}

// Apply brings the database up to version target (0 means the latest)
// and returns the versions it applied. It is safe to call from several
// processes at once.
func Apply(ctx context.Context, c Conn, target int) ([]int, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	if target == 0 {
		target = len(all)
	}
	if target < 0 || target > len(all) {
		return nil, fmt.Errorf("migrations: no version %d (latest is %d)", target, len(all))
	}
	var applied []int
	for {
		done, v, err := applyNext(ctx, c, all, target)
		if err != nil {
			return applied, err
		}
		if done {
			return applied, nil
		}
		applied = append(applied, v)
	}
}

// applyNext applies the next missing version in one transaction.
func applyNext(ctx context.Context, c Conn, all []Migration, target int) (done bool, v int, err error) {
	tx, err := c.Begin(ctx)
	if err != nil {
		return false, 0, fmt.Errorf("migrating: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(lockID)); err != nil {
		return false, 0, fmt.Errorf("migrating: taking the lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version integer PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())`); err != nil {
		return false, 0, fmt.Errorf("migrating: creating schema_version: %w", err)
	}
	cur, err := version(ctx, tx)
	if err != nil {
		return false, 0, err
	}
	if cur > len(all) {
		return false, 0, fmt.Errorf("migrations: %w: version %d, this binary knows %d", ErrTooNew, cur, len(all))
	}
	if cur >= target {
		return true, 0, tx.Commit(ctx)
	}
	m := all[cur]
	if _, err := tx.Exec(ctx, m.SQL); err != nil {
		return false, 0, fmt.Errorf("migrations: applying %04d_%s: %w", m.Version, m.Name, err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO schema_version (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
		return false, 0, fmt.Errorf("migrations: recording version %d: %w", m.Version, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, 0, fmt.Errorf("migrations: committing version %d: %w", m.Version, err)
	}
	return false, m.Version, nil
}
