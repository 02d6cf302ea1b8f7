package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/huimemory/huimemory/internal/gobuild"
)

var anchor = regexp.MustCompile(`^\[id:([0-9a-z]+) \| prev: ([0-9a-z]+|-) \| next: ([0-9a-z]+|-)\] `)

// bin is the example, built once by TestMain.
var bin string

func TestMain(m *testing.M) { gobuild.Main(m, ".", "quickstart", &bin) }

// TestQuickstart runs the example twice on one home as a real
// process from this folder, as its doc says, and checks what it prints.
func TestQuickstart(t *testing.T) {
	home := t.TempDir()
	run := func() []string {
		t.Helper()
		cmd := exec.Command(bin, "-home", home)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("quickstart: %v\nstderr: %s\nstdout: %s", err, stderr.String(), out)
		}
		if stderr.Len() != 0 {
			t.Errorf("stderr: %s", stderr.String())
		}
		return strings.Split(string(out), "\n")
	}

	lines := run()
	if lines[0] != "ingested 22 messages (22 new) into 11 chunks" {
		t.Errorf("ingest line %q", lines[0])
	}
	// recall: the ryokan turn, with a prev id...
	hit := anchor.FindStringSubmatch(strings.TrimPrefix(lines[1], "recall: "))
	if !strings.HasPrefix(lines[1], "recall: ") || hit == nil || hit[2] == "-" || !strings.HasSuffix(lines[1], "Book a ryokan near Gion for April 3 to April 7.") {
		t.Fatalf("recall line %q", lines[1])
	}
	// ...that recall_by_id follows to the turn before, whose next points back.
	prev := anchor.FindStringSubmatch(strings.TrimPrefix(lines[2], "prev:   "))
	if prev == nil || prev[1] != hit[2] || prev[3] != hit[1] || !strings.Contains(lines[2], "I prefer quiet temples") {
		t.Errorf("prev line %q does not link to recall line %q", lines[2], lines[1])
	}
	// The tool call's text, as an LLM reads it.
	out := strings.Join(lines[3:], "\n")
	for _, want := range []string{
		"tool recall_memory:\nFound 1 memory for \"Ollama 部署 决定\" (searched all of memory).\n\n[id:",
		"好，那我们决定先用 Ollama 部署，之后再评估 vLLM。",
		"call recall_by_id with its prev or next id",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tool output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "sessions")); err != nil {
		t.Errorf("the home holds no sessions: %v", err)
	}

	// A second run on the same home adds nothing and finds the same turns.
	again := run()
	if again[0] != "already ingested: conversation.jsonl" {
		t.Errorf("second ingest line %q", again[0])
	}
	if again[1] != lines[1] || again[2] != lines[2] {
		t.Errorf("second run differs:\n%s\n%s", again[1], again[2])
	}
}

// TestQuickstartBadFile checks that a missing conversation is one line on
// stderr and exit status 1.
func TestQuickstartBadFile(t *testing.T) {
	cmd := exec.Command(bin, "-home", t.TempDir(), "-file", filepath.Join(t.TempDir(), "missing.jsonl"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, stderr %s", err, stderr.String())
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "quickstart: reading ") || !strings.Contains(got, "missing.jsonl") || !strings.Contains(got, "no such file") {
		t.Errorf("stderr %q", got)
	}
}
