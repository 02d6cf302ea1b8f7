package store

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// foldSegments appends each group of segments to run file rf, folding
// each group's records into index k as a stage run does, and returns
// what a lookup of each key must find: its newest record.
func foldSegments(t *testing.T, rf *runFile, k *runKeys, groups [][][]runRec) map[string]runRec {
	t.Helper()
	want := map[string]runRec{}
	for _, segs := range groups {
		for _, recs := range segs {
			var fresh []runKeyEntry
			sort.Slice(recs, func(i, j int) bool { return recs[i].Key < recs[j].Key })
			enc := newSegEncoder(0)
			for _, r := range recs {
				var v []byte
				if !r.Del {
					v = []byte(r.Val)
				}
				off := enc.add([]byte(r.Key), v)
				fresh = append(fresh, runKeyEntry{k.hash([]byte(r.Key)), uint64(off)})
				want[r.Key] = r
			}
			start := uint64(rf.size)
			if _, err := rf.append(enc); err != nil {
				t.Fatal(err)
			}
			for i := range fresh {
				fresh[i].off += start
			}
			if err := k.add(fresh); err != nil {
				t.Fatal(err)
			}
		}
		if err := k.fold(); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// TestRunKeys checks lookups in a run file's key index: the newest
// record of a key wins across segments and folds, deletions are found as
// such, values longer than a lookup's first read come back whole, and a
// key never written is not found.
func TestRunKeys(t *testing.T) {
	long := strings.Repeat("L", 3*runRecordRead+7)
	seg := func(prefix string, n, valLen int) []runRec {
		var recs []runRec
		for i := 0; i < n; i++ {
			recs = append(recs, runRec{Key: fmt.Sprintf("%s%05d", prefix, i), Val: fmt.Sprintf("%s-%d-%s", prefix, i, strings.Repeat("v", i%valLen))})
		}
		return recs
	}
	cases := []struct {
		name   string
		groups [][][]runRec
	}{
		{"one record", [][][]runRec{{{{Key: "\x01a", Val: "1"}}}}},
		{"a deletion", [][][]runRec{{{{Key: "\x01a", Del: true}, {Key: "\x02b", Val: "2"}}}}},
		{"values past the first read", [][][]runRec{{{
			{Key: "\x02long", Val: long},
			{Key: "\x02edge", Val: strings.Repeat("e", runRecordRead-len("\x02edge")-2)},
			{Key: "\x02over", Val: strings.Repeat("o", runRecordRead-len("\x02over")-1)},
		}}}},
		{"several blocks and folds", [][][]runRec{
			{seg("\x01k", 900, 40), seg("\x03m", 300, 900)},
			{seg("\x02c", 700, 3), append(seg("\x01k", 50, 7), runRec{Key: "\x03m00007", Del: true})},
			{{{Key: "\x01k00001", Val: long}, {Key: "\x03m00007", Val: "back"}, {Key: "\x02c00002", Del: true}}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rf, err := createRunFile(filepath.Join(dir, "run"))
			if err != nil {
				t.Fatal(err)
			}
			defer rf.close()
			k := newRunKeys(rf.path + runKeysSuffix)
			defer k.remove()
			want := foldSegments(t, rf, k, tc.groups)
			if k.n != int64(countRecs(tc.groups)) {
				t.Errorf("the index holds %d entries, want %d", k.n, countRecs(tc.groups))
			}
			for key, rec := range want {
				got, found, err := k.get(rf, k.hash([]byte(key)), []byte(key))
				switch {
				case err != nil:
					t.Fatalf("%q: %v", key, err)
				case !found:
					t.Errorf("%q is not found", key)
				case rec.Del && got != nil:
					t.Errorf("%q reads %q, want its deletion", key, got)
				case !rec.Del && string(got) != rec.Val:
					t.Errorf("%q reads %d bytes %.20q, want %d bytes %.20q", key, len(got), got, len(rec.Val), rec.Val)
				}
			}
			for _, key := range []string{"\x01", "\x01k99999", "\x04none", "\xff"} {
				if got, found, err := k.get(rf, k.hash([]byte(key)), []byte(key)); err != nil || found {
					t.Errorf("%q, never written: %q, %v, %v", key, got, found, err)
				}
			}
			// The filter passes keys never written over, without a read
			// of the index: all but a few in so few records.
			passed := 0
			for i := range 10000 {
				if !k.mayHold(k.hash(fmt.Appendf(nil, "\x04absent%d", i))) {
					passed++
				}
			}
			if passed < 9900 {
				t.Errorf("the filter passes over %d of 10,000 keys never written, want nearly all", passed)
			}
		})
	}
}

func countRecs(groups [][][]runRec) int {
	n := 0
	for _, segs := range groups {
		for _, recs := range segs {
			n += len(recs)
		}
	}
	return n
}

// TestRunKeysCollisions checks that records whose keys share a hash are
// told apart by their keys, newest first, and that an index that points
// past the end of the run is an error, not a record.
func TestRunKeysCollisions(t *testing.T) {
	dir := t.TempDir()
	rf, err := createRunFile(filepath.Join(dir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer rf.close()
	enc := newSegEncoder(0)
	offA := enc.add([]byte("\x01a"), []byte("A"))
	offB := enc.add([]byte("\x01b"), []byte("B"))
	if _, err := rf.append(enc); err != nil {
		t.Fatal(err)
	}
	enc = newSegEncoder(0)
	offB2 := enc.add([]byte("\x01b"), nil)
	start := uint64(rf.size)
	if _, err := rf.append(enc); err != nil {
		t.Fatal(err)
	}
	k := newRunKeys(rf.path + runKeysSuffix)
	defer k.remove()
	// Every record under hash 7, and b written again (deleted) later.
	for _, entries := range [][]runKeyEntry{{{7, uint64(offA)}, {7, uint64(offB)}}, {{7, start + uint64(offB2)}}} {
		if err := k.add(entries); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.fold(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		key       string
		want      string
		found     bool
		wantError bool
	}{
		{"\x01a", "A", true, false},
		{"\x01b", "", true, false}, // the deletion is newer
		{"\x01c", "", false, false},
	}
	for _, tc := range cases {
		got, found, err := k.get(rf, 7, []byte(tc.key))
		if err != nil || found != tc.found || string(got) != tc.want || (tc.key == "\x01b" && got != nil) {
			t.Errorf("%q: %q, %v, %v; want %q, %v", tc.key, got, found, err, tc.want, tc.found)
		}
	}
	if err := k.add([]runKeyEntry{{9, uint64(rf.size) + 100}}); err != nil {
		t.Fatal(err)
	}
	if err := k.fold(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.get(rf, 9, []byte("\x01z")); err == nil || !strings.Contains(err.Error(), "past its end") {
		t.Errorf("an index entry past the end of the run: %v", err)
	}
}
