package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/huimemory/huimemory/core"
)

// SchemaVersion is the version of the store's layout.
//
// Changelog:
//
//	1: first version.
//	2: vectors live in vectime, found by id through veckeys;
//	   a version-1 store is read as it is (vectors.go) and marked 2 by
//	   its first write, so that an older binary refuses it.
//	3: every write of a vector writes its int8 code into vecq (vecq.go);
//	   a version-1 or 2 store is read as it is (searches scan float32s
//	   until its codes are backfilled) and marked 3 by its first write,
//	   so that a binary that writes vectors without codes refuses it.
//	4: a source's claims on messages are keyed in srcmsgs by claim number,
//	   not by message key (sources.go); claims of both forms are
//	   read, and an older store is marked 4 by its first write, so that a
//	   binary that reads only the old form, and would take a source for
//	   one that claims nothing, refuses it.
//	5: a staged ingest writes the records of the buckets keyed by hashes
//	   into its run (stagerun.go) until it merges them; the
//	   published layout is version 4's, but a binary that does not know
//	   runs would discard a stage left by a crash without them, and leave
//	   its vectors and claims behind. An older store is marked 5 by its
//	   first write, so that such a binary refuses it.
//	6: a staged ingest writes its sessions' records, chunk lists and
//	   dirty marks before its publication, each record marked with the
//	   stage, which readers pass by while the stage is open (stage.go);
//	   the publication only closes the stage. A binary that
//	   does not know the mark would show them early, and would leave them
//	   behind when it discards such a stage, so an older store is marked
//	   6 by its first write.
//	7: in a home, a staged ingest keeps its run in a file beside the store
//	   (runfile.go), not in its buckets. A binary that does not
//	   know the file would discard a stage left by a crash without it,
//	   and leave the stage's vectors and claims behind, so an older store
//	   is marked 7 by its first write. A version-6 store's run buckets are
//	   still discarded.
//	8: a stage keys its chunk set by the key of each chunk's vector
//	   (namespace, time, id; stage.go), not by the id alone. A
//	   binary that looks chunks up by id would not see that a vector
//	   belongs to an open stage and would return it early, so an older
//	   store is marked 8 by its first write. A version-7 stage's chunk
//	   set is still passed by and discarded.
const SchemaVersion = 8

// schemaOK reports whether a stored schema version can be opened.
func schemaOK(v []byte) bool {
	n, err := strconv.Atoi(string(v))
	return err == nil && n >= 1 && n <= SchemaVersion
}

// FileName is the store's file name inside the home.
const FileName = "huimem.db"

var (
	bMeta       = []byte("meta")
	bMsgs       = []byte("msgs")
	bMsgIDs     = []byte("msgids")
	bChunks     = []byte("chunks")
	bChunkKeys  = []byte("chunkkeys")
	bSessChunks = []byte("sesschunks")
	bSessions   = []byte("sessions")
	bVecs       = []byte("vecs")
	bVecTime    = []byte("vectime")
	bSources    = []byte("sources")
	bOutbox     = []byte("outbox")
	bDirty      = []byte("dirty")
	allBuckets  = [][]byte{bMeta, bMsgs, bMsgIDs, bChunks, bChunkKeys, bSessChunks, bSessions, bVecs, bVecTime, bVecQ, bSources, bOutbox, bDirty}
	// lateBuckets are created with a new store but may be missing from
	// an older one, which gets them on its first write that needs them:
	// opening it, even read-only, must not write.
	lateBuckets = map[string]bool{string(bVecQ): true}
)

// Meta keys.
const (
	metaSchema   = "schema"
	metaGen      = "gen"
	metaSeq      = "seq"
	metaChunks   = "chunks"
	metaMessages = "messages"
	metaCleared  = "outbox_cleared"
	// MetaEmbedder holds the JSON core.EmbedderInfo of the stored vectors.
	MetaEmbedder = "embedder"
)

