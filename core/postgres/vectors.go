package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// VectorChannel is the LISTEN/NOTIFY channel on which the database
// announces vector changes: the engine's store (store.VectorChannel) and
// migration 3's triggers on the vectors table.
const VectorChannel = store.VectorChannel

// PutVectorTx stores a chunk's vector (L2-normalised float32s) inside tx;
// t is the chunk's time. The servers' caches hear of it when tx commits.
// With HNSW enabled (see [DB.EnableHNSW]) it writes the pgvector copy too.
func (db *DB) PutVectorTx(ctx context.Context, tx pgx.Tx, ns, id string, t time.Time, vec []float32) error {
	_, err := tx.Exec(ctx, `INSERT INTO vectors (ns, id, t, vec) VALUES ($1, $2, $3, $4)
		ON CONFLICT (ns, id) DO UPDATE SET t = EXCLUDED.t, vec = EXCLUDED.vec`, ns, id, t, store.EncodeVector(vec))
	if err == nil && db.hnsw.Load() {
		_, err = tx.Exec(ctx, `INSERT INTO vectors_hnsw (ns, id, t, embedding) VALUES ($1, $2, $3, $4::vector)
			ON CONFLICT (ns, id) DO UPDATE SET t = EXCLUDED.t, embedding = EXCLUDED.embedding`, ns, id, t, vectorLiteral(vec))
	}
	if err != nil {
		return fmt.Errorf("storing the vector of chunk %s: %w", id, err)
	}
	return nil
}

// DeleteVectorTx removes a chunk's vector inside tx.
func (db *DB) DeleteVectorTx(ctx context.Context, tx pgx.Tx, ns, id string) error {
	_, err := tx.Exec(ctx, `DELETE FROM vectors WHERE ns = $1 AND id = $2`, ns, id)
	if err == nil && db.hnsw.Load() {
		_, err = tx.Exec(ctx, `DELETE FROM vectors_hnsw WHERE ns = $1 AND id = $2`, ns, id)
	}
	if err != nil {
		return fmt.Errorf("removing the vector of chunk %s: %w", id, err)
	}
	return nil
}

// VectorLoader returns a [vector.Loader] that reads a namespace's vectors
// in time order from the database, for a [vector.Index] kept in this
// server's memory.
func (db *DB) VectorLoader() vector.Loader {
	return func(ns string, from, to time.Time, fn func(id string, unixNano int64, raw []byte) error) error {
		ctx := context.Background()
		sql := `SELECT id, t, vec FROM vectors WHERE ns = $1`
		args := []any{ns}
		if !from.IsZero() {
			args = append(args, from)
			sql += " AND t >= $" + strconv.Itoa(len(args))
		}
		if !to.IsZero() {
			args = append(args, to)
			sql += " AND t < $" + strconv.Itoa(len(args))
		}
		rows, err := db.pool.Query(ctx, sql+" ORDER BY t, id", args...)
		if err != nil {
			return fmt.Errorf("reading vectors of namespace %q: %w", ns, err)
		}
		defer rows.Close()
		var id string
		var t time.Time
		var raw []byte
		for rows.Next() {
			if err := rows.Scan(&id, &t, &raw); err != nil {
				return fmt.Errorf("reading vectors of namespace %q: %w", ns, err)
			}
			if err := fn(id, t.UnixNano(), raw); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}

// NewVectorIndex returns an exact cosine index over the database's
// vectors, cached per namespace in this server (see core/vector). Keep it
// fresh with [DB.WatchVectors].
func (db *DB) NewVectorIndex(dim int, o vector.Options) *vector.Index {
	return vector.NewWithOptions(dim, db.VectorLoader(), o)
}

// Invalidator is what a vector watcher tells of changes: a
// [vector.Index] satisfies it.
type Invalidator interface {
	// Invalidate drops what is cached of namespace ns around time t (its
	// week).
	Invalidate(ns string, t time.Time)
	// Reset drops everything cached.
	Reset()
}

var _ Invalidator = (*vector.Index)(nil)

// Watcher listens for vector changes on one dedicated connection and
// passes them to an [Invalidator].
type Watcher struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error
	heard  int
}

// WatchVectors starts listening on [VectorChannel] and returns once the
// listener is in place: every change committed after it returns reaches
// inv. When the connection drops, the watcher resets inv (it may have
// missed changes) and listens again. Stop it with [Watcher.Close].
func (db *DB) WatchVectors(ctx context.Context, inv Invalidator) (*Watcher, error) {
	conn, err := db.listen(ctx)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{cancel: cancel, done: make(chan struct{})}
	go w.run(wctx, db, conn, inv)
	return w, nil
}

func (db *DB) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig)
	if err != nil {
		return nil, fmt.Errorf("connecting the vector listener: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+VectorChannel); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("listening on %s: %w", VectorChannel, err)
	}
	return conn, nil
}

func (w *Watcher) run(ctx context.Context, db *DB, conn *pgx.Conn, inv Invalidator) {
	defer close(w.done)
	backoff := 50 * time.Millisecond
	for {
		n, err := conn.WaitForNotification(ctx)
		if ctx.Err() != nil {
			conn.Close(context.Background())
			return
		}
		if err == nil {
			w.apply(n.Payload, inv)
			backoff = 50 * time.Millisecond
			continue
		}
		// The connection is gone: changes may have been missed.
		conn.Close(context.Background())
		w.setErr(err)
		inv.Reset()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			if conn, err = db.listen(ctx); err == nil {
				// Anything committed while we were away.
				inv.Reset()
				break
			}
			w.setErr(err)
		}
	}
}

// change is one element of a notification's payload.
type change = store.VectorChange

