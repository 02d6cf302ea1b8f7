package store

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// benchRunKey is the i-th message key of BenchmarkStageRunLookup: a hash,
// as the run's buckets are keyed.
func benchRunKey(i int) []byte {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(i))
	k := sha256.Sum256(n[:])
	return k[:]
}

// BenchmarkStageRunLookup measures a stage's lookup in its run file, as
// each message of a bulk ingest makes several: of a key the
// run does not hold (nearly all of them: a new message, chunk or vector)
// and of one an old batch wrote, as the run grows by 2,000 records a
// batch. The memory the run keeps for its lookups (run-KiB) must not grow
// with it; past some 4 million records the key index's filter passes
// over fewer absent keys, and their lookups cost more.
func BenchmarkStageRunLookup(b *testing.B) {
	const perBatch = 2000
	for _, batches := range []int{32, 256, 2048} {
		s, err := Open(filepath.Join(b.TempDir(), FileName), time.Second)
		if err != nil {
			b.Fatal(err)
		}
		var info *StageInfo
		if err := s.Update(func(tx *Tx) (err error) { info, err = tx.BeginStage("/src", "d"); return err }); err != nil {
			b.Fatal(err)
		}
		run, err := s.NewStageRun(info)
		if err != nil {
			b.Fatal(err)
		}
		for batch := 0; batch < batches; batch++ {
			err := s.Update(func(tx *Tx) error {
				tx.UseStageRun(run)
				for i := batch * perBatch; i < (batch+1)*perBatch; i++ {
					if err := tx.put(bMsgIDs, benchRunKey(i), []byte("message key")); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		mem := runMemory(run)
		for _, held := range []bool{false, true} {
			name := fmt.Sprintf("records=%d/absent", batches*perBatch)
			if held {
				name = fmt.Sprintf("records=%d/held", batches*perBatch)
			}
			b.Run(name, func(b *testing.B) {
				err := s.View(func(tx *Tx) error {
					tx.UseStageRun(run)
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						k := benchRunKey(batches*perBatch + i) // never written
						if held {
							k = benchRunKey(i % perBatch) // the first batch's
						}
						if got := tx.get(bMsgIDs, k); (got != nil) != held {
							return fmt.Errorf("lookup %d: %q", i, got)
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if run.err != nil {
					b.Fatal(run.err)
				}
				b.ReportMetric(float64(mem)/1024, "run-KiB")
			})
		}
		run.Remove()
		s.Close()
	}
}

// runMemory is about how many bytes of memory run keeps for its lookups:
// its filters, its segments' block indexes, and its key index's blocks'
// first hashes and filter.
func runMemory(run *StageRun) int {
	n := 0
	for _, g := range run.groups {
		if g != nil {
			n += int(g.Cap() / 8)
		}
	}
	for _, b := range run.batches {
		if b.filter != nil {
			n += int(b.filter.Cap() / 8)
		}
		if b.seg != nil {
			for _, bl := range b.seg.blocks {
				n += len(bl.first) + 8
			}
		}
	}
	if run.keys != nil {
		n += 8*len(run.keys.firsts) + 8*len(run.keys.filter)
	}
	return n
}
