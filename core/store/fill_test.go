package store

import (
	"fmt"
	"testing"
)

// leavesUsed returns the share of bucket name's leaf pages its entries use.
func leavesUsed(t *testing.T, s *Store, name []byte) float64 {
	t.Helper()
	var fill float64
	s.View(func(tx *Tx) error {
		st := tx.b(name).(boltBucket).Stats()
		if st.LeafAlloc > 0 {
			fill = float64(st.LeafInuse) / float64(st.LeafAlloc)
		}
		return nil
	})
	return fill
}

// TestStageFillsLeaves checks that a stage's writes fill the leaves of
// the buckets they write: its batches (the messages, in runs
// of keys), the merge of its run (the hashed buckets, in key order), into
// empty buckets and into a bucket that held a tenth as many keys. The
// same writes in ordinary transactions leave half of each leaf empty.
// FilledGrowth counts the growth of the stage's transactions only.
func TestStageFillsLeaves(t *testing.T) {
	const batches, perBatch = 40, 250
	key := func(b, i int) string { return fmt.Sprintf("key-%03d-%04d", b, i) }
	val := make([]byte, 120)
	for i := range val {
		val[i] = byte('a' + i%26)
	}
	write := func(t *testing.T, s *Store, run *StageRun) {
		t.Helper()
		for b := range batches {
			err := s.Update(func(tx *Tx) error {
				if run != nil {
					tx.UseStageRun(run)
				}
				for i := range perBatch {
					if err := tx.put(bMsgs, []byte(key(b, i)), val); err != nil {
						return err
					}
					if err := tx.put(bMsgIDs, []byte(key(b, i)), val); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if run == nil {
			return
		}
		for done := false; !done; {
			if err := s.Update(func(tx *Tx) (err error) { done, err = tx.MergeStageRun(run, 0); return err }); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name   string
		staged bool
		before bool // msgids holds every tenth key before the writes
		min    float64
		max    float64
	}{
		{"ordinary transactions", false, false, 0, 0.6},
		{"a stage", true, false, 0.9, 1},
		// Each leaf that held keys ends in a part-filled page.
		{"a stage into a bucket that held keys", true, true, 0.8, 1},
	}
	for _, tt := range tests {
		for _, mode := range runModes {
			t.Run(tt.name+"/"+mode.name, func(t *testing.T) {
				s := openTest(t)
				if tt.before {
					err := s.Update(func(tx *Tx) error {
						for b := range batches {
							for i := 0; i < perBatch; i += 10 {
								if err := tx.put(bMsgIDs, []byte(key(b, i)+"-old"), val); err != nil {
									return err
								}
							}
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				var run *StageRun
				if tt.staged {
					var info *StageInfo
					if err := s.Update(func(tx *Tx) (err error) { info, err = tx.BeginStage("/src", "d"); return err }); err != nil {
						t.Fatal(err)
					}
					run = mode.new(t, s, info)
					defer run.Remove()
				}
				size0, _, err := s.DataSize()
				if err != nil {
					t.Fatal(err)
				}
				filled0 := s.FilledGrowth()
				write(t, s, run)
				size1, _, err := s.DataSize()
				if err != nil {
					t.Fatal(err)
				}
				filled := s.FilledGrowth() - filled0
				for _, b := range [][]byte{bMsgs, bMsgIDs} {
					f := leavesUsed(t, s, b)
					t.Logf("%s: leaves %.0f%% used", b, 100*f)
					if f < tt.min || f > tt.max {
						t.Errorf("%s: leaves %.0f%% used, want %.0f%% to %.0f%%", b, 100*f, 100*tt.min, 100*tt.max)
					}
				}
				switch {
				case !tt.staged && filled != 0:
					t.Errorf("ordinary transactions counted %d bytes of filled growth, want 0", filled)
				case tt.staged && (filled <= 0 || filled > size1-size0):
					t.Errorf("the stage counted %d bytes of filled growth; the store grew by %d", filled, size1-size0)
				}
			})
		}
	}
}