// Store is the source of truth, in a bbolt file or another KV. It is safe for concurrent use.
type Store struct {
	// mu guards db against the swap in [Store.Compact] and the re-opens
	// of shared access: every transaction holds it for reading.
	mu sync.RWMutex
	db *bolt.DB
	// kv, when set, holds the buckets instead of db (OpenKV).
	kv   KV
	path string
	opts Options

	// Shared access (shared.go): the lock files, whether db is the
	// read-write handle, the hook Update calls to get it, and the error
	// of a re-open that failed.
	shared       bool
	gate, writer *lockFile
	// knock is the file waiters hold while they wait (see [Store.Knocked]).
	knock     *knockFile
	exclusive atomic.Bool
	upgrade   func() error
	broken    error

	// filled counts the bytes by which this handle's transactions that
	// filled their leaves grew the file's data (see [Store.FilledGrowth]).
	filled atomic.Int64
}

var bolterrTimeout = bolterrors.ErrTimeout

// Open opens or creates the store at path, read-write and exclusively. It
// waits at most lockWait for another process to release the file, then
// returns [core.ErrLocked]. See [OpenWith] for shared access.
func Open(path string, lockWait time.Duration) (*Store, error) {
	return OpenWith(path, Options{LockWait: lockWait})
}

// OpenWith opens or creates the store at path. With o.Shared the handle
// is read-only and shared with other processes, and writes lock the file
// for their duration (see shared.go); otherwise the store holds its file
// exclusively until Close.
func OpenWith(path string, o Options) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	if o.Shared {
		return openShared(path, o)
	}
	s := &Store{path: path, opts: o}
	db, err := openBolt(path, s.boltOptions(false, s.wait())) // see compact.go: a compaction may swap the file
	if err != nil {
		return nil, s.openErr(err)
	}
	s.db = db
	// A compaction killed before its rename leaves its copy behind; with
	// the lock held, nobody else can be writing it.
	if err := os.Remove(path + compactSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
		db.Close()
		return nil, fmt.Errorf("removing a stray %s: %w", path+compactSuffix, err)
	}
	// A View finds the buckets of an existing store; only a new
	// one needs the write transaction (and its two fdatasyncs).
	if db.View(func(tx *bolt.Tx) error { return bucketsReady(boltTx{tx: tx}) }) != nil {
		if err := ensureBuckets(db); err != nil {
			db.Close()
			return nil, fmt.Errorf("opening store %s: %w", path, err)
		}
	}
	if err := s.checkSchema(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// OpenKV opens or creates a store in kv, which the store owns from then
// on (Close closes it). name names the store in messages, such as
// "postgres://db/huimem". If kv is a [WriterLocker], the store is shared:
// [Store.LockWriter] takes kv's writer lock, waiting at most o.LockWait.
func OpenKV(kv KV, name string, o Options) (*Store, error) {
	s := &Store{kv: kv, path: name, opts: o}
	if err := kv.View(func(tx KVTx) error { return bucketsReady(tx) }); err != nil {
		if err := kv.Update(createBuckets); err != nil {
			return nil, fmt.Errorf("opening store %s: %w", name, err)
		}
	}
	if err := s.checkSchema(); err != nil {
		return nil, err
	}
	return s, nil
}

// errNotReady says a store lacks a bucket or its schema version.
var errNotReady = errors.New("store is not initialised")

// bucketsReady checks that every bucket and the schema version are there.
func bucketsReady(tx KVTx) error {
	for _, name := range allBuckets {
		if tx.Bucket(name) == nil && !lateBuckets[string(name)] {
			return errNotReady
		}
	}
	if tx.Bucket(bMeta).Get([]byte(metaSchema)) == nil {
		return errNotReady
	}
	return nil
}

// ensureBuckets creates the missing buckets and the schema version.
func ensureBuckets(db *bolt.DB) error {
	return db.Update(func(tx *bolt.Tx) error { return createBuckets(boltTx{tx: tx}) })
}

func createBuckets(tx KVTx) error {
	{
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		m := tx.Bucket(bMeta)
		if m.Get([]byte(metaSchema)) == nil {
			if k, _ := tx.Bucket(bVecTime).Cursor().First(); k == nil {
				// A new store: its vectors will all have codes.
				if err := m.Put([]byte(metaVecCodes), []byte("1")); err != nil {
					return err
				}
			}
			return m.Put([]byte(metaSchema), []byte(strconv.Itoa(SchemaVersion)))
		}
		return nil
	}
}

// checkSchema checks the store's schema version.
func (s *Store) checkSchema() error {
	return s.View(func(t *Tx) error {
		tx := t.tx
		if err := bucketsReady(tx); err != nil {
			return fmt.Errorf("opening store %s: %w", s.path, err)
		}
		if v := tx.Bucket(bMeta).Get([]byte(metaSchema)); !schemaOK(v) {
			return fmt.Errorf("opening store %s: store schema version %s is not supported (want %d)", s.path, v, SchemaVersion)
		}
		return nil
	})
}

// SetUpgrade sets the function [Store.Update] calls on a shared store
// that is read-only at the time: it must make the store exclusive (see
// [Store.Upgrade]) or fail. On a store in a KV ([OpenKV]) it is called
// before every write, which it may refuse. Without one, Update takes the writer lock and
// upgrades by itself; the store then stays exclusive until
// [Store.Downgrade].
func (s *Store) SetUpgrade(fn func() error) { s.upgrade = fn }

// Close closes the store.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.db != nil {
		err = s.db.Close()
		s.db = nil
	}
	if s.kv != nil {
		err = s.kv.Close()
		s.kv = nil
	}
	if s.shared {
		s.closeLocks()
	}
	return err
}

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

