package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), FileName), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// collidingKeys finds two chunk keys whose six-character ids are equal.
func collidingKeys(t *testing.T) (core.ChunkKey, core.ChunkKey) {
	t.Helper()
	seen := map[string]core.ChunkKey{}
	for i := 0; i < 1<<22; i++ {
		var mk core.MessageKey
		mk[0], mk[1], mk[2], mk[3] = byte(i), byte(i>>8), byte(i>>16), byte(i>>24)
		k := core.NewChunkKey("", "s", mk, 0)
		id := k.ID(core.MinIDLen)
		if o, ok := seen[id]; ok {
			return o, k
		}
		seen[id] = k
	}
	t.Fatal("no collision found")
	return core.ChunkKey{}, core.ChunkKey{}
}

func TestAllocIDHandlesCollisions(t *testing.T) {
	s := openTest(t)
	a, b := collidingKeys(t)
	var idA, idB, idA2 string
	err := s.Update(func(tx *Tx) error {
		var err error
		if idA, err = tx.AllocID(a); err != nil {
			return err
		}
		if err := tx.PutChunk(&Chunk{ID: idA, Key: a, Time: "2026-01-01T00:00:00Z"}, true); err != nil {
			return err
		}
		idB, err = tx.AllocID(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if idA == idB {
		t.Fatalf("colliding keys got the same id %s", idA)
	}
	if len(idA) != 6 || len(idB) != 7 || idB[:6] != idA {
		t.Errorf("ids %s and %s: want the second one lengthened by one character", idA, idB)
	}
	s.View(func(tx *Tx) error {
		idA2, _ = tx.ChunkID(a)
		return nil
	})
	if idA2 != idA {
		t.Errorf("stored key maps to %q, want %q", idA2, idA)
	}
	err = s.Update(func(tx *Tx) error {
		again, err := tx.AllocID(a)
		if again != idA {
			t.Errorf("AllocID of a known key = %s, want %s", again, idA)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestChunkNotFound(t *testing.T) {
	s := openTest(t)
	s.View(func(tx *Tx) error {
		if _, err := tx.Chunk("abcdef"); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("error %v, want ErrNotFound", err)
		}
		return nil
	})
}

func TestScanVectorsByTime(t *testing.T) {
	s := openTest(t)
	base := time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC)
	err := s.Update(func(tx *Tx) error {
		for i := 0; i < 10; i++ {
			for _, ns := range []string{"", "a"} {
				if err := tx.PutVector(ns, base.Add(time.Duration(i)*24*time.Hour), ns+string(rune('a'+i))+"xxxxx", []float32{float32(i), 1}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	s.View(func(tx *Tx) error {
		return tx.ScanVectors("a", base.Add(2*24*time.Hour), base.Add(5*24*time.Hour), func(idb []byte, _ int64, raw []byte) error {
			id := string(idb)
			got = append(got, id)
			if v := DecodeVector(nil, raw); len(v) != 2 {
				t.Errorf("vector %v", v)
			}
			return nil
		})
	})
	want := []string{"acxxxxx", "adxxxxx", "aexxxxx"}
	if len(got) != len(want) || got[0] != want[0] || got[2] != want[2] {
		t.Errorf("scan = %v, want %v", got, want)
	}
}

func TestTimeKeyOrder(t *testing.T) {
	times := []time.Time{
		time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC),
		time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for i := 1; i < len(times); i++ {
		a, b := TimeKey(times[i-1]), TimeKey(times[i])
		if string(a[:]) >= string(b[:]) {
			t.Errorf("TimeKey(%v) >= TimeKey(%v)", times[i-1], times[i])
		}
		if got := TimeFromKey(b[:]); got != times[i].UnixNano() {
			t.Errorf("TimeFromKey round trip %d, want %d", got, times[i].UnixNano())
		}
	}
}

func TestHeldBackWritesAreReadableAndCommitted(t *testing.T) {
	s := openTest(t)
	tm := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	err := s.Update(func(tx *Tx) error {
		for i := 0; i < 500; i++ {
			id := core.NewChunkKey("", "s", core.MessageKey{byte(i), byte(i >> 8)}, 0).ID(6)
			if err := tx.PutVector("", tm.Add(time.Duration(i)*time.Minute), id, []float32{float32(i)}); err != nil {
				return err
			}
			if v, _ := tx.Vector(id); len(v) != 1 || v[0] != float32(i) {
				t.Fatalf("a vector written in this transaction reads back as %v", v)
			}
			if i%2 == 0 {
				if err := tx.DeleteVector("", tm.Add(time.Duration(i)*time.Minute), id); err != nil {
					return err
				}
				if v, _ := tx.Vector(id); v != nil {
					t.Fatalf("a vector deleted in this transaction reads back as %v", v)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	s.View(func(tx *Tx) error {
		return tx.ScanVectors("", time.Time{}, time.Time{}, func([]byte, int64, []byte) error { n++; return nil })
	})
	if n != 250 {
		t.Errorf("%d vectors after commit, want 250", n)
	}
	// A failed transaction leaves nothing behind.
	s.Update(func(tx *Tx) error {
		tx.PutVector("", tm, "zzzzzz", []float32{1})
		return core.ErrInvalid
	})
	s.View(func(tx *Tx) error {
		if v, _ := tx.Vector("zzzzzz"); v != nil {
			t.Errorf("a rolled-back write was committed")
		}
		return nil
	})
}

func BenchmarkBulkUpdate(b *testing.B) {
	for _, n := range []int{1000, 10000, 50000} {
		b.Run(fmt.Sprintf("vectors=%d", n), func(b *testing.B) {
			tm := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
			vec := make([]float32, 256)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s, err := Open(filepath.Join(b.TempDir(), FileName), time.Second)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				err = s.Update(func(tx *Tx) error {
					for j := 0; j < n; j++ {
						id := core.NewChunkKey("", "s", core.MessageKey{byte(j), byte(j >> 8), byte(j >> 16)}, 0).ID(8)
						if err := tx.PutVector("", tm.Add(time.Duration(j)*time.Second), id, vec); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
		})
	}
}
