package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core"
)

// The parts of the store that concurrent servers must agree on. The rest
// of the store (messages, chunks, sessions, weeks, sources) maps table for
// bucket onto the schema; docs/postgres.md lists the mapping.

// SessionLockKey is the advisory lock key of a session: the first 8 bytes
// of FNV-1a over namespace, 0, session.
func SessionLockKey(ns, session string) int64 {
	h := fnv.New64a()
	h.Write([]byte(ns))
	h.Write([]byte{0})
	h.Write([]byte(session))
	return int64(h.Sum64())
}

// LockSessionsTx takes the transaction-level advisory locks of the given
// sessions of namespace ns, in key order so that two writers never wait on
// each other in a cycle. The locks are held until tx ends: every writer
// that rebuilds a session's chunk chain takes them first, so that chunk
// ids, their order and their prev/next anchors are computed by one server
// at a time for that session.
func LockSessionsTx(ctx context.Context, tx pgx.Tx, ns string, sessions []string) error {
	keys := make([]int64, 0, len(sessions))
	for _, s := range sessions {
		keys = append(keys, SessionLockKey(ns, s))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) WITH ORDINALITY AS u(k, o) ORDER BY o`, keys); err != nil {
		return fmt.Errorf("locking %d sessions: %w", len(keys), err)
	}
	return nil
}

// AllocIDTx returns the short id of chunk key k in namespace ns: the one
// it already has, or the shortest prefix of its base-32 form, at least
// core.MinIDLen long, that no other chunk of the namespace holds, and
// records it. Two servers allocating at once never get the same id: the
// unique index on (ns, id) makes the second wait for the first to commit
// and then try a longer prefix.
func AllocIDTx(ctx context.Context, tx pgx.Tx, ns string, k core.ChunkKey) (string, error) {
	var id string
	err := tx.QueryRow(ctx, `SELECT id FROM chunk_keys WHERE ns = $1 AND chunk_key = $2`, ns, k[:]).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("reading the id of chunk key %x: %w", k, err)
	}
	for n := core.MinIDLen; n <= core.MaxIDLen; n++ {
		cand := k.ID(n)
		// ON CONFLICT DO NOTHING covers both the id (taken by another key)
		// and the key (given an id by another server meanwhile).
		tag, err := tx.Exec(ctx, `INSERT INTO chunk_keys (ns, chunk_key, id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, ns, k[:], cand)
		if err != nil {
			return "", fmt.Errorf("allocating an id for chunk key %x: %w", k, err)
		}
		if tag.RowsAffected() == 1 {
			return cand, nil
		}
		err = tx.QueryRow(ctx, `SELECT id FROM chunk_keys WHERE ns = $1 AND chunk_key = $2`, ns, k[:]).Scan(&id)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return "", fmt.Errorf("allocating an id for chunk key %x: %w", k, err)
		}
	}
	return "", fmt.Errorf("no free id for chunk key %x", k)
}

// BumpGenTx increments namespace ns's generation inside tx and returns
// it.
func BumpGenTx(ctx context.Context, tx pgx.Tx, ns string) (uint64, error) {
	var g int64
	err := tx.QueryRow(ctx, `INSERT INTO generations AS g (ns, gen) VALUES ($1, 1)
		ON CONFLICT (ns) DO UPDATE SET gen = g.gen + 1 RETURNING gen`, ns).Scan(&g)
	if err != nil {
		return 0, fmt.Errorf("bumping the generation of namespace %q: %w", ns, err)
	}
	return uint64(g), nil
}

// PutTranscriptTx writes a session transcript (the embedded home's
// sessions/<path> file) whole.
func PutTranscriptTx(ctx context.Context, tx pgx.Tx, ns, path string, data []byte) error {
	sum := sha256.Sum256(data)
	_, err := tx.Exec(ctx, `INSERT INTO transcripts (ns, path, data, sha256) VALUES ($1, $2, $3, $4)
		ON CONFLICT (ns, path) DO UPDATE SET data = EXCLUDED.data, sha256 = EXCLUDED.sha256, updated = now()`,
		ns, path, data, hex.EncodeToString(sum[:]))
	if err != nil {
		return fmt.Errorf("writing transcript %s: %w", path, err)
	}
	return nil
}

// Transcript reads a transcript, or returns an error wrapping
// [core.ErrNotFound].
func (db *DB) Transcript(ctx context.Context, ns, path string) ([]byte, error) {
	var data []byte
	err := db.pool.QueryRow(ctx, `SELECT data FROM transcripts WHERE ns = $1 AND path = $2`, ns, path).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("transcript %s: %w", path, core.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading transcript %s: %w", path, err)
	}
	return data, nil
}
