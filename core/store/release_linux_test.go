package store

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mappedRSS returns how many KiB of the file named name this process has
// resident through its memory maps (/proc/self/smaps).
func mappedRSS(t *testing.T, name string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	kb, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// A mapping's header: "start-end perms offset dev inode [path]"
		// (an anonymous one has no path).
		if fields := strings.Fields(line); len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && strings.HasSuffix(fields[5], name)
			continue
		}
		if v, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			kb += n
		}
	}
	return kb
}

// TestReleaseMapped: after a full read the store's pages are resident in
// this process; ReleaseMapped drops them, and what is read afterwards is
// the same.
func TestReleaseMapped(t *testing.T) {
	s := openTest(t)
	const n = 4000
	putVectors(t, s, n)
	read := func() (sum float32) {
		s.View(func(tx *Tx) error {
			sum = sumVectors(tx, n)
			return nil
		})
		return sum
	}
	before := read()
	if before != n {
		t.Fatalf("read %v, want %d", before, n)
	}
	held := mappedRSS(t, FileName)
	if held < 1024 { // 4 MB of vectors were read through the map
		t.Fatalf("only %d KiB of the store is resident after reading it all", held)
	}
	s.ReleaseMapped()
	// What stays is past the transaction's size (the file is grown ahead
	// of its pages, and the kernel maps the large folio around the end).
	if after := mappedRSS(t, FileName); after > held/2 {
		t.Errorf("%d KiB of the store is still resident after ReleaseMapped (%d before)", after, held)
	}
	if again := read(); again != before {
		t.Errorf("read %v after ReleaseMapped, %v before", again, before)
	}
}

// TestWritableOpenReadsLittle: opening a store for writing reads its
// freelist from the file rather than rebuilding it by walking every page
// (bbolt's NoFreelistSync), which mapped the whole store into the process:
// a two-message ingest into a 100k-chunk home took 343 MiB.
func TestWritableOpenReadsLittle(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx *Tx) error {
		for i := range 4000 {
			if err := tx.PutVector("n", at(i), "v"+strconv.Itoa(i), make([]float32, 256)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(func(tx *Tx) error { return tx.PutVector("n", at(5000), "w", make([]float32, 256)) }); err != nil {
		t.Fatal(err)
	}
	if kb := mappedRSS(t, FileName); kb > int(fi.Size()/1024)/2 { // large folios map 2 MiB around a touch
		t.Errorf("opening a %d KiB store for writing mapped %d KiB of it", fi.Size()/1024, kb)
	}
}

// putVectors stores n 256-dimension vectors, each with one component 1:
// 4 MB that reads go through the map for.
func putVectors(t *testing.T, s *Store, n int) {
	t.Helper()
	err := s.Update(func(tx *Tx) error {
		for i := range n {
			v := make([]float32, 256)
			v[i%256] = 1
			if err := tx.PutVector("n", at(i), "v"+strconv.Itoa(i), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sumVectors reads the n vectors of putVectors and sums their components
// (n, read right).
func sumVectors(tx *Tx, n int) (sum float32) {
	tx.ScanVectors("n", at(0).Add(-1), at(n), func(_ []byte, _ int64, raw []byte) error {
		for _, f := range DecodeVector(nil, raw) {
			sum += f
		}
		return nil
	})
	return sum
}

// TestReleaseMappedBeside: ReleaseMapped called from another goroutine
// while a long read transaction runs (as a staged ingest does every
// 100 ms) lets go of what that transaction mapped before it ends, and the
// transaction reads the same values.
func TestReleaseMappedBeside(t *testing.T) {
	s := openTest(t)
	const n = 4000
	putVectors(t, s, n)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
				s.ReleaseMapped()
				time.Sleep(time.Millisecond)
			}
		}
	}()
	var sum float32
	var held, least int
	s.View(func(tx *Tx) error {
		sum = sumVectors(tx, n)
		// Still inside the transaction: what it mapped goes within a
		// few releases (polled, with a generous deadline).
		held, least = mappedRSS(t, FileName), -1
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if least = mappedRSS(t, FileName); least <= 1024 {
				break
			}
		}
		return nil
	})
	close(quit)
	<-done
	if sum != n {
		t.Fatalf("read %v with releases beside, want %d", sum, n)
	}
	if least > 1024 {
		t.Errorf("%d KiB of the store stayed resident inside the transaction with releases beside it (%d after the scan)", least, held)
	}
	if again := s.View(func(tx *Tx) error {
		if got := sumVectors(tx, n); got != n {
			t.Errorf("read %v after the releases, want %d", got, n)
		}
		return nil
	}); again != nil {
		t.Fatal(again)
	}
}
