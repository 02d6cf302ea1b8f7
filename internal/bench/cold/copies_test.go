package cold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteCopies(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "1.messages.jsonl")
	in := `{"session":"s1","time":"2024-03-15T09:00:00Z","role":"user","text":"hi","ref":"r0"}

{"session":"s1","time":"2024-03-15T09:01:00+08:00","role":"assistant","text":"hello","ref":"r1"}
`
	if err := os.WriteFile(src, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := WriteCopies([]string{src}, dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file int
		want []string
	}{
		{0, []string{
			`{"ref":"r0","role":"user","session":"s1","text":"hi","time":"2024-03-15T09:00:00Z"}`,
			`{"ref":"r1","role":"assistant","session":"s1","text":"hello","time":"2024-03-15T09:01:00+08:00"}`,
		}},
		{1, []string{
			`{"ref":"r0~1","role":"user","session":"s1~1","text":"hi","time":"2025-03-14T09:00:00Z"}`,
			`{"ref":"r1~1","role":"assistant","session":"s1~1","text":"hello","time":"2025-03-14T09:01:00+08:00"}`,
		}},
		{2, []string{
			`{"ref":"r0~2","role":"user","session":"s1~2","text":"hi","time":"2026-03-13T09:00:00Z"}`,
			`{"ref":"r1~2","role":"assistant","session":"s1~2","text":"hello","time":"2026-03-13T09:01:00+08:00"}`,
		}},
	}
	if len(out) != len(tests) {
		t.Fatalf("wrote %d files, want %d", len(out), len(tests))
	}
	for _, tt := range tests {
		data, err := os.ReadFile(out[tt.file])
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(strings.TrimSpace(string(data)), "\n"); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("copy %d:\n%s\nwant\n%s", tt.file, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"session\":\"s\"}\nnot json\n"), 0o600)
	if _, err := WriteCopies([]string{bad}, dir, 2); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("a bad line: error %v, want one naming bad.jsonl:2", err)
	}
	if _, err := WriteCopies([]string{src}, dir, 0); err == nil {
		t.Error("0 copies: no error")
	}
}
