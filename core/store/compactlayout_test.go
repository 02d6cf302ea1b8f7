package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/huimemory/huimemory/core"
)

// interleave writes n vectors in small transactions that also write
// messages, as a staged ingest does, so that the buckets' pages
// interleave in the file. It returns the messages' keys.
func interleave(t *testing.T, s *Store, n int) []core.MessageKey {
	t.Helper()
	var keys []core.MessageKey
	vec := make([]float32, 256)
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for i := 0; i < n; i += 20 {
		err := s.Update(func(tx *Tx) error {
			for j := i; j < min(i+20, n); j++ {
				vec[0], vec[1] = float32(j), 1
				tm := start.Add(time.Duration(j) * time.Minute)
				if err := tx.PutVector("", tm, fmt.Sprintf("c%06d", j), vec); err != nil {
					return err
				}
				m := core.Message{Session: fmt.Sprintf("s%d", j/100), Time: tm, Role: core.RoleUser,
					Text: fmt.Sprintf("message %d, with enough text to take some room in its bucket %0300d", j, j)}
				k := m.Key()
				if _, err := tx.AddMessage(&m, k, 1); err != nil {
					return err
				}
				keys = append(keys, k)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// After a compaction the vectors lie in one run of full leaves, and the
// store records its size for the next decision (see DataSize).
func TestCompactLaysVectorsOutInOneRun(t *testing.T) {
	s := openTest(t)
	const n = 3000
	keys := interleave(t, s, n)
	before, err := s.VectorLayout()
	if err != nil {
		t.Fatal(err)
	}
	if _, compacted, _ := s.DataSize(); compacted != 0 {
		t.Errorf("a store never compacted records a compacted size of %d", compacted)
	}
	if before.Keys != n || before.Scatter() < 1.5 {
		t.Fatalf("before: %+v (scatter %.2f): the writes did not interleave the buckets; the test proves nothing", before, before.Scatter())
	}
	if _, err := s.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	after, err := s.VectorLayout()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("before: %+v scatter %.2f; after: %+v scatter %.2f", before, before.Scatter(), after, after.Scatter())
	if after.Keys != n {
		t.Errorf("after: %d vectors, want %d", after.Keys, n)
	}
	// Full leaves: as many entries on each as fit (bbolt's page header and
	// element headers are 16 bytes each), three 256-dimension vectors on
	// a 4 KiB page.
	page := os.Getpagesize()
	entry := 16 + len(VecKey("", time.Now(), "c000000")) + 256*4
	perLeaf := (page - 16) / entry
	if want := (n + perLeaf - 1) / perLeaf; after.LeafBytes > int64(want*page) {
		t.Errorf("after: %d leaf pages, want %d (%d entries on each)", after.LeafBytes/int64(page), want, perLeaf)
	}
	// One window more than the least, as the run need not start on a
	// window, and 5% more: each commit of the copy (every compactTxBytes)
	// frees the pages of the right edge it rewrites, and the next one
	// reuses them.
	if most := after.MinWindows + after.MinWindows/20 + 1; after.Windows > most {
		t.Errorf("after: the vectors lie in %d windows of 64 KiB, want at most %d", after.Windows, most)
	}
	now, compacted, err := s.DataSize()
	if err != nil {
		t.Fatal(err)
	}
	if compacted <= 0 || compacted > now || now-compacted > 64<<10 {
		t.Errorf("DataSize after Compact = %d, compacted %d: want the compacted size recorded", now, compacted)
	}
	err = s.View(func(tx *Tx) error {
		for _, k := range keys {
			if !tx.HasMessage(k) {
				return fmt.Errorf("message %x is missing after the compaction", k)
			}
		}
		if v, _ := tx.Vector("c000042"); v == nil || v[0] != 42 {
			return fmt.Errorf("vector c000042 = %v after the compaction", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// killedEnv names the store a child process compacts, and killedStep the
// step of the compaction at which it stops and waits to be killed.
const (
	killedEnv  = "HUIMEM_TEST_COMPACT_STORE"
	killedStep = "HUIMEM_TEST_COMPACT_STEP"
)

// TestMain runs the child process of TestCompactKilled when the
// environment names a store, and the tests otherwise.
func TestMain(m *testing.M) {
	if path := os.Getenv(killedEnv); path != "" {
		compactChild(path, os.Getenv(killedStep))
	}
	os.Exit(m.Run())
}

// compactChild compacts the store at path and stops at step, waiting to
// be killed.
func compactChild(path, step string) {
	s, err := Open(path, 10*time.Second)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	compactHook = func(at string) {
		if at == step {
			fmt.Println("at", at)
			select {} // wait for the kill
		}
	}
	s.Compact(context.Background())
	fmt.Println("error: the compaction ended")
	os.Exit(1)
}

// A compaction killed (SIGKILL) at any step leaves a working store with
// everything it held, and the next open removes its leftover.
func TestCompactKilled(t *testing.T) {
	for _, step := range []string{"copied", "renamed"} {
		t.Run(step, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			s, err := Open(path, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			keys := interleave(t, s, 400)
			s.Close()

			cmd := exec.Command(os.Args[0], "-test.run", "^$")
			cmd.Env = append(os.Environ(), killedEnv+"="+path, killedStep+"="+step)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if strings.TrimSpace(line) != "at "+step {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q (%v), want %q", line, err, "at "+step)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()

			s, err = Open(path, time.Second)
			if err != nil {
				t.Fatalf("opening the store after a compaction killed when %s: %v", step, err)
			}
			defer s.Close()
			if _, err := os.Stat(path + compactSuffix); !os.IsNotExist(err) {
				t.Errorf("the killed compaction's copy is still there after Open: %v", err)
			}
			err = s.View(func(tx *Tx) error {
				for _, k := range keys {
					if !tx.HasMessage(k) {
						return fmt.Errorf("message %x is missing", k)
					}
				}
				if _, n := tx.Counts(); n != len(keys) {
					return fmt.Errorf("%d messages counted, want %d", n, len(keys))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			addMessages(t, s, "later", "written after the killed compaction", 2)
			if _, err := s.Compact(t.Context()); err != nil {
				t.Errorf("compacting again: %v", err)
			}
		})
	}
}

// checkCopy refuses a copy whose buckets or key counts differ from what
// was copied.
func TestCheckCopy(t *testing.T) {
	s := openTest(t)
	interleave(t, s, 40)
	var good map[string]int
	err := s.db.View(func(tx *bolt.Tx) error {
		good = map[string]int{}
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			good[string(name)] = b.Stats().KeyN
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	change := func(f func(m map[string]int)) map[string]int {
		m := maps.Clone(good)
		f(m)
		return m
	}
	for _, tt := range []struct {
		name   string
		counts map[string]int
		ok     bool
	}{
		{"same", good, true},
		{"a key more", change(func(m map[string]int) { m[string(bVecTime)]++ }), false},
		{"a bucket more", change(func(m map[string]int) { m["nothing"] = 0 }), false},
		{"a bucket less", change(func(m map[string]int) { delete(m, string(bMsgs)) }), false},
	} {
		if err := checkCopy(s.db, tt.counts); (err == nil) != tt.ok {
			t.Errorf("%s: checkCopy = %v, want ok: %v", tt.name, err, tt.ok)
		}
	}
}

// tempBolt returns a function that opens a bbolt file of the given name
// in a temporary folder of t's, closed when t ends.
func tempBolt(t *testing.T) func(name string) *bolt.DB {
	dir := t.TempDir()
	return func(name string) *bolt.DB {
		db, err := bolt.Open(filepath.Join(dir, name), 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
}

// copyBuckets keeps nested buckets, values and sequences, also when its
// transactions end in the middle of a nested bucket.
func TestCopyBucketsKeepsNestedBuckets(t *testing.T) {
	open := tempBolt(t)
	src, dst := open("src.db"), open("dst.db")
	want := map[string]string{}
	err := src.Update(func(tx *bolt.Tx) error {
		top, err := tx.CreateBucket([]byte("top"))
		if err != nil {
			return err
		}
		top.SetSequence(7)
		inner, err := top.CreateBucket([]byte("inner"))
		if err != nil {
			return err
		}
		inner.SetSequence(3)
		for i := range 50 {
			k, v := fmt.Sprintf("k%02d", i), fmt.Sprintf("value %d", i)
			if err := inner.Put([]byte(k), []byte(v)); err != nil {
				return err
			}
			want["top/inner/"+k] = v
			if err := top.Put([]byte("z"+k), []byte(v)); err != nil {
				return err
			}
			want["top/z"+k] = v
		}
		_, err = tx.CreateBucket([]byte("empty"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	counts, err := copyBuckets(dst, src, 64) // a commit every few keys
	if err != nil {
		t.Fatal(err)
	}
	if err := checkCopy(dst, counts); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var seqs [2]uint64
	err = dst.View(func(tx *bolt.Tx) error {
		top := tx.Bucket([]byte("top"))
		inner := top.Bucket([]byte("inner"))
		if tx.Bucket([]byte("empty")) == nil {
			return fmt.Errorf("the empty bucket is missing")
		}
		seqs = [2]uint64{top.Sequence(), inner.Sequence()}
		inner.ForEach(func(k, v []byte) error { got["top/inner/"+string(k)] = string(v); return nil })
		return top.ForEach(func(k, v []byte) error {
			if v != nil {
				got["top/"+string(k)] = string(v)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("copy differs (-want +got):\n%s", diff)
	}
	if seqs != [2]uint64{7, 3} {
		t.Errorf("sequences %v, want [7 3]", seqs)
	}
}

// TestSlabClone: each copy equals its source, owns its bytes (changing
// the source or appending to the copy changes no other copy), whatever
// its size against the slab's blocks.
func TestSlabClone(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
	}{
		{"empty", []int{0, 0}},
		{"small ones share a block", []int{1, 10, 100, 1000}},
		{"one fills the block", []int{slabBlock - 5, 10, 3}},
		{"larger than a block", []int{3, slabBlock + 1, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s slab
			var srcs, copies [][]byte
			for i, n := range tt.sizes {
				p := bytes.Repeat([]byte{byte('a' + i)}, n)
				c := s.clone(p)
				if !bytes.Equal(c, p) {
					t.Fatalf("copy %d differs from its source", i)
				}
				srcs, copies = append(srcs, bytes.Clone(p)), append(copies, c)
				for j := range p {
					p[j] = 0 // the source's page is let go
				}
				_ = append(c, 'x') // capped: must not write into the next copy
			}
			for i := range copies {
				if !bytes.Equal(copies[i], srcs[i]) {
					t.Errorf("copy %d changed after the later ones were made", i)
				}
			}
		})
	}
}

// TestCopyFillsLeavesAcrossCommits checks that a copy in many small
// transactions lays a bucket out in as many leaf pages as a copy in one:
// it commits only where bbolt ends a leaf (leafFill), for entries of any
// size, so no part-filled leaf is left behind a commit.
func TestCopyFillsLeavesAcrossCommits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value func(i int) int // the i-th value's length
	}{
		{"three to a page", func(int) int { return 1024 }},
		{"two to a page", func(int) int { return 1700 }},
		{"over half a page", func(int) int { return 2500 }},
		{"larger than a page", func(int) int { return 5000 }},
		{"small", func(int) int { return 40 }},
		{"mixed", func(i int) int { return 10 + (i*7919)%1900 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open := tempBolt(t)
			src := open("src.db")
			const n = 600
			err := src.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("b"))
				if err != nil {
					return err
				}
				for i := range n {
					if err := b.Put(fmt.Appendf(nil, "k%06d", i), bytes.Repeat([]byte{byte(i)}, tc.value(i))); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// leaves returns the bucket's leaves and the pages they take.
			leaves := func(db *bolt.DB) (nodes, pages int) {
				db.View(func(tx *bolt.Tx) error {
					st := tx.Bucket([]byte("b")).Stats()
					nodes, pages = st.LeafPageN, st.LeafPageN+st.LeafOverflowN
					return nil
				})
				return nodes, pages
			}
			whole, small := open("whole.db"), open("small.db")
			if _, err := copyBuckets(whole, src, 1<<40); err != nil {
				t.Fatal(err)
			}
			commits := 0
			copyHook = func() { commits++ }
			defer func() { copyHook = nil }()
			if _, err := copyBuckets(small, src, 1); err != nil {
				t.Fatal(err)
			}
			nodes, w := leaves(whole)
			if commits < nodes/2 {
				t.Fatalf("the small copy committed %d times, want a commit every leaf or so (%d leaves)", commits, nodes)
			}
			if _, s := leaves(small); s != w {
				t.Errorf("copied in %d transactions the bucket takes %d leaf pages, in one %d", commits, s, w)
			}
			err = small.View(func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte("b"))
				for i := range n {
					if v := b.Get(fmt.Appendf(nil, "k%06d", i)); len(v) != tc.value(i) {
						return fmt.Errorf("k%06d holds %d bytes, want %d", i, len(v), tc.value(i))
					}
				}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
}
