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
		if fields := strings.Fields(line); len(fields) >= 6 && strings.Contains(fields[0], "-") {
			in = strings.HasSuffix(fields[5], name)
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
	read := func() (sum float32) {
		s.View(func(tx *Tx) error {
			return tx.ScanVectors("n", at(0).Add(-1), at(n), func(_ []byte, _ int64, raw []byte) error {
				for _, f := range DecodeVector(nil, raw) {
					sum += f
				}
				return nil
			})
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
