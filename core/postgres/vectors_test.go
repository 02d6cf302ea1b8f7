package postgres

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/store"
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

// openStore opens the engine's store on db's KV, as the engine does.
func openStore(t *testing.T, db *DB) *store.Store {
	t.Helper()
	st, err := store.OpenKV(db.KV(), "test", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// writer writes through a store as the engine does: every transaction
// sends its notice when it commits.
type writer struct {
	t  *testing.T
	st *store.Store
}

func (w writer) put(ns, id string, tm time.Time, vec []float32) {
	w.t.Helper()
	if err := w.st.Update(func(tx *store.Tx) error { return tx.PutVector(ns, tm, id, vec) }); err != nil {
		w.t.Fatal(err)
	}
}

func (w writer) del(ns, id string, tm time.Time) {
	w.t.Helper()
	if err := w.st.Update(func(tx *store.Tx) error { return tx.DeleteVector(ns, tm, id) }); err != nil {
		w.t.Fatal(err)
	}
}

// bump starts a new generation, writing a vector too unless ns is "".
func (w writer) bump(ns, id string, tm time.Time, vec []float32) uint64 {
	w.t.Helper()
	var g uint64
	if err := w.st.Update(func(tx *store.Tx) (err error) {
		if g, err = tx.BumpGen(); err != nil {
			return err
		}
		if ns == "" {
			return nil
		}
		return tx.PutVector(ns, tm, id, vec)
	}); err != nil {
		w.t.Fatal(err)
	}
	return g
}

// gen returns the store's generation.
func (w writer) gen() uint64 {
	w.t.Helper()
	var g uint64
	if err := w.st.View(func(tx *store.Tx) error { g = tx.Gen(); return nil }); err != nil {
		w.t.Fatal(err)
	}
	return g
}

// recorder is a [GenListener] that logs what a watcher tells it and
// passes the invalidations on to next, if any.
type recorder struct {
	next Invalidator
	mu   sync.Mutex
	log  []string
}

var _ GenListener = (*recorder)(nil)

func (r *recorder) add(e string) {
	r.mu.Lock()
	r.log = append(r.log, e)
	r.mu.Unlock()
}

func (r *recorder) Invalidate(ns string, t time.Time) {
	r.add("invalidate " + ns + " " + t.UTC().Format(time.RFC3339))
	if r.next != nil {
		r.next.Invalidate(ns, t)
	}
}

func (r *recorder) Reset() {
	r.add("reset")
	if r.next != nil {
		r.next.Reset()
	}
}

func (r *recorder) Heard(gen uint64) { r.add(fmt.Sprintf("heard %d", gen)) }

func (r *recorder) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

// TestWatchVectors has server A write vectors through its store while
// server B (another pool, its own store on the same tables) searches from
// its cache: B's watched index sees every write, an unwatched index keeps
// serving its stale cache, and B's watcher is told exactly which
// namespace and day changed and the store generation of each commit.
func TestWatchVectors(t *testing.T) {
	a := open(t)
	ctx := t.Context()
	b, err := Open(ctx, Config{DSN: a.pool.Config().ConnString()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	wa := writer{t, openStore(t, a)}
	stB := openStore(t, b)

	// 02:00 in UTC+8 is the day before in UTC: notices name UTC days.
	t0 := time.Date(2026, 3, 5, 2, 0, 0, 0, time.FixedZone("CST", 8*3600))
	day0 := "2026-03-04T00:00:00Z"
	t1 := time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC)
	day1 := "2026-03-20T00:00:00Z"
	wa.put("n", "old", t0, unit(1, 0, 0))
	wa.put("other", "x", t0, unit(0, 1, 0))

	load := func(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
		return stB.View(func(tx *store.Tx) error { return tx.ScanVectors(ns, from, to, fn) })
	}
	watched := vector.NewWithOptions(3, load, vector.Options{})
	stale := vector.NewWithOptions(3, load, vector.Options{})
	rec := &recorder{next: watched}
	w, err := b.WatchVectors(ctx, rec)
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
	// Two searches put the segment in each cache.
	for range 2 {
		if got := top(watched); got != "old" {
			t.Fatalf("top = %q, want old", got)
		}
		top(stale)
	}
	if watched.Stats().Segments == 0 {
		t.Fatal("nothing cached; the test would prove nothing")
	}

	// Same segment, from the other server.
	wa.put("n", "new", t0.Add(time.Hour), unit(0, 0.1, 1))
	g1 := wa.gen()
	waitFor(t, "the watched index to see the new vector", func() bool { return top(watched) == "new" })
	if got := top(stale); got != "old" {
		t.Errorf("the unwatched index found %q; it should still serve its cache", got)
	}

	// A delete reaches it too.
	wa.del("n", "new", t0.Add(time.Hour))
	g2 := wa.gen()
	waitFor(t, "the watched index to drop the deleted vector", func() bool { return top(watched) == "old" })

	// A new generation with a vector, then one without.
	g3 := wa.bump("other", "y", t1, unit(1, 1, 0))
	g4 := wa.bump("", "", time.Time{}, nil)
	if g3 <= g2 || g4 != g3+1 {
		t.Fatalf("generations %d, %d after %d: BumpGen did not bump", g3, g4, g2)
	}
	waitFor(t, "four notifications", func() bool { n, _ := w.Heard(); return n >= 4 })
	want := []string{
		"invalidate n " + day0, fmt.Sprintf("heard %d", g1),
		"invalidate n " + day0, fmt.Sprintf("heard %d", g2),
		"invalidate other " + day1, fmt.Sprintf("heard %d", g3),
		fmt.Sprintf("heard %d", g4),
	}
	if diff := cmp.Diff(want, rec.events()); diff != "" {
		t.Errorf("what the watcher told (-want +got):\n%s", diff)
	}
	if n, err := w.Heard(); n != 4 || err != nil {
		t.Errorf("Heard = %d, %v; want 4 notifications and no error", n, err)
	}
}

// TestWatchVectorsReconnects kills the watcher's connection: it resets
// the cache and listens again, and hears the next commit.
func TestWatchVectorsReconnects(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	wr := writer{t, openStore(t, db)}
	rec := &recorder{}
	w, err := db.WatchVectors(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const listening = `FROM pg_stat_activity WHERE query = 'LISTEN huimem_vectors' AND datname = current_database()`
	if _, err := db.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) `+listening+` AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a reset after the connection dropped", func() bool { return slices.Contains(rec.events(), "reset") })
	// Listening again: the watcher resets a second time once its new LISTEN
	// is in place. (The LISTEN query in pg_stat_activity alone could be the
	// killed backend's, which pg_terminate_backend does not wait for: a
	// commit then would come before the new LISTEN, and never be heard.)
	waitFor(t, "the reset after listening again", func() bool {
		n := 0
		for _, e := range rec.events() {
			if e == "reset" {
				n++
			}
		}
		return n >= 2
	})
	waitFor(t, "the watcher to listen again", func() bool {
		var n int
		db.pool.QueryRow(ctx, `SELECT count(*) `+listening).Scan(&n)
		return n == 1
	})
	if _, err := w.Heard(); err == nil {
		t.Error("Heard reports no error after the connection was killed")
	}
	g := wr.bump("n", "a", time.Date(2026, 3, 4, 23, 0, 0, 0, time.UTC), unit(1, 1))
	tail := []string{"invalidate n 2026-03-04T00:00:00Z", fmt.Sprintf("heard %d", g)}
	waitFor(t, "the commit after reconnecting", func() bool { return slices.Contains(rec.events(), tail[1]) })
	got := rec.events()
	if diff := cmp.Diff(tail, got[len(got)-2:]); diff != "" {
		t.Errorf("last events (-want +got):\n%s", diff)
	}
	for _, e := range got[:len(got)-2] {
		if e != "reset" {
			t.Errorf("before the commit the watcher told %q; want only resets", e)
		}
	}
}
