package store

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

// runOp is one write of a batch: a put of val, or a deletion when val is
// empty.
type runOp struct {
	bucket []byte
	key    string
	val    string
}

// runScript is a stage's batches: 70 of them, so that the run has three
// filter groups and a run file folds two of them into its key index
// (runkeys.go), with keys written again and deleted by later batches, in
// all five of the run's buckets.
func runScript() [][]runOp {
	buckets := [][]byte{bChunkKeys, bChunks, bMsgIDs, bMsgSrcs, bVecKeys}
	var script [][]runOp
	for b := 0; b < 70; b++ {
		var ops []runOp
		for i := 0; i < 25; i++ {
			bucket := buckets[(b+i)%len(buckets)]
			ops = append(ops, runOp{bucket, fmt.Sprintf("k%03d-%02d", (b*7+i*13)%300, i%3), fmt.Sprintf("v%d.%d", b, i)})
		}
		if b > 0 {
			// A key of an earlier batch, written again, and one deleted.
			prev := script[b-1]
			ops = append(ops, runOp{prev[0].bucket, prev[0].key, fmt.Sprintf("again%d", b)}, runOp{prev[1].bucket, prev[1].key, ""})
		}
		if b%10 == 3 {
			// A key that was in the bucket before the stage, deleted.
			ops = append(ops, runOp{bMsgIDs, "pre-1", ""})
		}
		script = append(script, ops)
	}
	return script
}

// runModes are the two homes of a run: a file beside a home's store, and
// the store's own buckets (behind a KV, and a version-6 store's).
var runModes = []struct {
	name string
	new  func(t *testing.T, s *Store, info *StageInfo) *StageRun
}{
	{"file", homeRun},
	{"buckets", func(_ *testing.T, _ *Store, info *StageInfo) *StageRun { return NewStageRun(info) }},
}

// homeRun is the run a home's ingest has: in a file.
func homeRun(t *testing.T, s *Store, info *StageInfo) *StageRun {
	t.Helper()
	r, err := s.NewStageRun(info)
	if err != nil {
		t.Fatal(err)
	}
	if r.file == nil {
		t.Fatal("a home's run has no file")
	}
	return r
}

// runLeft reports what is left of stage id's run: its buckets and its file.
func runLeft(t *testing.T, s *Store, id string) (names [][]byte, file bool) {
	t.Helper()
	s.View(func(tx *Tx) error { names, _ = tx.runNames(id); return nil })
	_, err := os.Stat(runFilePrefix(s.Path()) + id)
	return names, err == nil
}

