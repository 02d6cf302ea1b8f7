package postgres

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
)

// TestKVReadAhead runs steps in one transaction and checks what each get
// returns: a key read ahead (prefetch), then written, read, sent with its
// bucket's other writes (walk: a cursor sends them), read again, reads
// what the transaction wrote last, in a write transaction as in bbolt.
// Steps: "put B K V", "del B K", "prefetch B K", "get B K", "walk B",
// "drop B" (delete the bucket), "make B" (create it again).
func TestKVReadAhead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps string
		want  []string
	}{
		{"cached then written", "prefetch b k; get b k; put b k new; get b k; walk b; get b k",
			[]string{"old", "new", "new"}},
		{"named then written before the read", "prefetch b k; put b k new; get b k; walk b; get b k",
			[]string{"new", "new"}},
		{"written then named", "put b k new; walk b; prefetch b k; get b k", []string{"new"}},
		{"deleted", "prefetch b k; get b k; del b k; walk b; get b k", []string{"old", ""}},
		{"absent then put", "prefetch b x; get b x; put b x 1; walk b; get b x", []string{"", "1"}},
		{"meta read whole", "get meta m; get meta x; put meta x 2; walk meta; get meta x; put meta m 3; get meta m",
			[]string{"mold", "", "2", "3"}},
		{"a bucket dropped and made again", "prefetch b k; get b k; drop b; make b; get b k; put b k 9; get b k",
			[]string{"old", "", "9"}},
		{"missing bucket", "prefetch nob k; get b k", []string{"old"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := open(t).KV()
			if err := kv.Update(func(tx store.KVTx) error {
				for _, b := range []string{"b", "meta"} {
					bk, err := tx.CreateBucket([]byte(b))
					if err != nil {
						return err
					}
					if err := bk.Put([]byte("k"), []byte("old")); err != nil {
						return err
					}
					if err := bk.Put([]byte("m"), []byte("mold")); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			var got []string
			err := kv.Update(func(tx store.KVTx) error {
				for _, step := range strings.Split(tc.steps, "; ") {
					f := strings.Fields(step)
					b := tx.Bucket([]byte(f[1]))
					var err error
					switch f[0] {
					case "put":
						err = b.Put([]byte(f[2]), []byte(f[3]))
					case "del":
						err = b.Delete([]byte(f[2]))
					case "prefetch":
						prefetch(tx, f[1], []byte(f[2]))
					case "get":
						got = append(got, string(b.Get([]byte(f[2]))))
					case "walk":
						c := b.Cursor()
						for k, _ := c.First(); k != nil; k, _ = c.Next() {
						}
					case "drop":
						err = tx.DeleteBucket([]byte(f[1]))
					case "make":
						_, err = tx.CreateBucket([]byte(f[1]))
					}
					if err != nil {
						return fmt.Errorf("%s: %w", step, err)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("gets (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKVWriteFailsMidBatch checks that a write transaction whose server
// dies after some of its pipelined batches were sent stores none of its
// writes, and that the writes committed before it stay whole.
func TestKVWriteFailsMidBatch(t *testing.T) {
	db := open(t)
	kv := db.KV()
	put := func(tx store.KVTx, prefix string, n int) error {
		b, err := tx.CreateBucketIfNotExists([]byte("b"))
		if err != nil {
			return err
		}
		for i := range n {
			if err := b.Put(fmt.Appendf(nil, "%s%05d", prefix, i), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	}
	if err := kv.Update(func(tx store.KVTx) error { return put(tx, "ok", 3000) }); err != nil {
		t.Fatal(err)
	}
	err := kv.Update(func(tx store.KVTx) error {
		// 5,000 puts: two batches of 2,000 reach the server first.
		if err := put(tx, "lost", 5000); err != nil {
			return err
		}
		var pid int
		if err := tx.(*kvTx).tx.QueryRow(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			return err
		}
		_, err := db.pool.Exec(t.Context(), `SELECT pg_terminate_backend($1)`, pid)
		return err
	})
	if err == nil {
		t.Fatal("a transaction whose connection died committed")
	}
	var okN, lostN int
	if err := kv.View(func(tx store.KVTx) error {
		return tx.Bucket([]byte("b")).ForEach(func(k, _ []byte) error {
			if strings.HasPrefix(string(k), "ok") {
				okN++
			} else {
				lostN++
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	if okN != 3000 || lostN != 0 {
		t.Errorf("after the failed transaction: %d committed keys (want 3000), %d of the failed one (want 0)", okN, lostN)
	}
	// The dead connection is gone: the next transaction runs.
	if err := kv.Update(func(tx store.KVTx) error { return put(tx, "again", 10) }); err != nil {
		t.Errorf("a transaction after the failed one: %v", err)
	}
}

// TestKVParkedConnections checks the connections of finished read-only
// transactions (kvpark.go): the next transaction sees what committed
// since, a statement that needs every table to itself waits for them
// only briefly, and Close does not wait for them.
func TestKVParkedConnections(t *testing.T) {
	db := open(t)
	kv := db.KV()
	write := func(v string) {
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
	read := func() string {
		t.Helper()
		var v string
		if err := kv.View(func(tx store.KVTx) error {
			v = string(tx.Bucket([]byte("b")).Get([]byte("k")))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := range 5 {
		want := fmt.Sprint(i)
		write(want)
		if got := read(); got != want {
			t.Fatalf("read %q after writing %q: a parked connection kept an old snapshot", got, want)
		}
	}
	read() // parks its connection, its transaction open
	start := time.Now()
	if err := db.InTx(t.Context(), func(tx pgx.Tx) error {
		_, err := tx.Exec(t.Context(), `LOCK TABLE kv IN ACCESS EXCLUSIVE MODE`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("an exclusive lock waited %s for a parked transaction", waited)
	}
	read()
	done := make(chan struct{})
	go func() { db.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs on a parked connection")
	}
}

// TestApplyFailsMidBatch checks that an index apply whose documents fail
// in a later statement of the batch (more than docsPerInsert documents)
// changes nothing, and that what earlier applies indexed stays as it was.
func TestApplyFailsMidBatch(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	x := db.EngineIndex()
	doc := func(i int, session string) index.Doc {
		return index.Doc{ID: fmt.Sprintf("c%05d", i), Session: session, Time: engineBase.Add(time.Duration(i) * time.Minute),
			Text: fmt.Sprintf("user: budget %d for Beijing", i%37), Reply: "assistant: noted"}
	}
	var first []index.Doc
	for i := range 1500 {
		first = append(first, doc(i, "s"))
	}
	if err := x.Apply(first, nil, 1); err != nil {
		t.Fatal(err)
	}
	before, err := db.Lexical().Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var second []index.Doc
	for i := 1500; i < 4000; i++ {
		s := "s"
		if i == 3200 { // in the third insert statement
			s = "bad\x00session" // text cannot hold NUL: the statement fails
		}
		second = append(second, doc(i, s))
	}
	err = x.Apply(second, []string{"c00001"}, 2)
	if err == nil {
		t.Fatal("an apply with a failing document succeeded")
	}
	after, err := db.Lexical().Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("statistics changed by the failed apply (-before +after):\n%s", diff)
	}
	if n, err := x.Count(); err != nil || n != 1500 {
		t.Errorf("Count = %d, %v; want 1500", n, err)
	}
	if g, err := x.Gen(); err != nil || g != 1 {
		t.Errorf("Gen = %d, %v; want 1", g, err)
	}
	ms, err := x.Search(ctx, index.Search{Text: "budget beijing", Size: 2000, ReplyBoost: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1500 {
		t.Errorf("search finds %d documents, want the first apply's 1500", len(ms))
	}
}

// TestReadAheadPlan checks the plan that a connection caches for a read
// ahead while the table is a page: once the bucket has grown, the plan
// must still probe the primary key with each key, reading no row that
// was not asked for, and scan no table.
func TestReadAheadPlan(t *testing.T) {
	db := open(t)
	ctx := t.Context()
	kv := db.KV()
	if err := kv.Update(func(tx store.KVTx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k0"), []byte("v"))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `VACUUM ANALYZE kv`); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range 100 {
		keys = append(keys, fmt.Sprintf("'k%d'", i*37)) // 55 of them exist once the bucket has grown
	}
	args := fmt.Sprintf(`('b'::bytea, ARRAY[%s]::bytea[])`, strings.Join(keys, ","))
	err := db.InTx(ctx, func(tx pgx.Tx) error {
		for _, q := range []string{
			sqlStoreSettings,
			`PREPARE ra AS ` + sqlReadAhead,
			`EXECUTE ra` + args, // plans it, and caches the plan
			`INSERT INTO kv SELECT 'b', convert_to('k' || g, 'UTF8'), '' FROM generate_series(1, 2000) g`,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("%.40s: %w", q, err)
			}
		}
		var plan []struct {
			Plan map[string]any `json:"Plan"`
		}
		if err := tx.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ra`+args).Scan(&plan); err != nil {
			return err
		}
		if got := plan[0].Plan["Actual Rows"]; got != 55.0 {
			t.Errorf("the read ahead returned %v rows, want 55", got)
		}
		var walk func(n map[string]any)
		walk = func(n map[string]any) {
			if typ := n["Node Type"]; typ == "Seq Scan" || n["Relation Name"] == "kv" && typ != "Index Scan" && typ != "Index Only Scan" {
				t.Errorf("the plan reads kv by a %s", typ)
			}
			if r, _ := n["Rows Removed by Filter"].(float64); r > 0 && n["Relation Name"] == "kv" {
				t.Errorf("the plan reads %v rows of kv that it filters out (%v)", r, n["Filter"])
			}
			kids, _ := n["Plans"].([]any)
			for _, k := range kids {
				walk(k.(map[string]any))
			}
		}
		walk(plan[0].Plan)
		if t.Failed() {
			b, _ := json.MarshalIndent(plan, "", "  ")
			t.Logf("plan:\n%s", b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
