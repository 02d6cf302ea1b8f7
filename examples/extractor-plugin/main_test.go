package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeywords(t *testing.T) {
	for _, tc := range []struct {
		text       string
		n          int
		top, names []string
	}{
		{"Alice wants Kyoto. Kyoto in May, and Kyoto temples with Bob.", 3,
			[]string{"kyoto", "alice", "wants"}, []string{"Alice", "Kyoto", "Bob"}},
		{"the and for", 5, nil, nil},
		{"CUDA out of memory: lower the batch size, memory is tight", 2,
			[]string{"memory", "cuda"}, []string{"CUDA"}},
	} {
		top, names := Keywords(tc.text, tc.n)
		if d := cmp.Diff(tc.top, top); d != "" {
			t.Errorf("Keywords(%q) top (-want +got):\n%s", tc.text, d)
		}
		if d := cmp.Diff(tc.names, names); d != "" {
			t.Errorf("Keywords(%q) names (-want +got):\n%s", tc.text, d)
		}
	}
}

// TestPlugin builds this example and huimem, configures the example as an
// extractor as README.md says, ingests a conversation with huimem, and
// finds the example's memories in `huimem recall --json`.
func TestPlugin(t *testing.T) {
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator),
		"github.com/huimemory/huimemory/cmd/huimem", "github.com/huimemory/huimemory/examples/extractor-plugin")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	huimem := filepath.Join(bin, "huimem")
	plugin := filepath.Join(bin, "extractor-plugin")

	home := t.TempDir()
	config := fmt.Sprintf("extractors:\n  - name: keywords\n    command: %s\n    options: {max: \"3\"}\n", plugin)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	conv := filepath.Join(t.TempDir(), "kyoto.jsonl")
	if err := os.WriteFile(conv, []byte(
		`{"session":"kyoto","time":"2026-03-05T10:00:00+08:00","role":"user","speaker":"Alice","text":"Plan the Kyoto trip: Kyoto temples in May, Kyoto food."}`+"\n"+
			`{"session":"kyoto","time":"2026-03-05T10:01:00+08:00","role":"assistant","text":"Kyoto in May: Fushimi Inari temples early, then Nishiki market food."}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(huimem, append([]string{"--home", home}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("huimem %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return string(out)
	}

	if out := run("plugins"); !strings.Contains(out, "keywords") || !strings.Contains(out, "v0.1.0") {
		t.Errorf("huimem plugins does not list the keywords plugin at v0.1.0:\n%s", out)
	}
	run("ingest", conv)
	var res struct {
		Results []struct {
			Session  string `json:"session"`
			Memories []struct {
				Type      string   `json:"type"`
				Topic     string   `json:"topic"`
				Entities  []string `json:"entities"`
				Facts     []string `json:"facts"`
				Extractor string   `json:"extractor"`
			} `json:"memories"`
		} `json:"results"`
	}
	out := run("recall", "--json", "Kyoto temples")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("recall --json: %v\n%s", err, out)
	}
	if len(res.Results) != 1 || len(res.Results[0].Memories) != 1 {
		t.Fatalf("recall --json = %s, want one hit with one memory", out)
	}
	m := res.Results[0].Memories[0]
	if m.Type != "keywords" || m.Extractor != "keywords" || m.Topic != "kyoto" || len(m.Facts) != 3 {
		t.Errorf("memory = %+v, want type keywords from the keywords extractor, topic kyoto, 3 facts", m)
	}
}
