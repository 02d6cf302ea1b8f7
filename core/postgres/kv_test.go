package postgres

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// dump reads every bucket of a KV in order, through cursors.
func dump(t *testing.T, kv store.KV) map[string][][2]string {
	t.Helper()
	out := map[string][][2]string{}
	err := kv.View(func(tx store.KVTx) error {
		return tx.ForEachBucket(func(name []byte) error {
			rows := [][2]string{}
			b := tx.Bucket(name)
			err := b.ForEach(func(k, v []byte) error {
				rows = append(rows, [2]string{string(k), string(v)})
				return nil
			})
			out[string(name)] = rows
			if n := b.KeyN(); n != len(rows) {
				return fmt.Errorf("bucket %q: KeyN = %d, ForEach saw %d", name, n, len(rows))
			}
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// prefetch names keys of bucket b to tx when it reads ahead (the
// PostgreSQL KV; bbolt's transactions do not).
func prefetch(tx store.KVTx, b string, keys ...[]byte) {
	if p, ok := tx.(store.Prefetcher); ok {
		p.Prefetch([]byte(b), keys)
	}
}

// TestKVBehavesLikeBbolt applies the same random operations to a bbolt
// file and to the PostgreSQL KV, and compares what every read returns.
// Reads ahead (Prefetch) of keys that the transaction writes before,
// after or in between, and the meta bucket, which a transaction reads
// whole as it begins, must change no result.
func TestKVBehavesLikeBbolt(t *testing.T) {
	db := open(t)
	pg := db.KV()
	bdb, err := bolt.Open(filepath.Join(t.TempDir(), "ref.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := store.BoltKV{DB: bdb}
	defer ref.Close()
	for _, kv := range []store.KV{ref, pg} {
		if err := kv.Update(func(tx store.KVTx) error {
			for _, b := range kvTestBuckets {
				if _, err := tx.CreateBucket([]byte(b)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// Keys share prefixes and include bytes above 0x7f, so the order of
	// bytea and of bbolt must agree on them.
	key := func(r *rand.Rand) []byte {
		return []byte{"pq\x00\xff"[r.IntN(4)], "xy\x80"[r.IntN(3)], byte('0' + r.IntN(10))}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 40 {
		seed := r.Uint64()
		fail := round%7 == 3 // this round's transaction is rolled back
		var logs [2][]string
		for i, kv := range []store.KV{ref, pg} {
			rr := rand.New(rand.NewPCG(seed, 0))
			err := kv.Update(func(tx store.KVTx) error {
				for op := range 30 {
					name := kvTestBuckets[rr.IntN(len(kvTestBuckets))]
					b := tx.Bucket([]byte(name))
					k := key(rr)
					switch rr.IntN(7) {
					case 0, 1:
						if err := b.Put(k, []byte(fmt.Sprint(round, op))); err != nil {
							return err
						}
					case 2:
						if err := b.Delete(k); err != nil {
							return err
						}
					case 3:
						logs[i] = append(logs[i], fmt.Sprintf("get %q = %q", k, b.Get(k)))
					case 4:
						c := b.Cursor()
						k, v := c.Seek(k)
						for n := 0; n < 3 && k != nil; n++ {
							logs[i] = append(logs[i], fmt.Sprintf("seek %q %q", k, v))
							k, v = c.Next()
						}
					case 5:
						seq, err := b.NextSequence()
						if err != nil {
							return err
						}
						logs[i] = append(logs[i], fmt.Sprintf("seq %d", seq))
					case 6:
						prefetch(tx, name, k, key(rr), key(rr))
					}
				}
				if fail {
					return errors.New("roll back")
				}
				return nil
			})
			if fail != (err != nil) {
				t.Fatalf("round %d: Update = %v", round, err)
			}
		}
		// A read-only transaction that reads ahead before its first use.
		for i, kv := range []store.KV{ref, pg} {
			rr := rand.New(rand.NewPCG(seed, 1))
			err := kv.View(func(tx store.KVTx) error {
				prefetch(tx, "a", key(rr), key(rr), key(rr))
				for range 10 {
					name := kvTestBuckets[rr.IntN(len(kvTestBuckets))]
					k := key(rr)
					if rr.IntN(2) == 0 {
						prefetch(tx, name, k, key(rr))
					}
					logs[i] = append(logs[i], fmt.Sprintf("view get %s %q = %q", name, k, tx.Bucket([]byte(name)).Get(k)))
				}
				return nil
			})
			if err != nil {
				t.Fatalf("round %d: View = %v", round, err)
			}
		}
		if diff := cmp.Diff(logs[0], logs[1]); diff != "" {
			t.Fatalf("round %d: reads differ (-bbolt +postgres):\n%s", round, diff)
		}
		if diff := cmp.Diff(dump(t, ref), dump(t, pg)); diff != "" {
			t.Fatalf("round %d: contents differ (-bbolt +postgres):\n%s", round, diff)
		}
	}
	// Buckets come and go as in bbolt.
	for _, kv := range []store.KV{ref, pg} {
		err := kv.Update(func(tx store.KVTx) error {
			if _, err := tx.CreateBucket([]byte("a")); err == nil {
				return errors.New("CreateBucket of an existing bucket succeeded")
			}
			if err := tx.DeleteBucket([]byte("a")); err != nil {
				return err
			}
			if tx.Bucket([]byte("a")) != nil {
				return errors.New("a deleted bucket is still there")
			}
			_, err := tx.CreateBucketIfNotExists([]byte("c"))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(dump(t, ref), dump(t, pg)); diff != "" {
		t.Fatalf("after bucket changes (-bbolt +postgres):\n%s", diff)
	}
}

// kvTestBuckets are the buckets of TestKVBehavesLikeBbolt; "meta" is read
// whole as each transaction begins.
var kvTestBuckets = []string{"a", "b", "meta"}

// TestKVSnapshotAndReadOnly checks that a View sees one snapshot and
// cannot write.
func TestKVSnapshotAndReadOnly(t *testing.T) {
	kv := open(t).KV()
	put := func(v string) {
		t.Helper()
		if err := kv.Update(func(tx store.KVTx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("b"))
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), []byte(v))
		}); err != nil {
			t.Fatal(err)
		}
	}
	put("1")
	err := kv.View(func(tx store.KVTx) error {
		b := tx.Bucket([]byte("b"))
		before := string(b.Get([]byte("k")))
		put("2") // commits in another transaction meanwhile
		after := string(b.Get([]byte("k")))
		if before != "1" || after != "1" {
			return fmt.Errorf("a view read %q then %q; want one snapshot (1, 1)", before, after)
		}
		if err := b.Put([]byte("k"), []byte("3")); err == nil {
			return errors.New("a write in a view succeeded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	kv.View(func(tx store.KVTx) error {
		if v := string(tx.Bucket([]byte("b")).Get([]byte("k"))); v != "2" {
			t.Errorf("after the view, k = %q; want 2", v)
		}
		return nil
	})
}

// TestKVWriterLock checks the writer lock across two servers (two
// pools): the second waits, fails with core.ErrLocked after its wait,
// and gets the lock once the first releases it or dies.
func TestKVWriterLock(t *testing.T) {
	db1 := open(t)
	db2, err := Open(t.Context(), db1.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	a, b := db1.KV(), db2.KV()
	if _, err := a.LockWriter(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	waited, err := b.LockWriter(t.Context(), 100*time.Millisecond)
	if !errors.Is(err, core.ErrLocked) || waited < 100*time.Millisecond {
		t.Fatalf("second LockWriter = %v after %s; want ErrLocked after the wait", err, waited)
	}
	a.UnlockWriter()
	if _, err := b.LockWriter(t.Context(), time.Second); err != nil {
		t.Fatalf("LockWriter after the holder released it: %v", err)
	}
	// The holder dies: PostgreSQL ends its session, and its lock.
	var pid int
	if err := b.lock.QueryRow(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := db1.pool.Exec(t.Context(), `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	if _, err := a.LockWriter(t.Context(), 5*time.Second); err != nil {
		t.Fatalf("LockWriter after the holder died: %v", err)
	}
	a.UnlockWriter()
	b.UnlockWriter() // its connection is gone: must not panic or hang
}

// TestKVNotify checks that notifications are sent when, and only when,
// the transaction commits.
func TestKVNotify(t *testing.T) {
	db := open(t)
	kv := db.KV()
	conn, err := db.listen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	for _, commit := range []bool{false, true} {
		err := kv.Update(func(tx store.KVTx) error {
			if err := kv.Notify(tx, VectorChannel, fmt.Sprint(commit)); err != nil {
				return err
			}
			if !commit {
				return errors.New("roll back")
			}
			return nil
		})
		if commit != (err == nil) {
			t.Fatal(err)
		}
	}
	n, err := conn.WaitForNotification(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n.Payload != "true" {
		t.Errorf("got notification %q; want only the committed one", n.Payload)
	}
}
