package postgres

// KV is core/store's key-value interface on two tables (migration 4):
// kv_buckets (name, seq) and kv (bucket, key, value). The engine's store
// runs on it unchanged, so both backends share one definition of every
// record, id and anchor.
//
//   - View is a REPEATABLE READ, READ ONLY transaction: one snapshot, as a
//     bbolt read transaction. It begins at its first use, and its
//     ROLLBACK goes with the next transaction's BEGIN (kvpark.go).
//   - Update is a READ COMMITTED transaction that first takes a
//     transaction-level advisory lock, so store writes from every server
//     commit one at a time and each sees all the others' commits, as
//     bbolt's single writer does. Writes are queued and sent in one
//     pipelined batch before the next read and at commit.
//   - Reads ahead (store.Prefetcher, kvprefetch.go): keys named before
//     they are read come in one round trip, with the transaction's
//     BEGIN when it has not begun.
//   - LockWriter is the engine's writer lock across servers: a
//     session-level advisory lock held on a connection of its own for
//     the whole write section. A server that dies loses its connection,
//     and PostgreSQL releases the lock.
//   - Notify queues pg_notify calls, delivered at commit.
//
// bbolt's methods return no error for reads; here a failed query makes
// the transaction fail: the first error is kept and returned by View or
// Update, whatever fn returned, and reads after it return nothing.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// Advisory lock keys (one 64-bit key space per database).
const (
	// writerLockKey is the engine's writer lock (KV.LockWriter).
	writerLockKey int64 = 0x6875696d656d0001 // "huimem" 1
	// storeTxLockKey serialises store write transactions.
	storeTxLockKey int64 = 0x6875696d656d0002
)

// KV is the store's key-value interface on the database. It is safe for
// concurrent use.
type KV struct {
	db *DB
	// lock is the connection that holds the writer lock, if held.
	lock *pgxpool.Conn
	// hnsw, when set, mirrors bucket vectime into vectors_hnsw (hnsw.go).
	hnsw *hnswState
}

var (
	_ store.KV           = (*KV)(nil)
	_ store.WriterLocker = (*KV)(nil)
	_ store.Notifier     = (*KV)(nil)
)

// KV returns the database's key-value store; open a store on it with
// store.OpenKV.
func (db *DB) KV() *KV { return &KV{db: db} }

// Close releases the writer lock if this KV holds it; the pool belongs to
// the DB.
func (k *KV) Close() error {
	k.UnlockWriter()
	return nil
}

// View runs fn in a read-only snapshot.
func (k *KV) View(fn func(store.KVTx) error) error {
	return k.run(false, fn)
}

// Update runs fn in a write transaction.
func (k *KV) Update(fn func(store.KVTx) error) error {
	return k.run(true, fn)
}

func (k *KV) run(write bool, fn func(store.KVTx) error) error {
	ctx := context.Background()
	// A parked connection's transaction is still open: begin rolls it
	// back first.
	conn := k.db.parked.unpark()
	parked := conn != nil
	if conn == nil {
		var err error
		if conn, err = k.db.pool.Acquire(ctx); err != nil {
			return fmt.Errorf("postgres: beginning a store transaction: %w", err)
		}
	}
	t := &kvTx{ctx: ctx, tx: conn, write: write, hnsw: write && k.hnsw != nil, parked: parked}
	committed := false
	defer func() {
		switch {
		case committed || !t.begun && !parked:
			conn.Release()
		case !write && !conn.Conn().IsClosed():
			// A read-only transaction ends with the next BEGIN.
			k.db.parked.park(conn)
		default:
			rollBack(conn)
		}
	}()
	if write {
		if err := t.begin(); err != nil {
			return err
		}
	}
	ferr := fn(t)
	if t.err != nil {
		return t.err
	}
	if ferr != nil {
		return ferr
	}
	if !write {
		return nil
	}
	for _, n := range t.notes {
		t.queue.Queue(`SELECT pg_notify($1, $2)`, n[0], n[1])
	}
	if err := t.flushPending(""); err != nil {
		return err
	}
	tag, err := conn.Exec(ctx, "COMMIT")
	if err == nil && tag.String() != "COMMIT" {
		err = pgx.ErrTxCommitRollback
	}
	if err != nil {
		return fmt.Errorf("postgres: committing a store transaction: %w", err)
	}
	committed = true
	return nil
}

