package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

// codesOf returns every vecq entry, and what each should be: the code of
// every vectime vector (read through VectorAt, so layout 1 too).
func codesOf(t *testing.T, s *Store) (got, want map[string][]byte) {
	t.Helper()
	got, want = map[string][]byte{}, map[string][]byte{}
	err := s.View(func(tx *Tx) error {
		if b := tx.b(bVecQ); b != nil {
			b.ForEach(func(k, v []byte) error { got[string(k)] = bytes.Clone(v); return nil })
		}
		return tx.b(bVecTime).ForEach(func(k, v []byte) error {
			i := bytes.IndexByte(k, 0)
			raw := tx.VectorAt(string(k[:i]), TimeFromKey(k[i+1:i+9]), string(k[i+9:]))
			if raw == nil {
				t.Errorf("VectorAt finds no vector at vectime key %q", k)
			}
			want[string(k)] = vectorCode(raw)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, want
}

// checkCodes checks that every vector has its code, and nothing else has
// one.
func checkCodes(t *testing.T, s *Store) {
	t.Helper()
	got, want := codesOf(t, s)
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("vecq (-want +got):\n%s", diff)
	}
}

// scanCodes returns the ids and times ScanVectorCodes sees, and checks
// each code against the vector's.
func scanCodes(t *testing.T, s *Store, ns string, from, to time.Time) []vecRow {
	t.Helper()
	var out []vecRow
	err := s.View(func(tx *Tx) error {
		return tx.ScanVectorCodes(ns, from, to, func(idb []byte, tm int64, code []byte) error {
			id := string(idb)
			if raw := tx.VectorAt(ns, tm, id); !bytes.Equal(code, vectorCode(raw)) {
				t.Errorf("code of %s is not its vector's", id)
			}
			out = append(out, vecRow{ID: id, Time: tm})
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ids(rows []vecRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out
}

func TestEncodeVectorCode(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    []float32
		want []int8
		s    float32
	}{
		{"empty", nil, []int8{}, 0},
		{"zero", []float32{0, 0}, []int8{0, 0}, 0},
		{"max is 127", []float32{0.5, -0.25, 0.001, -0.5}, []int8{127, -64, 0, -127}, 0.5 / 127},
		{"rounds half away", []float32{127, 2.5, -2.5}, []int8{127, 3, -3}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code := EncodeVectorCode(tt.v)
			if len(code) != len(tt.v)+4 {
				t.Fatalf("code of %d bytes, want %d", len(code), len(tt.v)+4)
			}
			got := make([]int8, len(tt.v))
			for i := range got {
				got[i] = int8(code[i])
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
			if s := DecodeVector(nil, code[len(tt.v):])[0]; s != tt.s {
				t.Errorf("scale %v, want %v", s, tt.s)
			}
		})
	}
}

// TestVectorCodesFollowWrites checks that every write and delete of a
// vector keeps its code beside it.
func TestVectorCodesFollowWrites(t *testing.T) {
	for _, tt := range []struct {
		name     string
		do       func(tx *Tx) error
		wantScan []string
	}{
		{"write", func(tx *Tx) error { return nil }, []string{"a1", "a2", "a3"}},
		{"overwrite", func(tx *Tx) error { return tx.PutVector("n", at(2), "a2", []float32{0, 9}) }, []string{"a1", "a2", "a3"}},
		{"overwrite at another time", func(tx *Tx) error { return tx.PutVector("n", at(9), "a1", []float32{7, 7}) }, []string{"a2", "a3", "a1"}},
		{"delete", func(tx *Tx) error { return tx.DeleteVector("n", at(2), "a2") }, []string{"a1", "a3"}},
		{"delete chunk (forget)", func(tx *Tx) error {
			c := &Chunk{ID: "a3", NS: "n", Session: "s", Time: at(3).Format(time.RFC3339Nano)}
			if err := tx.PutChunk(c, false); err != nil {
				return err
			}
			return tx.DeleteChunk(c)
		}, []string{"a1", "a2"}},
		{"delete all and rewrite", func(tx *Tx) error {
			if err := tx.DeleteAllVectors(); err != nil {
				return err
			}
			return tx.PutVector("n", at(5), "b5", []float32{1, 2})
		}, []string{"b5"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			err := s.Update(func(tx *Tx) error {
				for i, id := range []string{"a1", "a2", "a3"} {
					if err := tx.PutVector("n", at(i+1), id, []float32{float32(i), 1}); err != nil {
						return err
					}
				}
				return tx.PutVector("other", at(1), "o1", []float32{1, 1})
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Update(tt.do); err != nil {
				t.Fatal(err)
			}
			checkCodes(t, s)
			if diff := gocmp.Diff(tt.wantScan, ids(scanCodes(t, s, "n", time.Time{}, time.Time{}))); diff != "" {
				t.Errorf("ScanVectorCodes (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(ids(scanAll(t, s, "n", time.Time{}, time.Time{})), ids(scanCodes(t, s, "n", time.Time{}, time.Time{}))); diff != "" {
				t.Errorf("ScanVectorCodes and ScanVectors differ (-vectors +codes):\n%s", diff)
			}
			s.View(func(tx *Tx) error {
				if !tx.VectorCodesReady() {
					t.Errorf("codes not ready")
				}
				return nil
			})
		})
	}
}

func TestScanVectorCodesWindow(t *testing.T) {
	s := openTest(t)
	err := s.Update(func(tx *Tx) error {
		for h := 1; h <= 6; h++ {
			if err := tx.PutVector("n", at(h), "c"+string(rune('0'+h)), []float32{float32(h)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		from, to time.Time
		want     []string
	}{
		{time.Time{}, time.Time{}, []string{"c1", "c2", "c3", "c4", "c5", "c6"}},
		{at(2), at(4), []string{"c2", "c3"}},
		{at(5), time.Time{}, []string{"c5", "c6"}},
		{time.Time{}, at(2), []string{"c1"}},
	} {
		if diff := gocmp.Diff(tt.want, ids(scanCodes(t, s, "n", tt.from, tt.to))); diff != "" {
			t.Errorf("[%v, %v) (-want +got):\n%s", tt.from, tt.to, diff)
		}
	}
}

// TestStagedVectorCodes checks a stage's codes: passed by until the stage
// is published, removed with it when it is discarded.
func TestStagedVectorCodes(t *testing.T) {
	for _, tt := range []struct {
		name    string
		publish bool
		want    []string
	}{
		{"published", true, []string{"pub1", "stg2", "stg3"}},
		{"discarded", false, []string{"pub1"}},
	} {
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
					if err := tx.PutStagedChunk(info.ID, c, []float32{float32(i + 2)}, at(i+2)); err != nil {
						return err
					}
				}
				return tx.PutStagedSession(info.ID, &StagedSession{Session: Session{NS: "n", Session: "s"}, IDs: ids[:2]})
			})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Update(func(tx *Tx) error {
				return tx.DeleteStagedChunk(info.ID, &Chunk{ID: "stgX", NS: "n", Session: "s", Time: at(4).Format(time.RFC3339Nano)})
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff([]string{"pub1"}, ids(scanCodes(t, s, "n", time.Time{}, time.Time{}))); diff != "" {
				t.Errorf("scan before publish (-want +got):\n%s", diff)
			}
			checkCodes(t, s)
			if tt.publish {
				err = s.Update(func(tx *Tx) error { _, err := tx.PublishStage(info, nil); return err })
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
			if diff := gocmp.Diff(tt.want, ids(scanCodes(t, s, "n", time.Time{}, time.Time{}))); diff != "" {
				t.Errorf("scan (-want +got):\n%s", diff)
			}
			checkCodes(t, s)
		})
	}
}

// removeCodes makes s look like a store written before codes: no vecq
// bucket, no flag.
func removeCodes(t *testing.T, s *Store) {
	t.Helper()
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bVecQ); err != nil {
			return err
		}
		return tx.Bucket(bMeta).Delete([]byte(metaVecCodes))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func ready(t *testing.T, s *Store) bool {
	t.Helper()
	var ok bool
	s.View(func(tx *Tx) error { ok = tx.VectorCodesReady(); return nil })
	return ok
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

// TestBackfillVectorCodes fills in the codes of a store written without
// them, including vectors of layout 1 and a stage's, in batches; a
// read-only open of it writes nothing.
func TestBackfillVectorCodes(t *testing.T) {
	for _, batch := range []int{1, 2, 1000} {
		path := filepath.Join(t.TempDir(), FileName)
		s, err := Open(path, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !ready(t, s) {
			t.Errorf("a new store's codes are not ready")
		}
		err = s.Update(func(tx *Tx) error {
			for i, id := range []string{"a1", "a2", "a3", "a4", "a5"} {
				if err := tx.PutVector("n", at(i+1), id, []float32{float32(i), -1}); err != nil {
					return err
				}
			}
			putV1Vector(t, tx, "n", at(7), "old7", []float32{7, 0})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		removeCodes(t, s)
		if err := s.Update(func(tx *Tx) error { return tx.SetMeta(metaSchema, []byte("2")) }); err != nil {
			t.Fatal(err)
		}
		s.Close()

		// A read-only (shared) open and a read of the store write nothing.
		before := fileSum(t, path)
		ro, err := OpenWith(path, Options{Shared: true, LockWait: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if ready(t, ro) {
			t.Errorf("codes ready without a vecq bucket")
		}
		if got := scanCodes(t, ro, "n", time.Time{}, time.Time{}); len(got) != 0 {
			t.Errorf("codes scanned in a store without them: %v", got)
		}
		scanAll(t, ro, "n", time.Time{}, time.Time{})
		ro.Close()
		if fileSum(t, path) != before {
			t.Errorf("a read-only open changed the store file")
		}

		s, err = Open(path, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// A write after codes went missing writes its own code; the
		// backfill does the rest.
		if err := s.Update(func(tx *Tx) error { return tx.PutVector("n", at(6), "a6", []float32{6, 6}) }); err != nil {
			t.Fatal(err)
		}
		if ready(t, s) {
			t.Errorf("batch %d: codes ready before the backfill", batch)
		}
		if err := s.BackfillVectorCodes(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
		if !ready(t, s) {
			t.Errorf("batch %d: codes not ready after the backfill", batch)
		}
		checkCodes(t, s)
		if diff := gocmp.Diff([]string{"a1", "a2", "a3", "a4", "a5", "a6", "old7"}, ids(scanCodes(t, s, "n", time.Time{}, time.Time{}))); diff != "" {
			t.Errorf("batch %d: codes after the backfill (-want +got):\n%s", batch, diff)
		}
		s.View(func(tx *Tx) error {
			if v := tx.Meta(metaSchema); string(v) != strconv.Itoa(SchemaVersion) {
				t.Errorf("schema %s after a write, want %d", v, SchemaVersion)
			}
			return nil
		})
		// Backfilling a store whose codes are ready writes nothing.
		s.Close()
		before = fileSum(t, path)
		s, err = Open(path, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.BackfillVectorCodes(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if fileSum(t, path) != before {
			t.Errorf("batch %d: a backfill of a ready store wrote", batch)
		}
	}
}

// TestBackfillLayout1Fixture backfills the codes of testdata/layout1.db,
// a version-1 store (layout 1), and then migrates its vectors.
func TestBackfillLayout1Fixture(t *testing.T) {
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
	if ready(t, s) {
		t.Fatalf("codes ready in a store of layout 1")
	}
	if err := s.BackfillVectorCodes(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	if !ready(t, s) {
		t.Errorf("codes not ready after the backfill")
	}
	checkCodes(t, s)
	got, _ := codesOf(t, s)
	if len(got) != 6 {
		t.Errorf("%d codes, want 6", len(got))
	}
	if err := s.MigrateVectors(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	checkCodes(t, s)
}

// TestCompactKeepsVectorCodes checks that a compaction copies the codes
// and their flag.
func TestCompactKeepsVectorCodes(t *testing.T) {
	s := openTest(t)
	err := s.Update(func(tx *Tx) error {
		for h := range 50 {
			if err := tx.PutVector("n", at(h), "c"+string(rune('A'+h)), []float32{float32(h), 1, -1}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := codesOf(t, s)
	if _, err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	after, _ := codesOf(t, s)
	if diff := gocmp.Diff(before, after); diff != "" {
		t.Errorf("codes after compaction (-before +after):\n%s", diff)
	}
	if !ready(t, s) {
		t.Errorf("codes not ready after compaction")
	}
	checkCodes(t, s)
}
