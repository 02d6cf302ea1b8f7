package perf

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// TestWriteExportFolderHoldsTheSameMessages generates the same export as
// one file and as a folder of one file per session, in each format, and
// reads both back: the same messages, a session a file.
func TestWriteExportFolderHoldsTheSameMessages(t *testing.T) {
	for _, format := range ExportFormats {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			n, err := WriteExport(filepath.Join(dir, "export"), format, 300<<10, 1)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := formats.ReadFile(filepath.Join(dir, "export"), format, formats.Options{Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			folder := filepath.Join(dir, "folder")
			m, files, err := WriteExportFolder(folder, format, 300<<10, 1)
			if err != nil {
				t.Fatal(err)
			}
			if m != n {
				t.Fatalf("folder holds %d messages, the file %d", m, n)
			}
			ents, err := os.ReadDir(folder)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != files {
				t.Errorf("%d files in the folder, WriteExportFolder says %d", len(ents), files)
			}
			var got []core.Message
			for _, e := range ents {
				msgs, _, err := formats.ReadFile(filepath.Join(folder, e.Name()), format, formats.Options{Location: time.UTC})
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range msgs {
					if m.Session+filepath.Ext(e.Name()) != e.Name() {
						t.Fatalf("%s holds a message of session %s", e.Name(), m.Session)
					}
				}
				got = append(got, msgs...)
			}
			key := func(m core.Message) string { return m.Session + m.Time.String() + m.Text }
			if diff := cmp.Diff(sortedKeys(want, key), sortedKeys(got, key)); diff != "" {
				t.Errorf("messages (-file +folder):\n%.2000s", diff)
			}
		})
	}
}

func sortedKeys(msgs []core.Message, key func(core.Message) string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = key(m)
	}
	slices.Sort(out)
	return out
}