// sqlStoreSettings sets the planner for a store transaction. Every
// statement of the store is a lookup or a walk of the primary key, so:
// generic plans, which are the right ones whatever the values, where a
// custom plan follows statistics that lag a bulk load; and no sequential
// scan, which a plan cached while the table was a page or two chooses
// and keeps as the table grows.
const sqlStoreSettings = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true)`

// begin starts the transaction and reads the bucket names, in one round
// trip: the ROLLBACK of a parked connection (kvpark.go), BEGIN, for a
// write the store's transaction lock, the names, the meta bucket, and the
// keys named by Prefetch so far. A write transaction starts before
// fn runs; a read-only one at its first use of a bucket (see ensure), so
// that the reads fn names first come with its start.
func (t *kvTx) begin() error {
	t.begun = true
	begin := "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	if t.write {
		begin = "BEGIN ISOLATION LEVEL READ COMMITTED"
	}
	batch := &pgx.Batch{}
	if t.parked {
		batch.Queue("ROLLBACK")
	}
	batch.Queue(begin)
	batch.Queue(sqlStoreSettings)
	if t.write {
		batch.Queue(`SELECT pg_advisory_xact_lock($1)`, storeTxLockKey)
	}
	batch.Queue(`SELECT name FROM kv_buckets`)
	batch.Queue(sqlReadMeta)
	take := t.queueReadAhead(batch)
	res := t.tx.SendBatch(t.ctx, batch)
	defer res.Close()
	if t.parked {
		if _, err := res.Exec(); err != nil {
			return fmt.Errorf("postgres: ending a parked transaction: %w", err)
		}
	}
	for range 2 { // BEGIN, the settings
		if _, err := res.Exec(); err != nil {
			return fmt.Errorf("postgres: beginning a store transaction: %w", err)
		}
	}
	if t.write {
		if _, err := res.Exec(); err != nil {
			return fmt.Errorf("postgres: locking the store: %w", err)
		}
	}
	rows, err := res.Query()
	if err != nil {
		return fmt.Errorf("postgres: reading buckets: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return fmt.Errorf("postgres: reading buckets: %w", err)
	}
	t.buckets = make(map[string]bool, len(names))
	for _, n := range names {
		t.buckets[string(n)] = true
	}
	if err := t.takeMeta(res); err != nil {
		return err
	}
	if err := take(res); err != nil {
		return err
	}
	if err := res.Close(); err != nil {
		return fmt.Errorf("postgres: beginning a store transaction: %w", err)
	}
	return nil
}

// Notify queues pg_notify(channel, payload) in tx, sent when it commits.
func (k *KV) Notify(tx store.KVTx, channel, payload string) error {
	t, ok := tx.(*kvTx)
	if !ok || !t.write {
		return errors.New("postgres: Notify needs a write transaction of this KV")
	}
	t.notes = append(t.notes, [2]string{channel, payload})
	return nil
}

// LockWriter takes the writer lock, waiting at most wait for the server
// that holds it, and returns how long it waited. It blocks in
// pg_advisory_lock under a lock_timeout rather than polling, so that
// waiting servers are served in the order they came (PostgreSQL queues
// lock requests) and a server that releases the lock cannot take it back
// ahead of them.
func (k *KV) LockWriter(ctx context.Context, wait time.Duration) (time.Duration, error) {
	start := time.Now()
	conn, err := k.db.pool.Acquire(ctx)
	if err != nil {
		return time.Since(start), fmt.Errorf("postgres: taking the writer lock: %w", err)
	}
	ms := max(wait.Milliseconds(), 1)
	_, err = conn.Exec(ctx, fmt.Sprintf("SET lock_timeout = %d", ms))
	if err == nil {
		_, err = conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, writerLockKey)
	}
	waited := time.Since(start)
	if err != nil {
		// The connection goes back to the pool only in a known state.
		conn.Hijack().Close(context.Background())
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "55P03" { // lock_not_available
			return waited, fmt.Errorf("%w: another server is writing to this database; waited %s for it (storage.lock_wait); try again later or raise storage.lock_wait",
				core.ErrLocked, wait.Round(time.Millisecond))
		}
		return waited, fmt.Errorf("postgres: taking the writer lock: %w", err)
	}
	if _, err := conn.Exec(ctx, "RESET lock_timeout"); err != nil {
		conn.Hijack().Close(context.Background()) // closing releases the lock
		return waited, fmt.Errorf("postgres: taking the writer lock: %w", err)
	}
	k.lock = conn
	return waited, nil
}

// UnlockWriter releases the writer lock.
func (k *KV) UnlockWriter() {
	if k.lock == nil {
		return
	}
	conn := k.lock
	k.lock = nil
	if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, writerLockKey); err != nil {
		// The lock is the connection's: closing it releases the lock.
		conn.Hijack().Close(context.Background())
		return
	}
	conn.Release()
}

// kvConn is the connection a kvTx runs on, inside the transaction that
// kvTx.begin started.
type kvConn interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// kvTx is a transaction of KV.
type kvTx struct {
	ctx     context.Context
	tx      kvConn
	write   bool
	buckets map[string]bool
	queue   pgx.Batch
	// pend holds the puts and deletes not yet sent, by bucket and key
	// (the last write of a key wins): a key written many times in one
	// transaction, such as a counter, reaches the table once, and reads
	// of pending keys need no round trip.
	pend  map[string]map[string]pendingWrite
	npend int
	// cache holds what read-aheads (kvprefetch.go) found, by bucket and
	// key: the value, or nil for a key that is absent. want holds the keys
	// named by Prefetch and not read yet, nwant how many.
	cache map[string]map[string][]byte
	want  map[string][][]byte
	nwant int
	// whole holds the buckets that cache holds whole (the meta bucket,
	// read as the transaction begins): a key it lacks is absent.
	whole map[string]bool
	notes [][2]string
	err   error
	// hnsw mirrors vectime into vectors_hnsw; the table's state is read
	// on first use (hnswTable).
	hnsw                  bool
	hnswKnown, hnswExists bool
	hnswDim               int
	// begun is set once BEGIN has been sent (see begin); parked when the
	// connection comes parked, with a transaction to roll back first.
	begun, parked bool
}

func (t *kvTx) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// ensure starts a read-only transaction at its first use; it returns
// false when the transaction has failed.
func (t *kvTx) ensure() bool {
	if !t.begun && t.err == nil {
		if err := t.begin(); err != nil {
			t.fail(err)
		}
	}
	return t.err == nil
}

func (t *kvTx) Writable() bool { return t.write }

func (t *kvTx) Bucket(name []byte) store.Bucket {
	if !t.ensure() || !t.buckets[string(name)] {
		return nil
	}
	return &kvBucket{t: t, name: bytes.Clone(name)}
}

func (t *kvTx) CreateBucket(name []byte) (store.Bucket, error) {
	if !t.ensure() {
		return nil, t.err
	}
	if t.buckets[string(name)] {
		return nil, fmt.Errorf("postgres: bucket %q already exists", name)
	}
	return t.CreateBucketIfNotExists(name)
}

func (t *kvTx) CreateBucketIfNotExists(name []byte) (store.Bucket, error) {
	if !t.ensure() {
		return nil, t.err
	}
	if !t.buckets[string(name)] {
		if err := t.exec(`INSERT INTO kv_buckets (name) VALUES ($1) ON CONFLICT DO NOTHING`, bytes.Clone(name)); err != nil {
			return nil, err
		}
		t.buckets[string(name)] = true
	}
	return &kvBucket{t: t, name: bytes.Clone(name)}, nil
}

func (t *kvTx) DeleteBucket(name []byte) error {
	if !t.ensure() {
		return t.err
	}
	if !t.buckets[string(name)] {
		return fmt.Errorf("postgres: bucket %q: %w", name, core.ErrNotFound)
	}
	n := bytes.Clone(name)
	if m := t.pend[string(name)]; m != nil {
		t.npend -= len(m)
		delete(t.pend, string(name))
	}
	t.nwant -= len(t.want[string(name)])
	delete(t.want, string(name))
	delete(t.cache, string(name))
	delete(t.whole, string(name))
	if err := t.exec(`DELETE FROM kv WHERE bucket = $1`, n); err != nil {
		return err
	}
	if t.hnsw && bytes.Equal(n, bucketVecTime) {
		if err := t.hnswClear(); err != nil {
			return err
		}
	}
	if err := t.exec(`DELETE FROM kv_buckets WHERE name = $1`, n); err != nil {
		return err
	}
	delete(t.buckets, string(name))
	return nil
}

func (t *kvTx) ForEachBucket(fn func([]byte) error) error {
	if !t.ensure() {
		return t.err
	}
	names := make([]string, 0, len(t.buckets))
	for n := range t.buckets {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := fn([]byte(n)); err != nil {
			return err
		}
	}
	return nil
}

// kvBucket is one bucket of a kvTx.
type kvBucket struct {
	t    *kvTx
	name []byte
}

func (b *kvBucket) Get(key []byte) []byte {
	t := b.t
	if w, ok := t.pending(b.name, key); ok {
		if w.del {
			return nil
		}
		return w.v
	}
	if v, ok := t.cached(b.name, key); ok || t.whole[string(b.name)] {
		return v
	}
	if t.nwant > 0 {
		if t.readAhead() != nil {
			return nil
		}
		if v, ok := t.cached(b.name, key); ok {
			return v
		}
	}
	if t.flush() != nil {
		return nil
	}
	var v []byte
	err := t.tx.QueryRow(t.ctx, `SELECT value FROM kv WHERE bucket = $1 AND key = $2`, b.name, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		t.fail(fmt.Errorf("postgres: reading bucket %q: %w", b.name, err))
		return nil
	}
	if v == nil {
		v = []byte{}
	}
	return v
}

func (b *kvBucket) Put(key, value []byte) error {
	if len(key) == 0 {
		return errors.New("postgres: empty key")
	}
	v := bytes.Clone(value)
	if v == nil {
		v = []byte{}
	}
	if err := b.t.write1(b.name, key, pendingWrite{v: v}); err != nil {
		return err
	}
	if b.t.hnsw && bytes.Equal(b.name, bucketVecTime) {
		return b.t.hnswPut(key, v)
	}
	return nil
}

func (b *kvBucket) Delete(key []byte) error {
	if err := b.t.write1(b.name, key, pendingWrite{del: true}); err != nil {
		return err
	}
	if b.t.hnsw && bytes.Equal(b.name, bucketVecTime) {
		return b.t.hnswDelete(key)
	}
	return nil
}

func (b *kvBucket) Cursor() store.Cursor { return &kvCursor{b: b} }

func (b *kvBucket) ForEach(fn func(k, v []byte) error) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return b.t.err
}

func (b *kvBucket) NextSequence() (uint64, error) {
	t := b.t
	if err := t.flush(); err != nil {
		return 0, err
	}
	var n int64
	if err := t.tx.QueryRow(t.ctx, `UPDATE kv_buckets SET seq = seq + 1 WHERE name = $1 RETURNING seq`, b.name).Scan(&n); err != nil {
		t.fail(fmt.Errorf("postgres: bucket %q sequence: %w", b.name, err))
		return 0, t.err
	}
	return uint64(n), nil
}

func (b *kvBucket) KeyN() int {
	t := b.t
	if t.flushPending(string(b.name)) != nil {
		return 0
	}
	var n int
	if err := t.tx.QueryRow(t.ctx, `SELECT count(*) FROM kv WHERE bucket = $1`, b.name).Scan(&n); err != nil {
		t.fail(fmt.Errorf("postgres: counting bucket %q: %w", b.name, err))
		return 0
	}
	return n
}