// GenListener is an [Invalidator] that wants to know the store
// generation each notification brings it up to (store.Notice).
type GenListener interface {
	Heard(gen uint64)
}

// apply passes one notification to inv. Payloads are a store.Notice (the
// engine's store), a list of changes (migration 3's triggers), or
// "reset".
func (w *Watcher) apply(payload string, inv Invalidator) {
	var n store.Notice
	var cs []change
	switch {
	case strings.HasPrefix(strings.TrimSpace(payload), "{") && json.Unmarshal([]byte(payload), &n) == nil:
		for _, c := range n.Changes {
			if c.NS == "*" {
				inv.Reset()
				break
			}
			inv.Invalidate(c.NS, c.T)
		}
		if g, ok := inv.(GenListener); ok {
			g.Heard(n.Gen)
		}
	case strings.TrimSpace(payload) != `"reset"` && json.Unmarshal([]byte(payload), &cs) == nil:
		for _, c := range cs {
			inv.Invalidate(c.NS, c.T)
		}
	default:
		inv.Reset()
	}
	w.mu.Lock()
	w.heard++
	w.mu.Unlock()
}

func (w *Watcher) setErr(err error) {
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
}

// Heard returns how many notifications the watcher has applied, and the
// last connection error it met (nil if none).
func (w *Watcher) Heard() (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.heard, w.err
}

// Close stops the watcher and waits for it.
func (w *Watcher) Close() {
	w.cancel()
	<-w.done
}

// ErrNoPgvector means the pgvector extension is not installed in the
// database.
var ErrNoPgvector = errors.New("postgres: the pgvector extension is not installed (CREATE EXTENSION vector)")

func detectPgvector(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (bool, error) {
	var ok bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')`).Scan(&ok); err != nil {
		return false, fmt.Errorf("postgres: detecting pgvector: %w", err)
	}
	return ok, nil
}

// EnableHNSW creates, when pgvector is installed, the vectors_hnsw table
// (a vector(dim) copy of the vectors table, kept in step by a trigger)
// and its HNSW index for inner-product search. Without pgvector it
// returns [ErrNoPgvector] and changes nothing.
func (db *DB) EnableHNSW(ctx context.Context, dim int) error {
	if !db.pgvec {
		return ErrNoPgvector
	}
	if dim <= 0 || dim > 2000 {
		return fmt.Errorf("postgres: HNSW needs 1 to 2000 dimensions, not %d", dim)
	}
	return db.InTx(ctx, func(tx pgx.Tx) error {
		for _, sql := range []string{
			fmt.Sprintf(`CREATE TABLE IF NOT EXISTS vectors_hnsw (
				ns text NOT NULL, id text NOT NULL, t timestamptz NOT NULL, embedding vector(%d) NOT NULL,
				PRIMARY KEY (ns, id))`, dim),
			`CREATE INDEX IF NOT EXISTS vectors_hnsw_ip ON vectors_hnsw USING hnsw (embedding vector_ip_ops)`,
		} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("postgres: enabling HNSW: %w", err)
			}
		}
		// Copy what is stored already.
		rows, err := tx.Query(ctx, `SELECT ns, id, t, vec FROM vectors`)
		if err != nil {
			return fmt.Errorf("postgres: enabling HNSW: %w", err)
		}
		batch := &pgx.Batch{}
		for rows.Next() {
			var ns, id string
			var t time.Time
			var raw []byte
			if err := rows.Scan(&ns, &id, &t, &raw); err != nil {
				rows.Close()
				return fmt.Errorf("postgres: enabling HNSW: %w", err)
			}
			batch.Queue(`INSERT INTO vectors_hnsw (ns, id, t, embedding) VALUES ($1, $2, $3, $4::vector)
				ON CONFLICT (ns, id) DO UPDATE SET t = EXCLUDED.t, embedding = EXCLUDED.embedding`,
				ns, id, t, vectorLiteral(store.DecodeVector(nil, raw)))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("postgres: enabling HNSW: %w", err)
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return fmt.Errorf("postgres: enabling HNSW: %w", err)
		}
		db.hnsw.Store(true)
		return nil
	})
}

// SearchHNSW returns the k chunks of namespace ns, with times in [since,
// before), nearest to q by inner product, through the HNSW index. The
// index is approximate, and a narrow filter (a small namespace, a short
// window) can return fewer than k: pgvector filters after the graph
// search unless hnsw.iterative_scan is on (pgvector 0.8).
func (db *DB) SearchHNSW(ctx context.Context, ns string, q []float32, since, before time.Time, k int) ([]vector.Match, error) {
	if !db.pgvec {
		return nil, ErrNoPgvector
	}
	lit := vectorLiteral(q)
	sql := `SELECT id, t, -(embedding <#> $2::vector) FROM vectors_hnsw WHERE ns = $1`
	args := []any{ns, lit}
	if !since.IsZero() {
		args = append(args, since)
		sql += " AND t >= $" + strconv.Itoa(len(args))
	}
	if !before.IsZero() {
		args = append(args, before)
		sql += " AND t < $" + strconv.Itoa(len(args))
	}
	args = append(args, k)
	rows, err := db.pool.Query(ctx, sql+" ORDER BY embedding <#> $2::vector LIMIT $"+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: HNSW search: %w", err)
	}
	defer rows.Close()
	var out []vector.Match
	for rows.Next() {
		var m vector.Match
		var t time.Time
		var score float64
		if err := rows.Scan(&m.ID, &t, &score); err != nil {
			return nil, fmt.Errorf("postgres: HNSW search: %w", err)
		}
		m.Time, m.Score = t.UnixNano(), float32(score)
		out = append(out, m)
	}
	return out, rows.Err()
}

// vectorLiteral renders v as a pgvector literal, "[0.1,0.2]".
func vectorLiteral(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, f := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}
