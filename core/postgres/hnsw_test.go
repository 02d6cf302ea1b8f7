package postgres

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
	"github.com/huimemory/huimemory/internal/pgtest"
)

func TestParseVecKey(t *testing.T) {
	tm := time.Date(2026, 4, 13, 9, 0, 0, 123456789, time.UTC)
	tk := store.TimeKey(tm)
	for _, tc := range []struct {
		name   string
		key    []byte
		ns, id string
		t      int64
		bad    bool
	}{
		{name: "plain", key: store.VecKey("work", tm, "c0001"), ns: "work", id: "c0001", t: tm.UnixNano()},
		{name: "default namespace", key: store.VecKey("", tm, "x"), ns: "", id: "x", t: tm.UnixNano()},
		{name: "before 1970", key: store.VecKey("中文", time.Unix(-5, 7), "id"), ns: "中文", id: "id", t: -5e9 + 7},
		{name: "no separator", key: []byte("work"), bad: true},
		{name: "no id", key: append([]byte("work\x00"), tk[:]...), bad: true},
		{name: "short time", key: []byte("work\x00\x01\x02"), bad: true},
		{name: "id not utf-8", key: store.VecKey("w", tm, "\xff"), bad: true},
		{name: "zero byte in id", key: store.VecKey("w", tm, "a\x00b"), bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns, tt, id, err := parseVecKey(tc.key)
			if tc.bad {
				if err == nil {
					t.Fatalf("parseVecKey(%q) = %q, %d, %q; want an error", tc.key, ns, tt, id)
				}
				return
			}
			if err != nil || ns != tc.ns || id != tc.id || tt != tc.t {
				t.Fatalf("parseVecKey(%q) = %q, %d, %q, %v; want %q, %d, %q", tc.key, ns, tt, id, err, tc.ns, tc.t, tc.id)
			}
		})
	}
}

