package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func put(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ingestJSON runs `ingest --json` and decodes the summary.
func ingestJSON(t *testing.T, home string, args ...string) (ingestSummary, string, int) {
	t.Helper()
	out, errs, code := cli(t, home, append([]string{"ingest", "--json"}, args...)...)
	var s ingestSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("bad JSON summary %v:\n%s\nstderr: %s", err, out, errs)
	}
	return s, errs, code
}

func statuses(s ingestSummary, root string) map[string]string {
	out := map[string]string{}
	for _, f := range s.Files {
		rel, _ := filepath.Rel(root, f.Path)
		out[filepath.ToSlash(rel)] = f.Status
	}
	return out
}

func messagesIn(t *testing.T, home string) int {
	t.Helper()
	out, _, _ := cli(t, home, "stats", "--json")
	var s struct{ Messages int }
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("stats: %v: %s", err, out)
	}
	return s.Messages
}

func TestIngestFolder(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	good := `{"session":"s1","time":"2026-11-16T09:00:00Z","role":"user","text":"which port?"}
{"session":"s1","time":"2026-11-16T09:00:05Z","role":"assistant","text":"8443"}
`
	put(t, filepath.Join(dir, "a.jsonl"), good)
	put(t, filepath.Join(dir, "notes", "bread.txt"), "> which flour?\nT65 from Dijon\n")
	put(t, filepath.Join(dir, "README.md"), "# My exports\n\nNothing to see.\n")
	put(t, filepath.Join(dir, "users.json"), `[{"id":"U1","name":"ann"}]`)
	put(t, filepath.Join(dir, "bad.jsonl"), good[:60])
	put(t, filepath.Join(dir, "photo.png"), "\x89PNG")
	put(t, filepath.Join(dir, ".gitignore"), "private/\n*.bak.jsonl\n")
	put(t, filepath.Join(dir, "private", "secret.jsonl"), good)
	put(t, filepath.Join(dir, "old.bak.jsonl"), good)
	put(t, filepath.Join(dir, "notes", ".gitignore"), "draft.txt\n")
	put(t, filepath.Join(dir, "notes", "draft.txt"), "User: hi\nAssistant: hello\n")
	put(t, filepath.Join(dir, ".git", "x.jsonl"), good)
	put(t, filepath.Join(dir, "slack", "users.json"), `[{"id":"U1","name":"ann","profile":{"display_name":"Ann"}}]`)
	put(t, filepath.Join(dir, "slack", "general", "2026-11-19.json"), `[{"type":"message","user":"U1","text":"deploy done","ts":"1763517720.000100"}]`)

	s, errs, code := ingestJSON(t, home, dir)
	if code != exitUsage {
		t.Errorf("exit code %d with a bad file, want %d", code, exitUsage)
	}
	if !strings.Contains(errs, "huimem: "+filepath.Join(dir, "bad.jsonl")+":1: invalid JSON") ||
		!strings.Contains(errs, "huimem: 1 of 5 files failed and were not ingested\n") {
		t.Errorf("stderr %q, want the bad file's error and the count, one line each", errs)
	}
	want := map[string]string{"a.jsonl": "new", "bad.jsonl": "failed", "notes/bread.txt": "new", "README.md": "ignored",
		"slack/general/2026-11-19.json": "new"}
	if diff := cmp.Diff(want, statuses(s, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if s.New != 3 || s.Failed != 1 || s.Ignored != 1 || s.Messages != 5 || s.Chunks == 0 {
		t.Errorf("summary %+v", s)
	}
	if got := messagesIn(t, home); got != 5 {
		t.Errorf("%d messages stored, want 5", got)
	}

	// Fixed and re-run: only the fixed file is read.
	put(t, filepath.Join(dir, "bad.jsonl"), strings.ReplaceAll(good, "s1", "s2"))
	s, errs, code = ingestJSON(t, home, dir)
	if code != 0 || s.New != 1 || s.Unchanged != 3 || s.Failed != 0 {
		t.Errorf("second run: code %d, %+v, stderr %q", code, s, errs)
	}

	// Changed: replaced, not added beside.
	put(t, filepath.Join(dir, "a.jsonl"), strings.Replace(good, "8443", "9443", 1))
	s, _, code = ingestJSON(t, home, dir)
	if code != 0 || s.Changed != 1 || s.Added != 1 || s.Dropped != 1 {
		t.Errorf("after an edit: code %d, %+v", code, s)
	}
	if got := messagesIn(t, home); got != 7 {
		t.Errorf("%d messages stored after an edit, want 7", got)
	}

	// Deleted: reported, then pruned.
	if err := os.Remove(filepath.Join(dir, "notes", "bread.txt")); err != nil {
		t.Fatal(err)
	}
	out, _, code := cli(t, home, "ingest", dir)
	if code != 0 || !strings.Contains(out, "bread.txt: deleted; its messages stay until you ingest with --prune") ||
		!strings.Contains(out, "files: 0 new, 0 changed, 3 skipped (unchanged), 0 failed, 1 ignored, 1 deleted (0 pruned)") {
		t.Errorf("deleted file: code %d\n%s", code, out)
	}
	if got := messagesIn(t, home); got != 7 {
		t.Errorf("%d messages after a deletion without --prune, want 7", got)
	}
	s, _, code = ingestJSON(t, home, "--prune", dir)
	if code != 0 || s.Pruned != 1 || s.Dropped != 2 {
		t.Errorf("--prune: code %d, %+v", code, s)
	}
	if got := messagesIn(t, home); got != 5 {
		t.Errorf("%d messages after --prune, want 5", got)
	}
}

func TestIngestFormatsAndErrors(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	put(t, notes, "just some notes\n")
	_, errs, code := cli(t, home, "ingest", notes)
	if code != exitUsage || !strings.Contains(errs, notes+": unknown format") ||
		!strings.Contains(errs, "chatgpt, claude, claude-code, codex, slack, markdown, text, jsonl") {
		t.Errorf("unknown format: code %d, stderr %q", code, errs)
	}
	_, errs, code = cli(t, home, "ingest", "--format", "whatsapp", notes)
	if code != exitUsage || !strings.Contains(errs, `unknown format "whatsapp": supported formats are chatgpt`) {
		t.Errorf("bad --format: code %d, stderr %q", code, errs)
	}
	// --format text reads it as a transcript: one system message.
	out, errs, code := cli(t, home, "ingest", "--format", "text", notes)
	if code != 0 || !strings.Contains(out, "new (text), 1 messages") {
		t.Errorf("--format text: code %d, %q %q", code, out, errs)
	}
	// Each fixture of core/formats is detected and ingested.
	fixtures := filepath.Join("..", "..", "core", "formats", "testdata")
	s, errs, code := ingestJSON(t, home, "-q", fixtures)
	if code != 0 || s.Failed != 0 {
		t.Fatalf("fixtures: code %d, %+v, stderr %q", code, s, errs)
	}
	var formats []string
	for _, f := range s.Files {
		if f.Format != "" && !slices.Contains(formats, f.Format) {
			formats = append(formats, f.Format)
		}
	}
	slices.Sort(formats)
	if diff := cmp.Diff([]string{"chatgpt", "claude", "claude-code", "codex", "jsonl", "markdown", "slack", "text"}, formats); diff != "" {
		t.Errorf("formats seen (-want +got):\n%s", diff)
	}
	// stderr is not a terminal here: no progress bar, only notices.
	for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
		if line != "" && !strings.HasPrefix(line, "huimem: created a new HuiMemory home") {
			t.Errorf("stderr line %q, want no progress output", line)
		}
	}
}
