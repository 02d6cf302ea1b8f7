package perf

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/formats"
)

// TestWriteExportReadsBack generates a small export in each format and
// reads it back with the format's normaliser.
func TestWriteExportReadsBack(t *testing.T) {
	for _, format := range ExportFormats {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "export-"+format)
			n, err := WriteExport(path, format, 300<<10, 1)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() < 300<<10 {
				t.Errorf("%d bytes, want at least %d", fi.Size(), 300<<10)
			}
			msgs, f, err := formats.ReadFile(path, "", formats.Options{Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			if f.Name != format || len(msgs) != n {
				t.Errorf("read %d messages as %s, want %d as %s", len(msgs), f.Name, n, format)
			}
			seen := map[core.MessageKey]bool{}
			for _, m := range msgs {
				k := m.Key()
				if seen[k] {
					t.Fatalf("message %q repeats", m.Text)
				}
				seen[k] = true
			}
		})
	}
}

func TestStatusKB(t *testing.T) {
	status := []byte("Name:\thuimem\nVmHWM:\t  204800 kB\nRssAnon:\t   98304 kB\nRssFile:\t  131072 kB\n")
	for _, c := range []struct {
		key  string
		want int64
	}{
		{"RssAnon:", 98304},
		{"RssFile:", 131072},
		{"VmHWM:", 204800},
		{"RssShmem:", 0}, // absent
		{"Name:", 0},     // not a number
	} {
		if got := statusKB(status, c.key); got != c.want {
			t.Errorf("statusKB(%q) = %d, want %d", c.key, got, c.want)
		}
	}
}
