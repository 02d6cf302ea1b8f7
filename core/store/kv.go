package store

// The store's records live in named buckets of ordered keys. In a home
// they are bbolt's buckets; [OpenKV] puts a store on any other
// transactional key-value store with the same shape, such as the
// PostgreSQL backend's kv table (core/postgres).

import (
	"context"
	"time"

	bolt "go.etcd.io/bbolt"
)

// KV is a transactional store of named buckets of byte keys in order,
// with bbolt's semantics: View sees one snapshot; Update sees its own
// writes and commits when fn returns nil.
type KV interface {
	View(fn func(KVTx) error) error
	Update(fn func(KVTx) error) error
	Close() error
}

// KVTx is a transaction of a [KV]. A missing bucket is a nil Bucket.
type KVTx interface {
	Bucket(name []byte) Bucket
	CreateBucket(name []byte) (Bucket, error)
	CreateBucketIfNotExists(name []byte) (Bucket, error)
	DeleteBucket(name []byte) error
	// ForEachBucket calls fn with the name of every bucket, in order.
	ForEachBucket(fn func(name []byte) error) error
	Writable() bool
}

// Bucket is one bucket of a [KVTx]. Values returned by Get and by cursors
// are valid only during the transaction.
type Bucket interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	Delete(key []byte) error
	Cursor() Cursor
	// ForEach calls fn for every key in order until fn returns an error.
	ForEach(fn func(k, v []byte) error) error
	// NextSequence returns a new, larger integer for this bucket.
	NextSequence() (uint64, error)
	// KeyN returns the number of keys.
	KeyN() int
}

// Cursor walks a bucket in key order; a nil key is the end.
type Cursor interface {
	First() (key, value []byte)
	Seek(seek []byte) (key, value []byte)
	Next() (key, value []byte)
}

// WriterLocker is a [KV] shared by several processes that have no lock
// file in common (several servers on one database): LockWriter takes the
// writer lock that [Store.LockWriter] stands for, and UnlockWriter
// releases it.
type WriterLocker interface {
	LockWriter(ctx context.Context, wait time.Duration) (time.Duration, error)
	UnlockWriter()
}

// Prefetcher is a [KVTx] whose reads are round trips to a server (the
// PostgreSQL backend's): Prefetch names keys of a bucket that the
// transaction is about to Get, and the KVTx reads them together, with
// the keys of every other Prefetch since, at the next Get that needs the
// server; the Gets of those keys then cost nothing. A Prefetch changes no
// result, only when the reads happen. bbolt's transactions, whose reads
// are memory reads, do not implement it (see [Tx.PrefetchChunks]).
type Prefetcher interface {
	Prefetch(bucket []byte, keys [][]byte)
}

// Notifier is a [KV] that can tell other processes what a transaction
// changed: Notify queues a message that is delivered, with the
// transaction's other messages, when (and only if) it commits.
type Notifier interface {
	Notify(tx KVTx, channel, payload string) error
}

// boltTx is a bbolt transaction as a [KVTx]. With fill set, each bucket
// it hands out fills its leaves before it splits them (see
// [Tx.fillLeaves]).
type boltTx struct {
	tx   *bolt.Tx
	fill bool
}

func (t boltTx) bucket(b *bolt.Bucket) Bucket {
	if t.fill {
		b.FillPercent = 1
	}
	return boltBucket{b}
}

func (t boltTx) Bucket(name []byte) Bucket {
	if b := t.tx.Bucket(name); b != nil {
		return t.bucket(b)
	}
	return nil
}

func (t boltTx) CreateBucket(name []byte) (Bucket, error) {
	b, err := t.tx.CreateBucket(name)
	if err != nil {
		return nil, err
	}
	return t.bucket(b), nil
}

func (t boltTx) CreateBucketIfNotExists(name []byte) (Bucket, error) {
	b, err := t.tx.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	return t.bucket(b), nil
}

func (t boltTx) DeleteBucket(name []byte) error { return t.tx.DeleteBucket(name) }
func (t boltTx) Writable() bool                 { return t.tx.Writable() }

func (t boltTx) ForEachBucket(fn func([]byte) error) error {
	return t.tx.ForEach(func(name []byte, _ *bolt.Bucket) error { return fn(name) })
}

// boltBucket is a bbolt bucket as a [Bucket].
type boltBucket struct{ *bolt.Bucket }

func (b boltBucket) Cursor() Cursor { return b.Bucket.Cursor() }
func (b boltBucket) KeyN() int      { return b.Bucket.Stats().KeyN }

// BoltKV is a bbolt database as a [KV], for copying a home's store
// elsewhere and for tests that compare another KV with bbolt.
type BoltKV struct{ DB *bolt.DB }

// View runs fn in a bbolt read transaction.
func (b BoltKV) View(fn func(KVTx) error) error {
	return b.DB.View(func(tx *bolt.Tx) error { return fn(boltTx{tx: tx}) })
}

// Update runs fn in a bbolt write transaction.
func (b BoltKV) Update(fn func(KVTx) error) error {
	return b.DB.Update(func(tx *bolt.Tx) error { return fn(boltTx{tx: tx}) })
}

// Close closes the database.
func (b BoltKV) Close() error { return b.DB.Close() }
