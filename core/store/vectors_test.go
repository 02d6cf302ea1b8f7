package store

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// vecRow is one vector as a scan or a lookup sees it.
type vecRow struct {
	ID   string
	Time int64
	Vec  []float32
}

var vecBase = time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)

// putV1Vector writes a vector the way a version-1 store holds it
// (layout 1): the vector by id in vecs, an empty time entry in vectime.
func putV1Vector(t *testing.T, tx *Tx, ns string, tm time.Time, id string, vec []float32) {
	t.Helper()
	tk := TimeKey(tm)
	if err := tx.b(bVecs).Put([]byte(id), append(tk[:], EncodeVector(vec)...)); err != nil {
		t.Fatal(err)
	}
	if err := tx.b(bVecTime).Put(VecKey(ns, tm, id), []byte{}); err != nil {
		t.Fatal(err)
	}
}

// scanAll returns what ScanVectors sees of namespace ns in [from, to).
func scanAll(t *testing.T, s *Store, ns string, from, to time.Time) []vecRow {
	t.Helper()
	var out []vecRow
	err := s.View(func(tx *Tx) error {
		return tx.ScanVectors(ns, from, to, func(idb []byte, tm int64, raw []byte) error {
			id := string(idb)
			out = append(out, vecRow{id, tm, DecodeVector(nil, raw)})
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lookup returns what Vector says of each id, leaving out the missing.
func lookup(t *testing.T, s *Store, ids ...string) []vecRow {
	t.Helper()
	var out []vecRow
	s.View(func(tx *Tx) error {
		for _, id := range ids {
			if v, tm := tx.Vector(id); v != nil {
				out = append(out, vecRow{id, tm, v})
			}
		}
		return nil
	})
	return out
}

func at(h int) time.Time { return vecBase.Add(time.Duration(h) * time.Hour) }

func row(id string, h int, v ...float32) vecRow { return vecRow{id, at(h).UnixNano(), v} }

// TestVectorsOfLayout1 reads a store written in layout 1, alone and
// mixed with vectors in the current layout, then rewrites, deletes
// and migrates its vectors.
func TestVectorsOfLayout1(t *testing.T) {
	s := openTest(t)
	err := s.Update(func(tx *Tx) error {
		putV1Vector(t, tx, "a", at(1), "old1", []float32{1, 0})
		putV1Vector(t, tx, "a", at(3), "old3", []float32{3, 0})
		putV1Vector(t, tx, "a", at(5), "old5", []float32{5, 0})
		putV1Vector(t, tx, "b", at(2), "oldb", []float32{9, 9})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"old1", "old3", "old5", "oldb", "new2", "new4"}
	steps := []struct {
		name   string
		update func(tx *Tx) error
		scan   []vecRow // namespace a, all time
		window []vecRow // namespace a, [2h, 5h)
		byID   []vecRow
	}{
		{
			name:   "layout 1 alone",
			update: func(*Tx) error { return nil },
			scan:   []vecRow{row("old1", 1, 1, 0), row("old3", 3, 3, 0), row("old5", 5, 5, 0)},
			window: []vecRow{row("old3", 3, 3, 0)},
			byID:   []vecRow{row("old1", 1, 1, 0), row("old3", 3, 3, 0), row("old5", 5, 5, 0), row("oldb", 2, 9, 9)},
		},
		{
			name: "mixed with new vectors",
			update: func(tx *Tx) error {
				if err := tx.PutVector("a", at(2), "new2", []float32{2, 0}); err != nil {
					return err
				}
				return tx.PutVector("a", at(4), "new4", []float32{4, 0})
			},
			scan:   []vecRow{row("old1", 1, 1, 0), row("new2", 2, 2, 0), row("old3", 3, 3, 0), row("new4", 4, 4, 0), row("old5", 5, 5, 0)},
			window: []vecRow{row("new2", 2, 2, 0), row("old3", 3, 3, 0), row("new4", 4, 4, 0)},
			byID: []vecRow{row("old1", 1, 1, 0), row("old3", 3, 3, 0), row("old5", 5, 5, 0), row("oldb", 2, 9, 9),
				row("new2", 2, 2, 0), row("new4", 4, 4, 0)},
		},
		{
			name: "an old vector rewritten, another deleted",
			update: func(tx *Tx) error {
				if err := tx.PutVector("a", at(3), "old3", []float32{3, 3}); err != nil {
					return err
				}
				return tx.DeleteVector("a", at(1), "old1")
			},
			scan:   []vecRow{row("new2", 2, 2, 0), row("old3", 3, 3, 3), row("new4", 4, 4, 0), row("old5", 5, 5, 0)},
			window: []vecRow{row("new2", 2, 2, 0), row("old3", 3, 3, 3), row("new4", 4, 4, 0)},
			byID: []vecRow{row("old3", 3, 3, 3), row("old5", 5, 5, 0), row("oldb", 2, 9, 9),
				row("new2", 2, 2, 0), row("new4", 4, 4, 0)},
		},
		{
			name: "an old vector written again at another time",
			update: func(tx *Tx) error {
				return tx.PutVector("a", at(6), "old5", []float32{6, 0})
			},
			scan:   []vecRow{row("new2", 2, 2, 0), row("old3", 3, 3, 3), row("new4", 4, 4, 0), row("old5", 6, 6, 0)},
			window: []vecRow{row("new2", 2, 2, 0), row("old3", 3, 3, 3), row("new4", 4, 4, 0)},
			byID: []vecRow{row("old3", 3, 3, 3), row("old5", 6, 6, 0), row("oldb", 2, 9, 9),
				row("new2", 2, 2, 0), row("new4", 4, 4, 0)},
		},
	}
	for _, st := range steps {
		if err := s.Update(st.update); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if diff := gocmp.Diff(st.scan, scanAll(t, s, "a", time.Time{}, time.Time{})); diff != "" {
			t.Errorf("%s: scan (-want +got):\n%s", st.name, diff)
		}
		if diff := gocmp.Diff(st.window, scanAll(t, s, "a", at(2), at(5))); diff != "" {
			t.Errorf("%s: scan of [2h, 5h) (-want +got):\n%s", st.name, diff)
		}
		if diff := gocmp.Diff(st.byID, lookup(t, s, ids...)); diff != "" {
			t.Errorf("%s: by id (-want +got):\n%s", st.name, diff)
		}
	}

}

// TestMigrateVectors moves layout-1 vectors in steps and checks that
// scans and lookups see the same vectors before and after.
func TestMigrateVectors(t *testing.T) {
	s := openTest(t)
	err := s.Update(func(tx *Tx) error {
		for i, ns := range []string{"a", "b", "a", "b", "a"} {
			putV1Vector(t, tx, ns, at(i), fmt.Sprintf("old%d", i), []float32{float32(i), 1})
		}
		return tx.PutVector("a", at(9), "new9", []float32{9, 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"old0", "old1", "old2", "old3", "old4", "new9"}
	wantA, wantB, wantIDs := scanAll(t, s, "a", time.Time{}, time.Time{}), scanAll(t, s, "b", time.Time{}, time.Time{}), lookup(t, s, ids...)
	if len(wantA) != 4 || len(wantB) != 2 || len(wantIDs) != 6 {
		t.Fatalf("before migration: %d, %d and %d vectors, want 4, 2 and 6", len(wantA), len(wantB), len(wantIDs))
	}
	var from []byte
	calls := 0
	for {
		err := s.Update(func(tx *Tx) error {
			var err error
			from, err = tx.MigrateVectors(from, 2)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if from == nil || calls > 10 {
			break
		}
	}
	if calls != 3 {
		t.Errorf("migrating 5 vectors 2 at a time took %d calls, want 3", calls)
	}
	if diff := gocmp.Diff(wantA, scanAll(t, s, "a", time.Time{}, time.Time{})); diff != "" {
		t.Errorf("after migration: scan of a (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(wantB, scanAll(t, s, "b", time.Time{}, time.Time{})); diff != "" {
		t.Errorf("after migration: scan of b (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(wantIDs, lookup(t, s, ids...)); diff != "" {
		t.Errorf("after migration: by id (-want +got):\n%s", diff)
	}
	s.View(func(tx *Tx) error {
		if n := tx.b(bVecs).KeyN(); n != 0 {
			t.Errorf("%d vectors left in layout 1 after migration", n)
		}
		c := tx.b(bVecTime).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(v) == 0 {
				t.Errorf("time entry %q still has no vector", k)
			}
		}
		return nil
	})
	// A second run finds nothing to do.
	s.Update(func(tx *Tx) error {
		if next, err := tx.MigrateVectors(nil, 2); next != nil || err != nil {
			t.Errorf("MigrateVectors on a migrated store = %q, %v; want nil, nil", next, err)
		}
		return nil
	})
}

// TestStagedVectors follows a stage's vectors: readable by id at once,
// passed by in scans until the stage is published, gone when it is
// discarded; a stage written in layout 1 is published and discarded as
// before, and one whose chunk set is keyed by id, as before schema
// version 8, is passed by and discarded (such a stage is never published:
// an ingest discards the stages it finds before it begins its own).
func TestStagedVectors(t *testing.T) {
	tests := []struct {
		name     string
		v1       bool // the stage wrote its vectors in layout 1
		publish  bool
		wantScan []vecRow
		wantByID []vecRow
		v7       bool // the stage keyed its chunk set by id alone
	}{
		{"version 7 discarded", false, false,
			[]vecRow{row("pub1", 1, 1)},
			[]vecRow{row("pub1", 1, 1)}, true},
		{"published", false, true,
			[]vecRow{row("pub1", 1, 1), row("stg2", 2, 2), row("stg3", 3, 3)},
			[]vecRow{row("pub1", 1, 1), row("stg2", 2, 2), row("stg3", 3, 3)}, false},
		{"discarded", false, false,
			[]vecRow{row("pub1", 1, 1)},
			[]vecRow{row("pub1", 1, 1)}, false},
		{"layout 1 published", true, true,
			[]vecRow{row("pub1", 1, 1), row("stg2", 2, 2), row("stg3", 3, 3)},
			[]vecRow{row("pub1", 1, 1), row("stg2", 2, 2), row("stg3", 3, 3)}, false},
		{"layout 1 discarded", true, false,
			[]vecRow{row("pub1", 1, 1)},
			[]vecRow{row("pub1", 1, 1)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			var info *StageInfo
			err := s.Update(func(tx *Tx) error {
				if err := tx.PutVector("n", at(1), "pub1", []float32{1}); err != nil {
					return err
				}
				var err error
				if info, err = tx.BeginStage("/src", "digest"); err != nil {
					return err
				}
				ids := []string{"stg2", "stg3", "stgX"}
				for i, id := range ids {
					c := &Chunk{ID: id, NS: "n", Session: "s", Time: at(i + 2).Format(time.RFC3339Nano)}
					vec := []float32{float32(i + 2)}
					if tt.v1 {
						if err := tx.PutStagedChunk(info.ID, c, nil, at(i+2)); err != nil {
							return err
						}
						tk := TimeKey(at(i + 2))
						if err := tx.put(bVecs, []byte(id), append(tk[:], EncodeVector(vec)...)); err != nil {
							return err
						}
					} else if err := tx.PutStagedChunk(info.ID, c, vec, at(i+2)); err != nil {
						return err
					}
					if tt.v7 {
						b, _ := tx.stageBucket(info.ID)
						if err := b.Delete(stagedChunkKey("n", at(i+2), id)); err != nil {
							return err
						}
						if err := b.Put(append([]byte("c\x00"), id...), nil); err != nil {
							return err
						}
					}
				}
				return tx.PutStagedSession(info.ID, &StagedSession{Session: Session{NS: "n", Session: "s"}, IDs: ids[:2]})
			})
			if err != nil {
				t.Fatal(err)
			}
			// A later batch cuts stgX away.
			err = s.Update(func(tx *Tx) error {
				return tx.DeleteStagedChunk(info.ID, &Chunk{ID: "stgX", NS: "n", Session: "s", Time: at(4).Format(time.RFC3339Nano)})
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff([]vecRow{row("pub1", 1, 1)}, scanAll(t, s, "n", time.Time{}, time.Time{})); diff != "" {
				t.Errorf("scan before publish (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff([]vecRow{row("stg2", 2, 2), row("stg3", 3, 3)}, lookup(t, s, "stg2", "stg3", "stgX")); diff != "" {
				t.Errorf("staged vectors by id (-want +got):\n%s", diff)
			}
			s.View(func(tx *Tx) error {
				for _, c := range []struct {
					id     string
					hour   int
					staged bool
				}{{"pub1", 1, false}, {"stg2", 2, true}, {"stg3", 3, true}, {"stgX", 4, false}} {
					if got := tx.StagedChunk(&Chunk{ID: c.id, NS: "n", Time: at(c.hour).Format(time.RFC3339Nano)}); got != c.staged {
						t.Errorf("StagedChunk(%s) = %v, want %v", c.id, got, c.staged)
					}
				}
				if ids, _ := tx.StageChunks(info, nil, 10); !slices.Equal(ids, []string{"stg2", "stg3"}) {
					t.Errorf("StageChunks = %q, want stg2 and stg3", ids)
				}
				return nil
			})
			var touched []int64
			if tt.publish {
				err = s.Update(func(tx *Tx) error {
					_, err := tx.PublishStage(info, func(ns string, tm time.Time) { touched = append(touched, tm.UnixNano()) })
					return err
				})
				if diff := gocmp.Diff([]int64{at(2).UnixNano(), at(3).UnixNano()}, touched); diff != "" {
					t.Errorf("touched (-want +got):\n%s", diff)
				}
			} else {
				for done := false; !done && err == nil; {
					err = s.Update(func(tx *Tx) error {
						var err error
						done, err = tx.DiscardStage(info, 1)
						return err
					})
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(tt.wantScan, scanAll(t, s, "n", time.Time{}, time.Time{})); diff != "" {
				t.Errorf("scan (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.wantByID, lookup(t, s, "pub1", "stg2", "stg3", "stgX")); diff != "" {
				t.Errorf("by id (-want +got):\n%s", diff)
			}
			// Nothing of the stage's vectors is left behind.
			s.View(func(tx *Tx) error {
				want := map[string]int{"vecs": 0, "vectime": len(tt.wantScan), "veckeys": len(tt.wantScan)}
				if tt.v1 {
					want["vecs"], want["veckeys"] = len(tt.wantScan)-1, 1
				}
				got := map[string]int{}
				for name := range want {
					got[name] = tx.b([]byte(name)).KeyN()
				}
				if diff := gocmp.Diff(want, got); diff != "" {
					t.Errorf("keys per bucket (-want +got):\n%s", diff)
				}
				return nil
			})
		})
	}
}

// TestLayout1Fixture reads testdata/layout1.db, a home's store written in
// layout 1, schema version 1 (12 messages, 6 chunks of 256 dimensions in
// namespaces "home" and "work"), and migrates it. The expected vectors
// are read from its vecs bucket directly.
func TestLayout1Fixture(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "layout1.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string][]vecRow{}
	var ids []string
	err = s.View(func(tx *Tx) error {
		return tx.ForEachChunk(func(c *Chunk) error {
			v := tx.b(bVecs).Get([]byte(c.ID))
			if len(v) != 8+4*256 {
				t.Fatalf("chunk %s: layout-1 record of %d bytes, want %d", c.ID, len(v), 8+4*256)
			}
			want[c.NS] = append(want[c.NS], vecRow{c.ID, TimeFromKey(v[:8]), DecodeVector(nil, v[8:])})
			ids = append(ids, c.ID)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 6 || len(want["home"]) != 3 || len(want["work"]) != 3 {
		t.Fatalf("fixture holds %d chunks (%d home, %d work), want 6 (3, 3)", len(ids), len(want["home"]), len(want["work"]))
	}
	var wantByID []vecRow
	for _, ns := range []string{"home", "work"} {
		slices.SortFunc(want[ns], func(a, b vecRow) int { return cmp.Compare(a.Time, b.Time) })
	}
	for _, id := range ids {
		for _, r := range append(want["home"], want["work"]...) {
			if r.ID == id {
				wantByID = append(wantByID, r)
			}
		}
	}
	check := func(when string) {
		for _, ns := range []string{"home", "work"} {
			if diff := gocmp.Diff(want[ns], scanAll(t, s, ns, time.Time{}, time.Time{})); diff != "" {
				t.Errorf("%s: scan of %s (-want +got):\n%s", when, ns, diff)
			}
		}
		if diff := gocmp.Diff(wantByID, lookup(t, s, ids...)); diff != "" {
			t.Errorf("%s: by id (-want +got):\n%s", when, diff)
		}
	}
	check("layout 1")
	if err := s.MigrateVectors(t.Context(), 4); err != nil {
		t.Fatal(err)
	}
	check("migrated")
	s.View(func(tx *Tx) error {
		if n := tx.b(bVecs).KeyN(); n != 0 {
			t.Errorf("%d vectors left in layout 1 after migration", n)
		}
		return nil
	})
}

// TestVectorPagesAreFilled checks that vectors written in time order
// fill the leaves of the time-ordered bucket (three 256-dimension
// entries to a 4 KiB page) rather than half of each.
func TestVectorPagesAreFilled(t *testing.T) {
	const n, batch = 3000, 500
	s := openTest(t)
	vec := make([]float32, 256)
	for i := 0; i < n; i += batch {
		err := s.Update(func(tx *Tx) error {
			for j := i; j < i+batch; j++ {
				if err := tx.PutVector("n", vecBase.Add(time.Duration(j)*time.Minute), fmt.Sprintf("id%06d", j), vec); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	s.View(func(tx *Tx) error {
		st := tx.b(bVecTime).(boltBucket).Stats()
		if st.KeyN != n {
			t.Errorf("%d vectors stored, want %d", st.KeyN, n)
		}
		// Three to a page, give or take the last page of each batch.
		if max := n/3 + n/batch; st.LeafPageN > max {
			t.Errorf("%d vectors take %d leaf pages, want at most %d", n, st.LeafPageN, max)
		}
		return nil
	})
}

// TestPublishStageInGroups publishes the same stage with groups of every
// size from one chunk to all of them (a publication sorts and
// releases its chunks group by group): the same chunks, vectors, codes,
// index queue and touched times come out of each.
func TestPublishStageInGroups(t *testing.T) {
	// Two sessions whose ids are not in id order, nor in time order.
	sessions := map[string][]string{"s1": {"k9", "a1", "m5"}, "s2": {"b7", "z2"}}
	hours := map[string]int{"k9": 1, "a1": 2, "m5": 3, "b7": 4, "z2": 5}
	for _, group := range []int{1, 2, 3, 5, 16384} {
		for _, indexed := range []bool{false, true} {
			t.Run(fmt.Sprintf("group=%d/indexed=%v", group, indexed), func(t *testing.T) {
				defer func(g int) { publishGroup = g }(publishGroup)
				publishGroup = group
				s := openTest(t)
				var info *StageInfo
				err := s.Update(func(tx *Tx) error {
					var err error
					if info, err = tx.BeginStage("/src", "digest"); err != nil {
						return err
					}
					info.Indexed = indexed
					for _, sess := range []string{"s1", "s2"} {
						for _, id := range sessions[sess] {
							c := &Chunk{ID: id, NS: "n", Session: sess, Time: at(hours[id]).Format(time.RFC3339Nano)}
							if err := tx.PutStagedChunk(info.ID, c, []float32{float32(hours[id])}, at(hours[id])); err != nil {
								return err
							}
						}
						if err := tx.PutStagedSession(info.ID, &StagedSession{Session: Session{NS: "n", Session: sess}, IDs: sessions[sess]}); err != nil {
							return err
						}
					}
					return tx.SaveStage(info)
				})
				if err != nil {
					t.Fatal(err)
				}
				var n int
				var touched []int64
				err = s.Update(func(tx *Tx) error {
					var err error
					n, err = tx.PublishStage(info, func(ns string, tm time.Time) { touched = append(touched, tm.UnixNano()) })
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if n != 5 {
					t.Errorf("published %d chunks, want 5", n)
				}
				slices.Sort(touched)
				want := []int64{at(1).UnixNano(), at(2).UnixNano(), at(3).UnixNano(), at(4).UnixNano(), at(5).UnixNano()}
				if diff := gocmp.Diff(want, touched); diff != "" {
					t.Errorf("touched (-want +got):\n%s", diff)
				}
				wantScan := []vecRow{row("k9", 1, 1), row("a1", 2, 2), row("m5", 3, 3), row("b7", 4, 4), row("z2", 5, 5)}
				if diff := gocmp.Diff(wantScan, scanAll(t, s, "n", time.Time{}, time.Time{})); diff != "" {
					t.Errorf("scan after publish (-want +got):\n%s", diff)
				}
				s.View(func(tx *Tx) error {
					wantOutbox := []string{"a1", "b7", "k9", "m5", "z2"}
					if indexed {
						wantOutbox = nil
					}
					if diff := gocmp.Diff(wantOutbox, tx.Outbox(), cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("index queue (-want +got):\n%s", diff)
					}
					if got := tx.b(bVecQ).KeyN(); got != 5 {
						t.Errorf("%d vector codes, want 5", got)
					}
					return nil
				})
			})
		}
	}
}
