package postgres

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/vector"
)

func unit(v ...float32) []float32 {
	var n float64
	for _, f := range v {
		n += float64(f * f)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// waitFor polls cond until it holds or a minute passes; notifications are
// asynchronous, so the test waits for the effect, not for a duration.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatchVectors has server A write vectors while server B (another
// pool) searches from its cache: B's watched index sees every write,
// while an unwatched index keeps serving its stale cache.
func TestWatchVectors(t *testing.T) {
	a := open(t)
	ctx := t.Context()
	b, err := Open(ctx, Config{DSN: a.pool.Config().ConnString()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t0 := time.Date(2026, 3, 4, 12, 0, 0, 0, time.FixedZone("CST", 8*3600))
	put := func(ns, id string, tm time.Time, v []float32) {
		t.Helper()
		if err := a.InTx(ctx, func(tx pgx.Tx) error { return a.PutVectorTx(ctx, tx, ns, id, tm, v) }); err != nil {
			t.Fatal(err)
		}
	}
	put("n", "old", t0, unit(1, 0, 0))
	put("other", "x", t0, unit(0, 1, 0))

	watched := b.NewVectorIndex(3, vector.Options{})
	stale := b.NewVectorIndex(3, vector.Options{})
	w, err := b.WatchVectors(ctx, watched)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	q := unit(0, 0, 1)
	top := func(x *vector.Index) string {
		ms, err := x.Search("n", q, time.Time{}, time.Time{}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 {
			return ""
		}
		return ms[0].ID
	}
	// Two searches put the week segment in each cache.
	for range 2 {
		if got := top(watched); got != "old" {
			t.Fatalf("top = %q, want old", got)
		}
		top(stale)
	}
	if watched.Stats().Segments == 0 {
		t.Fatal("nothing cached; the test would prove nothing")
	}

	// Same week, from the other server.
	put("n", "new", t0.Add(time.Hour), unit(0, 0.1, 1))
	waitFor(t, "the watched index to see the new vector", func() bool { return top(watched) == "new" })
	if got := top(stale); got != "old" {
		t.Errorf("the unwatched index found %q; it should still serve its cache", got)
	}

	// A delete reaches it too.
	if err := a.InTx(ctx, func(tx pgx.Tx) error { return a.DeleteVectorTx(ctx, tx, "n", "new") }); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the watched index to drop the deleted vector", func() bool { return top(watched) == "old" })
	if n, err := w.Heard(); n < 2 || err != nil {
		t.Errorf("Heard = %d, %v; want at least 2 notifications and no error", n, err)
	}
}

// TestWatchVectorsReconnects kills the watcher's connection: it resets
// the cache and listens again.
func TestWatchVectorsReconnects(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	inv := &countingInvalidator{}
	w, err := db.WatchVectors(ctx, inv)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := db.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE query = 'LISTEN huimem_vectors' AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a reset after the connection dropped", func() bool { return inv.get().resets >= 1 })
	// Listening again: a new write is heard.
	waitFor(t, "the watcher to listen again", func() bool {
		var n int
		db.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN huimem_vectors'`).Scan(&n)
		return n == 1
	})
	if err := db.InTx(ctx, func(tx pgx.Tx) error {
		return db.PutVectorTx(ctx, tx, "n", "a", time.Now(), unit(1, 1))
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "an invalidation after reconnecting", func() bool { return inv.get().invalidations >= 1 })
}

type countingInvalidator struct {
	mu sync.Mutex
	c  struct{ resets, invalidations int }
}

func (c *countingInvalidator) Invalidate(string, time.Time) {
	c.mu.Lock()
	c.c.invalidations++
	c.mu.Unlock()
}

func (c *countingInvalidator) Reset() {
	c.mu.Lock()
	c.c.resets++
	c.mu.Unlock()
}

func (c *countingInvalidator) get() struct{ resets, invalidations int } {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c
}
