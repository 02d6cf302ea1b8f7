package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// runRec is a record of a run file as a test writes and reads it.
type runRec struct {
	Key string
	Val string
	Del bool
}

// writeSegments writes segs as the segments of a new run file at path.
func writeSegments(t *testing.T, path string, segs [][]runRec) (*runFile, []*runSegment) {
	t.Helper()
	rf, err := createRunFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rf.f.Close() })
	var out []*runSegment
	for _, recs := range segs {
		enc := newSegEncoder(0)
		for _, r := range recs {
			var v []byte
			if !r.Del {
				v = []byte(r.Val)
			}
			enc.add([]byte(r.Key), v)
		}
		seg, err := rf.append(enc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, seg)
	}
	return rf, out
}

// testSegments are three segments; the second has more than one block.
func testSegments() [][]runRec {
	var big []runRec
	for i := 0; i < 3000; i++ {
		big = append(big, runRec{Key: fmt.Sprintf("\x02key-%05d", i), Val: strings.Repeat("v", i%40)})
	}
	big[7].Del, big[7].Val = true, ""
	return [][]runRec{
		{{Key: "\x01a", Val: "1"}, {Key: "\x01b", Del: true}, {Key: "\x03c", Val: ""}},
		big,
		{{Key: "\x05z", Val: "last"}},
	}
}

