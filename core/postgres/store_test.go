package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core"
)

var zeroTime time.Time

// key returns a chunk key whose base-32 form starts with prefix's bits
// for the first 6 characters when forced.
func key(ns string, i int) core.ChunkKey {
	var mk core.MessageKey
	copy(mk[:], fmt.Sprintf("m%d", i))
	return core.NewChunkKey(ns, "s", mk, 0)
}

func TestAllocIDStableAndCollisions(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	k1 := key("", 1)
	// A second key that shares k1's first six characters.
	k2 := k1
	k2[15] ^= 0xff
	var id1, id1again, id2 string
	err := db.InTx(ctx, func(tx pgx.Tx) (err error) {
		if id1, err = AllocIDTx(ctx, tx, "", k1); err != nil {
			return err
		}
		if id1again, err = AllocIDTx(ctx, tx, "", k1); err != nil {
			return err
		}
		id2, err = AllocIDTx(ctx, tx, "", k2)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if id1 != k1.ID(6) || id1again != id1 {
		t.Errorf("ids of k1: %q then %q, want %q twice", id1, id1again, k1.ID(6))
	}
	if id2 != k2.ID(7) {
		t.Errorf("id of a colliding key = %q, want the 7-character %q", id2, k2.ID(7))
	}
	// Another namespace does not collide.
	var other string
	if err := db.InTx(ctx, func(tx pgx.Tx) (err error) { other, err = AllocIDTx(ctx, tx, "team", k2); return err }); err != nil {
		t.Fatal(err)
	}
	if other != k2.ID(6) {
		t.Errorf("id in another namespace = %q, want %q", other, k2.ID(6))
	}
}

// TestAllocIDConcurrent has two pools (two servers) allocate ids for the
// same colliding keys at once, in opposite orders: every key ends with
// one id, ids are unique, and each key's id is the same on both.
func TestAllocIDConcurrent(t *testing.T) {
	a := open(t)
	b, err := Open(t.Context(), Config{DSN: a.pool.Config().ConnString()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var keys []core.ChunkKey
	for i := range 40 {
		k := key("", 1)
		k[15] = byte(i) // all share the first 6 characters
		k[14] = byte(i * 7)
		keys = append(keys, k)
	}
	got := make([]map[core.ChunkKey]string, 4)
	var wg sync.WaitGroup
	for w := range 4 {
		db := []*DB{a, b}[w%2]
		wg.Go(func() {
			m := map[core.ChunkKey]string{}
			for j := range keys {
				k := keys[j]
				if w%2 == 1 {
					k = keys[len(keys)-1-j]
				}
				err := db.InTx(context.Background(), func(tx pgx.Tx) error {
					id, err := AllocIDTx(context.Background(), tx, "", k)
					m[k] = id
					return err
				})
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
			}
			got[w] = m
		})
	}
	wg.Wait()
	seen := map[string]core.ChunkKey{}
	for _, k := range keys {
		id := got[0][k]
		for w := 1; w < 4; w++ {
			if got[w][k] != id {
				t.Errorf("key %x: worker 0 got %q, worker %d got %q", k, id, w, got[w][k])
			}
		}
		if prev, dup := seen[id]; dup {
			t.Errorf("id %q given to %x and %x", id, prev, k)
		}
		seen[id] = k
		if len(id) < core.MinIDLen || id != k.ID(len(id)) {
			t.Errorf("id %q is not a prefix of key %x", id, k)
		}
	}
}

func TestLockSessionsSerialises(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	tx1, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback(ctx)
	if err := LockSessionsTx(ctx, tx1, "", []string{"b", "a"}); err != nil {
		t.Fatal(err)
	}
	// A second transaction cannot take session a's lock while tx1 holds it.
	tx2, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.Rollback(ctx)
	var ok bool
	if err := tx2.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", SessionLockKey("", "a")).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Error("session a's lock was free while another transaction held it")
	}
	if err := tx2.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", SessionLockKey("", "c")).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Error("session c's lock was taken")
	}
	tx1.Rollback(ctx)
	if err := tx2.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", SessionLockKey("", "a")).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Error("session a's lock still held after its transaction ended")
	}
}

func TestGenerationsAndTranscripts(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	var gens []uint64
	for range 3 {
		err := db.InTx(ctx, func(tx pgx.Tx) error {
			g, err := BumpGenTx(ctx, tx, "ns1")
			gens = append(gens, g)
			if err != nil {
				return err
			}
			return PutTranscriptTx(ctx, tx, "ns1", "2026-W11/2026-03-05/chat_s1.md", []byte(fmt.Sprintf("v%d", g)))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(gens) != "[1 2 3]" {
		t.Errorf("generations %v, want [1 2 3]", gens)
	}
	b, err := db.Transcript(ctx, "ns1", "2026-W11/2026-03-05/chat_s1.md")
	if err != nil || string(b) != "v3" {
		t.Errorf("Transcript = %q, %v; want v3", b, err)
	}
	if _, err := db.Transcript(ctx, "other", "2026-W11/2026-03-05/chat_s1.md"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("transcript of another namespace: %v, want ErrNotFound", err)
	}
}
