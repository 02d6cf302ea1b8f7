package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/huimemory/huimemory/internal/render"
)

// firstHit returns the id and first message text of the best hit of a
// recall.
func firstHit(t *testing.T, home, query string) (string, string) {
	t.Helper()
	out, errs, code := cli(t, home, "recall", "--json", "--top-k", "1", "--no-time", query)
	if code != 0 {
		t.Fatalf("recall: code %d: %s", code, errs)
	}
	var res render.JSONResults
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Results) == 0 {
		t.Fatalf("recall %q: %v\n%s", query, err, out)
	}
	return res.Results[0].ID, res.Results[0].Messages[0].Text
}

func TestForgetCommand(t *testing.T) {
	home := ingested(t)
	id, text := firstHit(t, home, "Kyoto temples")
	if !strings.Contains(text, "Kyoto") {
		t.Fatalf("the hit for Kyoto is %q", text)
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		out     string // in stdout
		errLine string // in the one line on stderr
	}{
		{"no selector", []string{"forget", "--yes"}, exitUsage, "", "exactly one of"},
		{"two selectors", []string{"forget", "--id", id, "--session", "s", "--yes"}, exitUsage, "", "exactly one of"},
		{"not confirmed, not a terminal", []string{"forget", "--id", id}, exitUsage, "", "pass --yes"},
		{"bad filter", []string{"forget", "--filter", "speaker = 'x' ANDD", "--yes"}, exitUsage, "", "filter"},
		{"unknown id", []string{"forget", "--id", "zzzzzz", "--yes"}, exitNotFound, "", "not found"},
		{"id in another namespace", []string{"forget", "--id", id, "-n", "other", "--yes"}, exitNotFound, "", "not found"},
		{"unknown session", []string{"forget", "--session", "nope", "--yes"}, exitNotFound, "", "not found"},
		{"dry run", []string{"forget", "--id", strings.ToUpper(id), "--dry-run"}, 0, "would forget 2 messages in 1 sessions (chunks " + id + ")", ""},
		{"nothing matches", []string{"forget", "--filter", "speaker = 'Nobody'", "--yes"}, 0, "nothing to forget", ""},
		{"forget", []string{"forget", "--id", id, "--yes"}, 0, "forgot 2 messages in 1 sessions (chunks " + id + ")", ""},
		{"forgotten", []string{"get", id}, exitNotFound, "", "not found"},
	}
	for _, tt := range tests {
		out, errs, code := cli(t, home, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errs, tt.errLine) {
			t.Errorf("%s: huimem %s = code %d, stdout %q, stderr %q; want code %d, %q in stdout, %q in stderr",
				tt.name, strings.Join(tt.args, " "), code, out, errs, tt.code, tt.out, tt.errLine)
		}
		if tt.code != 0 && strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%s: stderr is not one line: %q", tt.name, errs)
		}
	}
	if _, text := firstHit(t, home, "Kyoto temples"); strings.Contains(text, "Kyoto temples") {
		t.Errorf("after forgetting, recall still finds %q", text)
	}
	out, _, code := cli(t, home, "forget", "--session", "deploy-bug", "--yes", "--json")
	var res struct {
		Messages []struct{ Preview string } `json:"messages"`
		Removed  int                        `json:"sessions_removed"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Messages) == 0 || res.Removed != 1 {
		t.Errorf("forget --session --json: code %d, %s", code, out)
	}
}

func TestExportCommand(t *testing.T) {
	home := ingested(t)
	file := filepath.Join(t.TempDir(), "out.jsonl")
	if _, errs, code := cli(t, home, "export", "-o", file); code != 0 || !strings.Contains(errs, "exported ") {
		t.Fatalf("export -o: code %d: %s", code, errs)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, code := cli(t, home, "export")
	if code != 0 || stdout != string(data) {
		t.Fatalf("export to stdout (code %d) differs from export -o", code)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// A fresh home from the export answers with the same ids.
	fresh := t.TempDir()
	if _, errs, code := cli(t, fresh, "ingest", file); code != 0 {
		t.Fatalf("ingesting the export: code %d: %s", code, errs)
	}
	for _, q := range []string{"Kyoto temples", "AI 意识", "CUDA out of memory"} {
		a, _ := firstHit(t, home, q)
		b, _ := firstHit(t, fresh, q)
		if a != b {
			t.Errorf("recall %q: id %s in the original home, %s in the one made from its export", q, a, b)
		}
		ga, _, _ := cli(t, home, "get", "--json", "--context", "1", a)
		gb, _, _ := cli(t, fresh, "get", "--json", "--context", "1", b)
		if ga != gb {
			t.Errorf("get %s differs between the homes:\n%s\n%s", a, ga, gb)
		}
	}
	again, _, _ := cli(t, fresh, "export")
	if again != string(data) {
		t.Errorf("the export of the new home differs from the original export")
	}
	if _, errs, code := cli(t, home, "export", "-n", "a", "--all"); code != exitUsage || !strings.Contains(errs, "not both") {
		t.Errorf("export -n --all: code %d, %q", code, errs)
	}
}