func walkAll(t *testing.T, path string, limit int) (recs []runRec, steps int) {
	t.Helper()
	var from int64
	for done := false; !done; steps++ {
		var err error
		from, done, err = walkRunFile(path, from, limit, func(k, v []byte) error {
			recs = append(recs, runRec{Key: string(k), Val: string(v), Del: v == nil})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return recs, steps
}

func TestRunFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huimem.db.run-1")
	segs := testSegments()
	rf, written := writeSegments(t, path, segs)
	if len(written[1].blocks) < 2 {
		t.Fatalf("the big segment has %d blocks, want several", len(written[1].blocks))
	}
	// Every record is found in its segment, and only there.
	for i, recs := range segs {
		for _, r := range recs {
			v, found, err := rf.get(written[i], []byte(r.Key))
			if err != nil || !found || (v == nil) != r.Del || string(v) != r.Val {
				t.Fatalf("segment %d: %q gives %q, %v, %v; want %q (deleted: %v)", i, r.Key, v, found, err, r.Val, r.Del)
			}
			other := written[(i+1)%len(written)]
			if _, found, _ := rf.get(other, []byte(r.Key)); found {
				t.Fatalf("%q found in a segment that does not hold it", r.Key)
			}
		}
		for _, probe := range []string{"", "\x00", "\x02key-00007x", "\xff"} {
			if _, found, _ := rf.get(written[i], []byte(probe)); found {
				t.Fatalf("segment %d holds %q", i, probe)
			}
		}
	}
	// A reader gives each segment's records in order.
	for i, seg := range written {
		sr := rf.reader(seg, uint64(i))
		var got []runRec
		for sr.next() {
			got = append(got, runRec{Key: string(sr.key), Val: string(sr.val), Del: sr.del})
			if sr.del {
				got[len(got)-1].Val = ""
			}
		}
		if sr.err != nil {
			t.Fatal(sr.err)
		}
		if diff := gocmp.Diff(segs[i], got); diff != "" {
			t.Errorf("segment %d read back differs (-want +got):\n%s", i, diff)
		}
	}
	// A walk gives them all, whole segments at a time.
	want := slices.Concat(segs...)
	for _, limit := range []int{1, 3, 4, 1 << 20} {
		got, steps := walkAll(t, path, limit)
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("limit %d: walk differs (-want +got):\n%s", limit, diff)
		}
		if wantSteps := map[int]int{1: 4, 3: 3, 4: 2, 1 << 20: 1}[limit]; steps != wantSteps {
			t.Errorf("limit %d: %d steps, want %d", limit, steps, wantSteps)
		}
	}
}

// TestRunFileTornTail checks that a walk stops at a segment a crash cut
// short or damaged: its batch never committed.
func TestRunFileTornTail(t *testing.T) {
	segs := testSegments()
	first := len(segs[0])
	for _, tc := range []struct {
		name string
		harm func(data []byte, second int) []byte
	}{
		{"cut in the header", func(d []byte, s int) []byte { return d[:s+5] }},
		{"cut in the records", func(d []byte, s int) []byte { return d[:s+runHeaderLen+100] }},
		{"a flipped byte", func(d []byte, s int) []byte { d[s+runHeaderLen+50] ^= 1; return d }},
		{"garbage after it", func(d []byte, s int) []byte { return append(d[:s], "not a segment at all"...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "huimem.db.run-1")
			_, written := writeSegments(t, path, segs)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			second := int(written[1].off) - runHeaderLen
			if err := os.WriteFile(path, tc.harm(data, second), 0o600); err != nil {
				t.Fatal(err)
			}
			got, _ := walkAll(t, path, 2)
			if diff := gocmp.Diff(segs[0], got); diff != "" {
				t.Errorf("walk differs from the first segment's %d records (-want +got):\n%s", first, diff)
			}
		})
	}
	// A missing file has nothing to walk.
	if got, _ := walkAll(t, filepath.Join(t.TempDir(), "none"), 2); len(got) != 0 {
		t.Errorf("a missing file walked %v", got)
	}
}

// TestRunFileReadErrorFailsTheBatch checks that a lookup that cannot read
// the run file fails the stage's next write, rather than being taken for
// a key the run does not hold.
func TestRunFileReadErrorFailsTheBatch(t *testing.T) {
	s := openTest(t)
	var info *StageInfo
	if err := s.Update(func(tx *Tx) (err error) { info, err = tx.BeginStage("/src", "d"); return err }); err != nil {
		t.Fatal(err)
	}
	run := homeRun(t, s, info)
	if err := s.Update(func(tx *Tx) error { tx.UseStageRun(run); return tx.put(bMsgIDs, []byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	run.file.f.Close() // reads now fail
	err := s.Update(func(tx *Tx) error {
		tx.UseStageRun(run)
		if v := tx.get(bMsgIDs, []byte("k")); v != nil {
			t.Errorf("read %q from a closed run", v)
		}
		return tx.put(bMsgIDs, []byte("k2"), []byte("v"))
	})
	if err == nil || !strings.Contains(err.Error(), "reading the stage's run") {
		t.Fatalf("the batch after a failed read: %v, want the read's error", err)
	}
	if err := s.Update(func(tx *Tx) (err error) { _, err = tx.MergeStageRun(run, 0); return err }); err == nil {
		t.Fatal("a run that could not be read merged")
	}
}

// TestRemoveRunFiles checks that the files of stages that are not open
// go, and an open stage's stays.
func TestRemoveRunFiles(t *testing.T) {
	s := openTest(t)
	var info *StageInfo
	if err := s.Update(func(tx *Tx) (err error) { info, err = tx.BeginStage("/src", "d"); return err }); err != nil {
		t.Fatal(err)
	}
	run := homeRun(t, s, info)
	defer run.Close()
	stale := runFilePrefix(s.Path()) + "999"
	// A run file, its key index, the index's next version and its
	// scratch file.
	leftovers := []string{stale, stale + runKeysSuffix, stale + runKeysSuffix + ".new", stale + runKeysSuffix + runKeysFreshSuffix}
	for _, path := range append(leftovers, run.keys.path, run.keys.path+runKeysFreshSuffix) {
		if err := os.WriteFile(path, []byte("left by a crash"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RemoveRunFiles(); err != nil {
		t.Fatal(err)
	}
	for _, path := range leftovers {
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", filepath.Base(path), err)
		}
	}
	for _, path := range []string{run.file.path, run.keys.path, run.keys.path + runKeysFreshSuffix} {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("the open stage's %s is gone: %v", filepath.Base(path), err)
		}
	}
	// A stage whose run file is still there is not published.
	err := s.Update(func(tx *Tx) error { _, err := tx.PublishStage(info, nil); return err })
	if err == nil || !strings.Contains(err.Error(), "not merged") {
		t.Errorf("publishing a stage with its run file: %v", err)
	}
}

// FuzzWalkRunFile checks that a walk of any file neither panics nor
// yields a record of a damaged segment, and that records written by the
// encoder are walked back as they were, followed by anything at all.
func FuzzWalkRunFile(f *testing.F) {
	f.Add([]byte("\x01a\x00\x02bb"), []byte{})
	f.Add([]byte("k1\x00k2\x00k3"), []byte("HRUN\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00abcde"))
	f.Fuzz(func(t *testing.T, keys, tail []byte) {
		var recs []runRec
		seen := map[string]bool{}
		for i, k := range bytes.Split(keys, []byte{0}) {
			if len(k) > 0 && !seen[string(k)] {
				seen[string(k)] = true
				recs = append(recs, runRec{Key: string(k), Val: strings.Repeat("x", i%5), Del: i%3 == 2})
			}
		}
		slices.SortFunc(recs, func(a, b runRec) int { return strings.Compare(a.Key, b.Key) })
		for i := range recs {
			if recs[i].Del {
				recs[i].Val = ""
			}
		}
		path := filepath.Join(t.TempDir(), "huimem.db.run-1")
		rf, _ := writeSegments(t, path, [][]runRec{recs})
		rf.f.Close()
		fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.Write(tail)
		fh.Close()
		var got []runRec
		_, _, err = walkRunFile(path, 0, 1<<30, func(k, v []byte) error {
			got = append(got, runRec{Key: string(k), Val: string(v), Del: v == nil})
			return nil
		})
		if err != nil {
			return // a damaged record inside a segment whose checksum matched the tail's
		}
		if len(got) < len(recs) {
			t.Fatalf("walked %d records, wrote %d", len(got), len(recs))
		}
		if diff := gocmp.Diff(recs, got[:len(recs)]); len(recs) > 0 && diff != "" {
			t.Fatalf("walk differs (-want +got):\n%s", diff)
		}
	})
}
