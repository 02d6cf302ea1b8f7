//go:build unix

package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestExportToPipe: -o naming a pipe (or a device such as /dev/null)
// writes into it; renaming the export over it, as for a file, would
// replace it with a regular file.
func TestExportToPipe(t *testing.T) {
	home := ingested(t)
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if _, errs, code := cli(t, home, "export", "-o", fifo); code != 0 || !strings.Contains(errs, "exported ") {
		t.Fatalf("export -o FIFO: code %d: %s", code, errs)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err) // (its reader waits for ever)
	}
	want, _, _ := cli(t, home, "export")
	if data := <-got; data != want || data == "" {
		t.Errorf("the pipe got %d bytes, stdout %d", len(data), len(want))
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(fifo), ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, errs, code := cli(t, home, "export", "-o", t.TempDir()); code != exitUsage || !strings.Contains(errs, "folder") {
		t.Errorf("export -o FOLDER: code %d: %s", code, errs)
	}
}
