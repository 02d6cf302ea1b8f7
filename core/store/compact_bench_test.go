package store

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCompactHome compacts a copy of the store file named by
// HUIMEM_BENCH_STORE (such as a home kept by `huimem bench cold --keep`)
// and reports the vectors' layout before and after. Skipped without it.
func BenchmarkCompactHome(b *testing.B) {
	src := os.Getenv("HUIMEM_BENCH_STORE")
	if src == "" {
		b.Skip("HUIMEM_BENCH_STORE names no store file to compact")
	}
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), FileName)
		copyFile(b, src, path)
		s, err := Open(path, time.Second)
		if err != nil {
			b.Fatal(err)
		}
		before, err := s.VectorLayout()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := s.CompactWith(b.Context(), CompactOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		after, err := s.VectorLayout()
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("file %d -> %d bytes; vectors before %+v (scatter %.2f), after %+v (scatter %.2f)",
			st.Before, st.After, before, before.Scatter(), after, after.Scatter())
		s.Close()
		b.StartTimer()
	}
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