// dumpBuckets returns the contents of the given buckets.
func dumpBuckets(t *testing.T, s *Store, names ...[]byte) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	err := s.View(func(tx *Tx) error {
		for _, name := range names {
			m := map[string]string{}
			if b := tx.b(name); b != nil {
				b.ForEach(func(k, v []byte) error { m[string(k)] = string(v); return nil })
			}
			out[string(name)] = m
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func applyOps(tx *Tx, ops []runOp) error {
	for _, op := range ops {
		var err error
		if op.val == "" {
			err = tx.del(op.bucket, []byte(op.key))
		} else {
			err = tx.put(op.bucket, []byte(op.key), []byte(op.val))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func TestStageRunMatchesDirectWrites(t *testing.T) {
	hashed := [][]byte{bChunkKeys, bChunks, bMsgIDs, bMsgSrcs, bVecKeys}
	pre := []runOp{{bMsgIDs, "pre-1", "old"}, {bMsgIDs, "pre-2", "old"}, {bChunks, "k000-00", "old"}}
	script := runScript()

	// The reference: every batch written straight into the buckets.
	ref := openTest(t)
	for _, ops := range append([][]runOp{pre}, script...) {
		if err := ref.Update(func(tx *Tx) error { return applyOps(tx, ops) }); err != nil {
			t.Fatal(err)
		}
	}
	want := dumpBuckets(t, ref, hashed...)

	for _, mode := range runModes {
		for _, limit := range []int{1, 30, 200, 0} {
			t.Run(fmt.Sprintf("%s/limit=%d", mode.name, limit), func(t *testing.T) {
				s := openTest(t)
				if err := s.Update(func(tx *Tx) error { return applyOps(tx, pre) }); err != nil {
					t.Fatal(err)
				}
				var info *StageInfo
				s.Update(func(tx *Tx) (err error) { info, err = tx.BeginStage("/src", "d"); return err })
				run := mode.new(t, s, info)
				for b, ops := range script {
					if err := s.Update(func(tx *Tx) error { tx.UseStageRun(run); return applyOps(tx, ops) }); err != nil {
						t.Fatal(err)
					}
					// The stage's reads see its own writes, the buckets see none.
					for _, op := range ops {
						var got, outside []byte
						s.View(func(tx *Tx) error {
							outside = tx.get(op.bucket, []byte(op.key))
							tx.UseStageRun(run)
							got = tx.get(op.bucket, []byte(op.key))
							return nil
						})
						if string(got) != op.val && !(op.val == "" && got == nil) {
							t.Fatalf("batch %d: %s %q reads %q in the stage, want %q", b, op.bucket, op.key, got, op.val)
						}
						if op.key != "pre-1" && op.key != "k000-00" && outside != nil {
							t.Fatalf("batch %d: %s %q is in the bucket before the merge", b, op.bucket, op.key)
						}
					}
				}
				if run.Records() == 0 {
					t.Fatal("the run holds no records")
				}
				// Every key the stage wrote, in whichever batch or group,
				// reads as the direct writes left it: the newest write
				// wins, a deletion reads nil.
				s.View(func(tx *Tx) error {
					tx.UseStageRun(run)
					for _, ops := range append([][]runOp{pre}, script...) {
						for _, op := range ops {
							got, want := tx.get(op.bucket, []byte(op.key)), want[string(op.bucket)][op.key]
							if string(got) != want || (want == "") != (got == nil) {
								t.Errorf("%s %q reads %q in the stage after every batch, want %q", op.bucket, op.key, got, want)
							}
						}
					}
					return nil
				})
				if run.err != nil {
					t.Fatal(run.err)
				}
				checkRunFolded(t, run, mode.name == "file")
				if got := dumpBuckets(t, s, bMsgIDs); len(got[string(bMsgIDs)]) != 2 {
					t.Errorf("msgids holds %v before the merge, want the two keys from before the stage", got)
				}
				steps := 0
				for done := false; !done; steps++ {
					err := s.Update(func(tx *Tx) (err error) { done, err = tx.MergeStageRun(run, limit); return err })
					if err != nil {
						t.Fatal(err)
					}
				}
				if limit == 1 && steps < run.merged {
					t.Errorf("%d merge steps for %d keys with a limit of 1", steps, run.merged)
				}
				if diff := gocmp.Diff(want, dumpBuckets(t, s, hashed...)); diff != "" {
					t.Errorf("buckets after the merge differ from direct writes (-want +got):\n%s", diff)
				}
				if err := run.Remove(); err != nil {
					t.Fatal(err)
				}
				if names, file := runLeft(t, s, info.ID); len(names) > 0 || file {
					t.Errorf("the run's buckets %q (and a file: %v) are still there after the merge", names, file)
				}
			})
		}
	}
}

// stageWithRun writes a stage of three sessions through a run, as an
// ingest's batches do: messages, claims, chunks with vectors, and one
// chunk cut again by a later batch. The second session's messages are
// claimed by a source other than the stage's, as the files of a grouped
// stage claim theirs (core/engine/sourcegroup.go).
func stageWithRun(t *testing.T, s *Store, newRun func(*testing.T, *Store, *StageInfo) *StageRun) (*StageInfo, *StageRun) {
	t.Helper()
	var info *StageInfo
	if err := s.Update(func(tx *Tx) (err error) { info, err = tx.BeginStage("/src", "d"); return err }); err != nil {
		t.Fatal(err)
	}
	run := newRun(t, s, info)
	var first []string // the first session's chunks
	for b := 0; b < 3; b++ {
		err := s.Update(func(tx *Tx) error {
			tx.UseStageRun(run)
			sess := fmt.Sprintf("s%d", b)
			var ids []string
			for i := 0; i < 4; i++ {
				tm := at(b*10 + i)
				m := &core.Message{Namespace: "n", Session: sess, Time: tm, Role: "user", Text: fmt.Sprintf("message %d of %s", i, sess)}
				if _, err := tx.AddStagedMessage(info, m, m.Key(), 1); err != nil {
					return err
				}
				src := "/src"
				if b == 1 {
					src = "/src-2"
				}
				if err := tx.ClaimMessage(src, m.Key()); err != nil {
					return err
				}
				var ck core.ChunkKey
				copy(ck[:], fmt.Sprintf("chunk-%s-%d-key-padding-pad", sess, i))
				id, err := tx.AllocID(ck)
				if err != nil {
					return err
				}
				c := &Chunk{ID: id, Key: ck, NS: "n", Session: sess, Time: tm.Format(time.RFC3339Nano)}
				if err := tx.PutStagedChunk(info.ID, c, []float32{float32(b), float32(i)}, tm); err != nil {
					return err
				}
				ids = append(ids, id)
			}
			if b == 2 {
				// The first batch's last chunk, cut again.
				c, err := tx.Chunk(first[3])
				if err != nil {
					return err
				}
				if err := tx.DeleteStagedChunk(info.ID, c); err != nil {
					return err
				}
				if err := tx.PutStagedSession(info.ID, &StagedSession{Session: Session{NS: "n", Session: "s0"}, IDs: first[:3]}); err != nil {
					return err
				}
			} else if b == 0 {
				first = ids
			}
			if err := tx.PutStagedSession(info.ID, &StagedSession{Session: Session{NS: "n", Session: sess}, IDs: ids}); err != nil {
				return err
			}
			return tx.SaveStage(info)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return info, run
}

func TestDiscardStageWithRun(t *testing.T) {
	all := [][]byte{bMsgs, bMsgIDs, bChunks, bChunkKeys, bSessChunks, bSessions, bVecTime, bVecKeys, bVecQ, bSrcMsgs, bMsgSrcs, bOutbox, bDirty}
	for _, mode := range runModes {
		for _, steps := range []int{0, 1, 2, 100} {
			t.Run(fmt.Sprintf("%s/merge-steps=%d", mode.name, steps), func(t *testing.T) {
				s := openTest(t)
				before := dumpBuckets(t, s, all...)
				info, run := stageWithRun(t, s, mode.new)
				// A crash or an error after some merge steps.
				for i := 0; i < steps; i++ {
					done := false
					if err := s.Update(func(tx *Tx) (err error) { done, err = tx.MergeStageRun(run, 40); return err }); err != nil {
						t.Fatal(err)
					}
					if done {
						break
					}
				}
				run.Close() // as a failed ingest does; a crash leaves the file as it is
				for done := false; !done; {
					if err := s.Update(func(tx *Tx) (err error) { done, err = tx.DiscardStage(info, 3); return err }); err != nil {
						t.Fatal(err)
					}
				}
				if diff := gocmp.Diff(before, dumpBuckets(t, s, all...)); diff != "" {
					t.Errorf("the store after discarding the stage differs (-before +after):\n%s", diff)
				}
				if names, file := runLeft(t, s, info.ID); len(names) > 0 || file {
					t.Errorf("the run's buckets %q (and a file: %v) survived the discard", names, file)
				}
			})
		}
	}
}

func TestPublishStageWithRun(t *testing.T) {
	for _, mode := range runModes {
		t.Run(mode.name, func(t *testing.T) { testPublishStageWithRun(t, mode.new) })
	}
}

func testPublishStageWithRun(t *testing.T, newRun func(*testing.T, *Store, *StageInfo) *StageRun) {
	s := openTest(t)
	info, run := stageWithRun(t, s, newRun)
	err := s.Update(func(tx *Tx) error {
		_, err := tx.PublishStage(info, nil)
		return err
	})
	if err == nil {
		t.Fatal("a stage whose run is not merged was published")
	}
	mergeRun(t, s, run)
	var n int
	if err := s.Update(func(tx *Tx) (err error) { n, err = tx.PublishStage(info, nil); return err }); err != nil {
		t.Fatal(err)
	}
	if n != 11 {
		t.Errorf("published %d chunks, want 11", n)
	}
	got := dumpBuckets(t, s, bChunks, bChunkKeys, bVecKeys, bMsgIDs, bMsgSrcs)
	for name, want := range map[string]int{"chunks": 11, "chunkkeys": 11, "veckeys": 11, "msgids": 12, "msgsrcs": 12} {
		if len(got[name]) != want {
			t.Errorf("%s holds %d keys after the publication, want %d", name, len(got[name]), want)
		}
	}
	// Every chunk is found again by its key, and its vector by its id.
	s.View(func(tx *Tx) error {
		for id, raw := range maps.All(got["chunks"]) {
			var c Chunk
			if err := json.Unmarshal([]byte(raw), &c); err != nil {
				t.Fatal(err)
			}
			if got, ok := tx.ChunkID(c.Key); !ok || got != id {
				t.Errorf("chunk key of %s gives %q, %v", id, got, ok)
			}
			if v, _ := tx.Vector(id); len(v) != 2 {
				t.Errorf("vector of %s: %v", id, v)
			}
		}
		return nil
	})
}

// checkRunFolded checks what a run keeps in memory: in a file, filters
// and block indexes for its newest group of batches alone, the older
// groups' keys being in its key index; in buckets, filters for every
// batch.
func checkRunFolded(t *testing.T, run *StageRun, file bool) {
	t.Helper()
	newest := (len(run.batches) - 1) / runGroupSpan * runGroupSpan
	if file && len(run.batches)%runGroupSpan == 0 {
		newest = len(run.batches)
	}
	if file && newest == 0 {
		t.Fatalf("a run of %d batches has no folded group to check", len(run.batches))
	}
	for i, b := range run.batches {
		folded := file && i < newest
		if (b.filter == nil) != folded || (b.seg != nil && (b.seg.blocks == nil) != folded) {
			t.Errorf("batch %d of %d: filter %v, blocks %v, want them only if it is in the newest group", i, len(run.batches), b.filter != nil, b.seg != nil && b.seg.blocks != nil)
		}
	}
	for g, f := range run.groups {
		if folded := file && g*runGroupSpan < newest; (f == nil) != folded {
			t.Errorf("group %d: filter %v, want one only if it is the newest", g, f != nil)
		}
	}
	if file {
		if run.keys.n+run.keys.pending() != int64(run.Records()) || (run.keys.pending() == 0) != (newest == len(run.batches)) {
			t.Errorf("the key index holds %d records and %d wait, of the run's %d", run.keys.n, run.keys.pending(), run.Records())
		}
		if _, err := os.Stat(run.keys.path); err != nil {
			t.Errorf("the run's key index: %v", err)
		}
	}
}