// Size returns the store file's size in bytes.
func (s *Store) Size() int64 {
	fi, err := os.Stat(s.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// View runs fn in a read-only transaction.
func (s *Store) View(fn func(*Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil && s.kv == nil {
		return s.unusable()
	}
	if s.kv != nil {
		return s.kv.View(func(tx KVTx) error { return fn(&Tx{tx: tx, kv: s.kv}) })
	}
	return s.db.View(func(tx *bolt.Tx) error { return fn(&Tx{tx: boltTx{tx: tx}, path: s.path}) })
}

// Update runs fn in a read-write transaction, committed if fn returns nil
// and rolled back otherwise. On a shared store that is read-only, it
// first gets the exclusive handle (see [Store.SetUpgrade]).
func (s *Store) Update(fn func(*Tx) error) error {
	if s.shared && !s.exclusive.Load() {
		up := s.upgrade
		if up == nil {
			up = func() error {
				if _, err := s.LockWriter(context.Background()); err != nil {
					return err
				}
				return s.Upgrade(context.Background(), nil)
			}
		}
		if err := up(); err != nil {
			return err
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.db == nil && s.kv == nil {
		return s.unusable()
	}
	var filled bool // whether the transaction filled its leaves
	run := func(tx KVTx) error {
		t := &Tx{tx: tx, kv: s.kv}
		if s.kv == nil {
			t.path = s.path
		}
		if err := fn(t); err != nil {
			return err
		}
		if err := t.noteVectors(); err != nil {
			return err
		}
		if err := t.markSchema(); err != nil {
			return err
		}
		if err := t.flush(); err != nil {
			return err
		}
		bt, ok := t.tx.(boltTx)
		filled = ok && bt.fill
		return nil
	}
	if s.kv != nil {
		if s.upgrade != nil {
			// A shared KV's writer may refuse the write (the engine's
			// writer lock could not be had; see SetUpgrade).
			if err := s.upgrade(); err != nil {
				return err
			}
		}
		return s.kv.Update(run)
	}
	var size int64 // the data's size when the transaction began
	err := s.db.Update(func(tx *bolt.Tx) error {
		size = tx.Size()
		return run(boltTx{tx: tx})
	})
	if err == nil && filled {
		s.db.View(func(tx *bolt.Tx) error {
			s.filled.Add(max(0, tx.Size()-size))
			return nil
		})
	}
	return err
}

// FilledGrowth returns how many bytes this handle's transactions that
// filled their leaves (the bulk writes of a staged ingest) have added to
// the store's data size, in all: what they wrote is as dense as a
// compaction would leave it, so the decision to compact after an ingest
// leaves it out (core/engine/compact.go). The difference between two
// calls is the growth of those transactions in between.
func (s *Store) FilledGrowth() int64 { return s.filled.Load() }

func (s *Store) unusable() error {
	if s.broken != nil {
		return s.broken
	}
	return fmt.Errorf("store %s: %w", s.path, core.ErrClosed)
}

// markSchema records the current schema version when a write meets an
// older one.
func (t *Tx) markSchema() error {
	m := t.b(bMeta)
	if v := m.Get([]byte(metaSchema)); string(v) != strconv.Itoa(SchemaVersion) {
		return m.Put([]byte(metaSchema), []byte(strconv.Itoa(SchemaVersion)))
	}
	return nil
}

// Tx is a store transaction.
type Tx struct {
	tx     KVTx
	kv     KV       // nil in a home
	buf    writeBuf // pending writes to the buffered buckets
	gen    uint64   // generation of this write, set by BumpGen
	bumped bool
	// vecReset is set when the transaction removes every vector
	// (DeleteAllVectors), for noteVectors.
	vecReset bool
	// path is the store's file in a home, empty behind a KV: a stage's
	// run file lies beside it (runfile.go).
	path string
	// run, when set, takes the hashed buckets' writes of a stage's batch
	// and is read before them (stagerun.go).
	run *StageRun
	// open caches the ids of the open stages for the readers of session
	// records (stage.go); nil until first asked, reset by the writes
	// that open or close one.
	open map[string]bool
}

func (t *Tx) b(name []byte) Bucket { return t.tx.Bucket(name) }

// fillLeaves makes every bucket the transaction writes fill its leaves
// before it splits one (bbolt's FillPercent 1, as a compaction writes
// them), where bbolt's default splits a leaf in halves. That default
// leaves room for inserts among the keys; the writes of a staged ingest
// come in key order or in long runs of keys, so half a leaf stays empty
// for good: a 75 MB ingest wrote 1,028 MB of store, 58% of its leaves
// used, where filled it writes 662 MB. Later inserts into a full leaf
// split it as bbolt always does. Behind a KV it does nothing.
func (t *Tx) fillLeaves() {
	if bt, ok := t.tx.(boltTx); ok && !bt.fill {
		bt.fill = true
		t.tx = bt
	}
}

func (t *Tx) metaU64(key string) uint64 { return readU64(t.b(bMeta).Get([]byte(key))) }

func (t *Tx) setMetaU64(key string, v uint64) error {
	return t.b(bMeta).Put([]byte(key), u64(v))
}

func (t *Tx) addMeta(key string, delta int) error {
	return t.setMetaU64(key, uint64(int64(t.metaU64(key))+int64(delta)))
}

// Gen returns the store's generation: it grows by one with every write
// that changes chunks.
func (t *Tx) Gen() uint64 { return t.metaU64(metaGen) }

// BumpGen starts a new generation for this transaction, once, and returns it.
func (t *Tx) BumpGen() (uint64, error) {
	if t.bumped {
		return t.gen, nil
	}
	t.gen = t.Gen() + 1
	t.bumped = true
	return t.gen, t.setMetaU64(metaGen, t.gen)
}

// Meta returns a metadata value, or nil.
func (t *Tx) Meta(key string) []byte { return t.b(bMeta).Get([]byte(key)) }

// SetMeta stores a metadata value.
func (t *Tx) SetMeta(key string, val []byte) error { return t.b(bMeta).Put([]byte(key), val) }

// Counts returns how many chunks and messages the store holds.
func (t *Tx) Counts() (chunks, messages int) {
	return int(t.metaU64(metaChunks)), int(t.metaU64(metaMessages))
}