func TestVectorLiteral(t *testing.T) {
	for _, tc := range []struct {
		in   []float32
		want string
		bad  bool
	}{
		{in: []float32{0.1, -2, 3e-5}, want: "[0.1,-2,3e-05]"},
		{in: []float32{0, 1}, want: "[0,1]"},
		{in: []float32{float32(math.Pi)}, want: "[3.1415927]"},
		{in: []float32{math.MaxFloat32, math.SmallestNonzeroFloat32}, want: "[3.4028235e+38,1e-45]"},
		{in: nil, bad: true},
		{in: []float32{1, float32(math.NaN())}, bad: true},
		{in: []float32{float32(math.Inf(-1))}, bad: true},
	} {
		got, err := vectorLiteral(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("vectorLiteral(%v) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.bad)
		}
		if err != nil {
			continue
		}
		// Each number reads back as the same float32.
		for i, s := range strings.Split(strings.Trim(got, "[]"), ",") {
			f, err := strconv.ParseFloat(s, 32)
			if err != nil || float32(f) != tc.in[i] {
				t.Errorf("%q: component %d reads back as %v, %v; want %v", got, i, f, err, tc.in[i])
			}
		}
	}
}

func TestDecodeVector(t *testing.T) {
	v := []float32{0.5, -1, 2}
	for _, tc := range []struct {
		raw  []byte
		want []float32
	}{
		{store.EncodeVector(v), v},
		{nil, nil},
		{[]byte{1, 2, 3}, nil},
		{append(store.EncodeVector(v), 0), nil},
	} {
		got, err := decodeVector(tc.raw)
		if (err != nil) != (tc.want == nil) || !slices.Equal(got, tc.want) {
			t.Errorf("decodeVector(%d bytes) = %v, %v; want %v", len(tc.raw), got, err, tc.want)
		}
	}
}

func TestAtLeastVersion(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"0.8.0", true}, {"0.8", true}, {"0.10.1", true}, {"1.0.0", true},
		{"0.7.4", false}, {"0.5.1", false}, {"", false}, {"dev", false},
	} {
		if got := atLeastVersion(tc.v, 0, 8); got != tc.want {
			t.Errorf("atLeastVersion(%q, 0.8) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// TestHNSWStatements checks that each statement uses the placeholders its
// callers pass, $1 to $n each at least once (the statements that need
// pgvector cannot run here).
func TestHNSWStatements(t *testing.T) {
	re := regexp.MustCompile(`\$(\d+)`)
	for _, tc := range []struct {
		name, sql string
		args      int
	}{
		{"has pgvector", sqlHasPgvector, 0},
		{"version", sqlPgvectorVersion, 0},
		{"dim", sqlHNSWDim, 0},
		{"create", fmt.Sprintf(sqlHNSWCreate, 384), 0},
		{"index", sqlHNSWIndex, 0},
		{"upsert", sqlHNSWUpsert, 4},
		{"delete", sqlHNSWDelete, 3},
		{"clear", sqlHNSWClear, 0},
		{"search", sqlHNSWSearch, 5},
		{"staged", sqlStagedChunks, 5},
		{"source", sqlVecSource, 0},
		{"source stats", sqlVecSourceStats, 0},
	} {
		seen := map[int]bool{}
		for _, m := range re.FindAllStringSubmatch(tc.sql, -1) {
			n, _ := strconv.Atoi(m[1])
			seen[n] = true
		}
		for n := 1; n <= tc.args; n++ {
			if !seen[n] {
				t.Errorf("%s: $%d is not used", tc.name, n)
			}
		}
		if len(seen) != tc.args {
			t.Errorf("%s: placeholders %v, want $1..$%d", tc.name, seen, tc.args)
		}
	}
	if !strings.Contains(fmt.Sprintf(sqlHNSWCreate, 384), "vector(384)") {
		t.Error("the table's column does not take the dimension")
	}
}

// TestOpenBackendWithoutPgvector: with hnsw set, a database without the
// extension (this machine's) is refused with one clear error.
func TestOpenBackendWithoutPgvector(t *testing.T) {
	_, err := OpenBackend(t.Context(), Config{DSN: pgtest.DSN(t), HNSW: true}, time.Second)
	if !errors.Is(err, ErrNoPgvector) {
		t.Fatalf("OpenBackend with hnsw on a database without pgvector: %v; want ErrNoPgvector", err)
	}
	if !strings.Contains(err.Error(), "CREATE EXTENSION vector") {
		t.Errorf("the error does not say what to do: %v", err)
	}
}

// standIn makes a database look enough like one with pgvector for the
// mirror, the back-fill and the search to run: a type "vector" (a domain
// over text, which takes the "[...]" literal as it is), an exact <=>
// cosine distance, and vectors_hnsw without a dimension or an HNSW index.
// What it cannot stand in for is the vector(N) type, USING hnsw and the
// approximation.
const standIn = `
CREATE DOMAIN vector AS text;
CREATE FUNCTION standin_cosine_distance(a text, b text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT 1 - sum(x * y) / (sqrt(sum(x * x)) * sqrt(sum(y * y)))
	FROM unnest(string_to_array(trim(both '[]' from a), ',')::float8[],
	            string_to_array(trim(both '[]' from b), ',')::float8[]) AS u(x, y)
$$;
CREATE OPERATOR <=> (LEFTARG = text, RIGHTARG = text, FUNCTION = standin_cosine_distance);
CREATE TABLE vectors_hnsw (
	ns text NOT NULL, id text NOT NULL, t bigint NOT NULL, embedding vector NOT NULL,
	PRIMARY KEY (ns, id));
`

type hnswRow struct {
	NS, ID string
	T      int64
	Vec    string
}

// tableRows reads vectors_hnsw.
func tableRows(t *testing.T, db *DB) []hnswRow {
	t.Helper()
	rows, err := db.pool.Query(t.Context(), `SELECT ns, id, t, embedding::text FROM vectors_hnsw ORDER BY ns, id`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[hnswRow])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// storeRows reads the store's vectors as vectors_hnsw should hold them.
func storeRows(t *testing.T, st *store.Store, namespaces ...string) []hnswRow {
	t.Helper()
	out := []hnswRow{}
	err := st.View(func(tx *store.Tx) error {
		for _, ns := range namespaces {
			err := tx.ScanVectors(ns, time.Time{}, time.Time{}, func(idb []byte, tm int64, raw []byte) error {
				id := string(idb)
				lit, err := vectorLiteral(store.DecodeVector(nil, raw))
				out = append(out, hnswRow{ns, id, tm, lit})
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b hnswRow) int { return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.ID, b.ID)) })
	return out
}

// planar returns a unit vector of dimension 4 pointing at angle a in the
// plane of the first two axes, with a little of the third.
func planar(a float64) []float32 {
	v := []float32{float32(math.Cos(a)), float32(math.Sin(a)), 0.1, 0}
	vector.Normalize(v)
	return v
}

// TestHNSWMirrorAndSearchOnStandIn runs the HNSW path's own logic on the
// stand-in: the back-fill of a database that held vectors before, the
// mirror of puts, moves, deletes and a reindex's emptying, and the search
// with its windows, filter, over-fetch and staged chunks, against an
// exact search of the store.
func TestHNSWMirrorAndSearchOnStandIn(t *testing.T) {
	ctx := t.Context()
	db := open(t)
	if _, err := db.pool.Exec(ctx, standIn); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 4, 13, 9, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Hour) }

	// Vectors written without the mirror, as before the option was set.
	plain, err := store.OpenKV(db.KV(), "plain", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = plain.Update(func(tx *store.Tx) error {
		for i := range 30 {
			if err := tx.PutVector("a", at(i), fmt.Sprintf("a%02d", i), planar(float64(i)/10)); err != nil {
				return err
			}
		}
		return tx.PutVector("b", at(0), "b00", planar(0))
	})
	if err != nil {
		t.Fatal(err)
	}
	// And one in layout 1 (core/store's vectors.go): an empty vectime
	// entry, the time and vector in vecs.
	err = db.KV().Update(func(tx store.KVTx) error {
		tk := store.TimeKey(at(60))
		vecs, err := tx.CreateBucketIfNotExists(bucketVecs)
		if err == nil {
			err = vecs.Put([]byte("old"), append(tk[:], store.EncodeVector(planar(1.5))...))
		}
		if err == nil {
			err = tx.Bucket(bucketVecTime).Put(store.VecKey("b", at(60), "old"), nil)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.syncHNSW(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(storeRows(t, plain, "a", "b"), tableRows(t, db)); diff != "" {
		t.Fatalf("after the back-fill (-store +vectors_hnsw):\n%s", diff)
	}
	if n := len(tableRows(t, db)); n != 32 {
		t.Fatalf("the back-fill wrote %d rows, want 30 + b00 + old", n)
	}

	// The same database with the mirror on.
	kv := db.KV()
	kv.hnsw = &hnswState{}
	st, err := store.OpenKV(kv, "mirrored", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	steps := []struct {
		name string
		fn   func(tx *store.Tx) error
	}{
		{"put", func(tx *store.Tx) error { return tx.PutVector("a", at(40), "a40", planar(2)) }},
		{"move to another time", func(tx *store.Tx) error { return tx.PutVector("a", at(41), "a03", planar(0.3)) }},
		{"delete", func(tx *store.Tx) error { return tx.DeleteVector("a", at(1), "a01") }},
		{"delete what is not there", func(tx *store.Tx) error { return tx.DeleteVector("a", at(2), "zz") }},
		{"rolled back", func(tx *store.Tx) error {
			if err := tx.PutVector("a", at(50), "a50", planar(1)); err != nil {
				return err
			}
			return errors.New("roll back")
		}},
	}
	for _, s := range steps {
		err := st.Update(s.fn)
		if s.name == "rolled back" {
			if err == nil {
				t.Fatal("the rolled-back step committed")
			}
		} else if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := gocmp.Diff(storeRows(t, st, "a", "b"), tableRows(t, db)); diff != "" {
			t.Fatalf("after %s (-store +vectors_hnsw):\n%s", s.name, diff)
		}
	}

	// A server without the option writes; the next opening with it sees
	// the counts differ and fills the table again.
	if err := plain.Update(func(tx *store.Tx) error { return tx.PutVector("b", at(70), "b70", planar(3)) }); err != nil {
		t.Fatal(err)
	}
	if err := db.syncHNSW(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(storeRows(t, st, "a", "b"), tableRows(t, db)); diff != "" {
		t.Fatalf("after a write without the mirror and a new back-fill (-store +vectors_hnsw):\n%s", diff)
	}
	plain.Close()

	// Chunks of an unpublished stage (core/store/stage.go's layout, and
	// the one before schema version 8), and one of a published stage
	// whose bucket is not swept yet, which searches must find.
	err = kv.Update(func(tx store.KVTx) error {
		stages, err := tx.CreateBucketIfNotExists([]byte("stages"))
		if err != nil {
			return err
		}
		if err := stages.Put([]byte("/src"), []byte(`{"id":"s1","source":"/src"}`)); err != nil {
			return err
		}
		for _, c := range []struct{ bucket, key string }{
			{"stage/s1", "t\x00" + string(store.VecKey("a", at(7), "a07"))},
			{"stage/s1", "c\x00a05"}, // a stage of schema version 7
			{"stage/s0", "c\x00a06"},
		} {
			b, err := tx.CreateBucketIfNotExists([]byte(c.bucket))
			if err != nil {
				return err
			}
			if err := b.Put([]byte(c.key), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	h := &HNSW{db: db, st: kv.hnsw}
	q := planar(0.53) // no two chunks at the same distance
	even := func(id string) bool { n, _ := strconv.Atoi(id[1:]); return n%2 == 0 }
	for _, tc := range []struct {
		name          string
		ns            string
		since, before time.Time
		k             int
		allow         func(string) bool
	}{
		{name: "all", ns: "a", k: 5},
		{name: "window", ns: "a", since: at(10), before: at(20), k: 4},
		{name: "filter", ns: "a", k: 3, allow: even},
		{name: "filter that needs more than 4k rows", ns: "a", k: 2, allow: func(id string) bool { return id == "a29" || id == "a28" }},
		{name: "other namespace", ns: "b", k: 5},
		{name: "empty window", ns: "a", since: at(20), before: at(10), k: 5},
		{name: "no such namespace", ns: "c", k: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := h.Search(ctx, tc.ns, q, tc.since, tc.before, tc.k, tc.allow)
			if err != nil {
				t.Fatal(err)
			}
			want := exactSearch(t, st, tc.ns, q, tc.since, tc.before, tc.k, func(id string) bool {
				return id != "a05" && id != "a07" && (tc.allow == nil || tc.allow(id))
			})
			if diff := gocmp.Diff(want, got, approxScore); diff != "" {
				t.Errorf("(-exact +HNSW on the stand-in):\n%s", diff)
			}
		})
	}
	// A re-embedding reindex empties vectime in its transaction.
	if err := st.Update(func(tx *store.Tx) error { return tx.DeleteAllVectors() }); err != nil {
		t.Fatal(err)
	}
	if rows := tableRows(t, db); len(rows) != 0 {
		t.Errorf("after DeleteAllVectors vectors_hnsw holds %d rows", len(rows))
	}
}

// approxScore compares scores computed in float64 by PostgreSQL and in
// float32 by core/vector.
var approxScore = gocmp.Comparer(func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 })

// exactSearch is core/vector's exact search on the store's vectors.
func exactSearch(t *testing.T, st *store.Store, ns string, q []float32, since, before time.Time, k int, allow func(string) bool) []vector.Match {
	t.Helper()
	var all []vector.Match
	if !since.IsZero() && !before.IsZero() && !since.Before(before) {
		return nil
	}
	err := st.View(func(tx *store.Tx) error {
		return tx.ScanVectors(ns, since, before, func(idb []byte, tm int64, raw []byte) error {
			id := string(idb)
			if allow(id) {
				all = append(all, vector.Match{ID: id, Time: tm, Score: vector.Dot(q, store.DecodeVector(nil, raw))})
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(all, func(a, b vector.Match) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Time, a.Time))
	})
	return all[:min(k, len(all))]
}
