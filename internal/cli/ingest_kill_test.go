package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/internal/bench/synth"
	"github.com/huimemory/huimemory/internal/pgtest"
)

// TestIngestSurvivesKill9 kills a real `huimem ingest` of a large file
// with SIGKILL at several points, and checks each time that readers see
// the memory as it was before (or, if the ingest got to the end, as a
// clean ingest leaves it), never a part of the file; then it runs the
// ingest again and compares the memory with a clean ingest. It does so on
// a home and on the PostgreSQL backend, and on a home with the same
// messages as a folder of one file per session, whose files go in under
// one stage (core/engine/sourcegroup.go).
func TestIngestSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds huimem and ingests a few thousand messages several times")
	}
	bin := buildHuimem(t)
	t.Run("embedded", func(t *testing.T) { ingestKill9(t, bin, false, func(string) []string { return nil }) })
	t.Run("embedded folder", func(t *testing.T) { ingestKill9(t, bin, true, func(string) []string { return nil }) })
	t.Run("postgres", func(t *testing.T) {
		srv := pgtest.Start(t)
		dsns := map[string]string{}
		ingestKill9(t, bin, false, func(home string) []string {
			if dsns[home] == "" {
				dsns[home] = srv.CreateDB(t)
			}
			return []string{"HUIMEM_STORAGE_BACKEND=postgres", "HUIMEM_STORAGE_POSTGRES_DSN=" + dsns[home]}
		})
	})
}

// ingestKill9 is TestIngestSurvivesKill9 with env giving each home's
// extra environment (its database), ingesting the messages as one file
// or as a folder.
func ingestKill9(t *testing.T, bin string, folder bool, env func(home string) []string) {
	dir := t.TempDir()
	msgs := synth.Corpus(synth.Options{Seed: 3, Pairs: 2000, PerSession: 15})
	var buf bytes.Buffer
	sessions := map[string]*bytes.Buffer{}
	for _, m := range msgs {
		line, _ := json.Marshal(map[string]string{"session": m.Session, "time": m.Time.Format(time.RFC3339Nano), "role": string(m.Role), "text": m.Text})
		buf.Write(append(line, '\n'))
		if sessions[m.Session] == nil {
			sessions[m.Session] = &bytes.Buffer{}
		}
		sessions[m.Session].Write(append(line, '\n'))
	}
	file := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if folder {
		file = filepath.Join(dir, "sessions")
		if err := os.Mkdir(file, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range sessions {
			if err := os.WriteFile(filepath.Join(file, name+".jsonl"), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	seed := filepath.Join(dir, "seed.jsonl")
	if err := os.WriteFile(seed, []byte(`{"session":"earlier","time":"2025-11-20T09:00:00+08:00","role":"user","text":"an earlier note about the deploy budget"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(home string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--home", home}, args...)...)
		cmd.Env = append(os.Environ(), env(home)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("huimem %v: %v", args, err)
		}
		return string(out)
	}
	// content is what the memory holds: counts and every message.
	content := func(home string) string {
		var b bytes.Buffer
		var st map[string]any
		json.Unmarshal([]byte(run(home, "stats", "--json")), &st)
		for _, k := range []string{"chunks", "messages", "sessions"} {
			b.WriteString(k + " ")
			json.NewEncoder(&b).Encode(st[k])
		}
		b.WriteString(run(home, "export", "--all"))
		return b.String()
	}
	// view is what readers see: the content, and a few recalls.
	view := func(home string) string {
		var b bytes.Buffer
		b.WriteString(content(home))
		for _, q := range []string{synth.Word(2) + " " + synth.Word(31), synth.ZhWord(4), "deploy budget"} {
			b.WriteString(run(home, "recall", "-k", "5", q))
		}
		return b.String()
	}
	const batch = "250"
	clean := filepath.Join(dir, "clean")
	run(clean, "ingest", "--quiet", seed)
	before := view(clean)
	run(clean, "ingest", "--quiet", "--batch", batch, file)
	want, wantContent := view(clean), content(clean)
	if before == want {
		t.Fatal("the ingest changed nothing that readers see")
	}

	home := filepath.Join(dir, "home")
	run(home, "ingest", "--quiet", seed)
	killed := 0
	for _, after := range []time.Duration{300 * time.Millisecond, 800 * time.Millisecond, 1500 * time.Millisecond, 2500 * time.Millisecond, 4 * time.Second} {
		cmd := exec.Command(bin, "--home", home, "ingest", "--quiet", "--batch", batch, file)
		cmd.Env = append(os.Environ(), env(home)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("ingest ended before the kill: %v", err)
			}
		case <-time.After(after):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			killed++
		}
		got := view(home)
		if got == want {
			break // the ingest got to the end before the kill
		}
		if content(home) == wantContent {
			// The file is in; the kill cut the tidying after it (the
			// index merge), so recall scores may differ until the next
			// ingest finishes that (checked below).
			break
		}
		if diff := cmp.Diff(before, got); diff != "" {
			t.Fatalf("after a kill at %v, readers see part of the file (-before +after):\n%.3000s", after, diff)
		}
	}
	t.Logf("%d ingests killed halfway", killed)
	if killed == 0 {
		t.Fatal("no ingest was killed halfway; the test proves nothing")
	}
	run(home, "ingest", "--quiet", "--batch", batch, file)
	if diff := cmp.Diff(want, view(home)); diff != "" {
		t.Errorf("re-running the ingest after kills differs from a clean ingest (-clean +rerun):\n%.3000s", diff)
	}
	// The killed ingests' runs (a home keeps a stage's run in a file
	// beside the store) are gone with their stages.
	if left, _ := filepath.Glob(filepath.Join(home, "huimem.db.run-*")); len(left) > 0 {
		t.Errorf("run files left after the re-run: %q", left)
	}
}
