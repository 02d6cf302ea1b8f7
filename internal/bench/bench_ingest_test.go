package bench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBenchIngestDir runs `bench ingest` as a user does, keeping its files
// in a --dir that does not exist yet: the folder is made, and every
// export is ingested whole.
func TestBenchIngestDir(t *testing.T) {
	if testing.Short() {
		t.Skip("builds huimem and starts ingests")
	}
	dir := filepath.Join(t.TempDir(), "not", "yet")
	c := exec.Command(benchBin, "ingest", "--mb", "0.05", "--formats", "jsonl,chatgpt", "--dir", dir, "--keep", "--json")
	c.Env = append(os.Environ(), "HUIMEM_EMBEDDING_NAME=hash")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("ingest: %v", err)
	}
	var runs []struct {
		Format   string `json:"format"`
		Messages int    `json:"messages"`
		PeakRSS  int64  `json:"peak_rss_bytes"`
		PeakAnon int64  `json:"peak_anon_bytes"`
	}
	if err := json.Unmarshal(out, &runs); err != nil {
		t.Fatalf("ingest --json: %v\n%s", err, out)
	}
	if len(runs) != 2 {
		t.Fatalf("ingest gave %s, want two runs", out)
	}
	for _, r := range runs {
		if r.Messages == 0 {
			t.Errorf("%s: no messages ingested: %s", r.Format, out)
		}
		// The anonymous part is sampled while the process runs, so it
		// is there and never more than the whole.
		if runtime.GOOS == "linux" && (r.PeakAnon <= 0 || r.PeakAnon > r.PeakRSS) {
			t.Errorf("%s: peak anonymous memory %d bytes of a peak RSS of %d", r.Format, r.PeakAnon, r.PeakRSS)
		}
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) == 0 {
		t.Errorf("--keep left nothing in %s: %v", dir, err)
	}
}

// TestBenchIngestLayouts runs `bench ingest --layout file,folder`: the
// same messages as one file and as a folder of one file per session,
// each ingested whole, and the folder's row followed by its ratio to the
// file's.
func TestBenchIngestLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds huimem and starts ingests")
	}
	run := func(args ...string) []byte {
		t.Helper()
		c := exec.Command(benchBin, append([]string{"ingest", "--mb", "0.1", "--formats", "jsonl", "--layout", "file,folder", "--dir", t.TempDir()}, args...)...)
		c.Env = append(os.Environ(), "HUIMEM_EMBEDDING_NAME=hash")
		out, err := c.Output()
		if err != nil {
			t.Fatalf("ingest %v: %v\n%s", args, err, out)
		}
		return out
	}
	var runs []struct {
		Layout   string `json:"layout"`
		Files    int    `json:"files"`
		Messages int    `json:"messages"`
		Bytes    int64  `json:"bytes"`
	}
	out := run("--json")
	if err := json.Unmarshal(out, &runs); err != nil {
		t.Fatalf("ingest --json: %v\n%s", err, out)
	}
	if len(runs) != 2 || runs[0].Layout != "file" || runs[1].Layout != "folder" {
		t.Fatalf("ingest gave %s, want a file run and a folder run", out)
	}
	file, folder := runs[0], runs[1]
	if file.Files != 1 || folder.Files < 2 || file.Messages == 0 || folder.Messages != file.Messages {
		t.Errorf("file %+v, folder %+v: want the same messages, in one file and in several", file, folder)
	}
	if text := string(run()); !strings.Contains(text, "| jsonl | folder ÷ file |") {
		t.Errorf("no ratio row in the table:\n%s", text)
	}
	c := exec.Command(benchBin, "ingest", "--layout", "tree")
	if out, err := c.CombinedOutput(); err == nil || !strings.Contains(string(out), "want file, folder or both") {
		t.Errorf("--layout tree: %v\n%s", err, out)
	}
}
