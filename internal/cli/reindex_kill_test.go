package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/internal/bench/synth"
)

// TestReindexSurvivesKill9 switches a home from hash to use-lite with a
// real `huimem reindex` (embedding.name: use-lite), killed with SIGKILL at several points. After
// each kill the home must work: either as it was (hash vectors, the same
// recall results) or, if the kill came after the commit, on use-lite.
// Running reindex again must finish, and leave the home as an
// uninterrupted reindex does.
func TestReindexSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds huimem and embeds a few hundred chunks with use-lite several times")
	}
	noModels := os.Getenv("HUIMEM_MODELS")
	withRealUseLite(t)
	models := os.Getenv("HUIMEM_MODELS")
	bin := buildHuimem(t)
	dir := t.TempDir()
	msgs := synth.Corpus(synth.Options{Seed: 5, Pairs: 60, PerSession: 15})
	var buf bytes.Buffer
	for _, m := range msgs {
		line, _ := json.Marshal(map[string]string{"session": m.Session, "time": m.Time.Format(time.RFC3339Nano), "role": string(m.Role), "text": m.Text})
		buf.Write(append(line, '\n'))
	}
	file := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The reindexes name use-lite (the automatic choice is hash); the
	// other commands run with the automatic choice, which opens a home
	// embedded with use-lite with use-lite.
	const useLite = "HUIMEM_EMBEDDING_NAME=use-lite"
	// run runs huimem with $HUIMEM_MODELS set to modelsDir.
	run := func(modelsDir, home string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--home", home}, args...)...)
		cmd.Env = append(os.Environ(), "HUIMEM_MODELS="+modelsDir)
		if args[0] == "reindex" {
			cmd.Env = append(cmd.Env, useLite)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return string(out), fmt.Errorf("huimem %v: %v: %s", args, err, stderr.String())
		}
		return string(out), nil
	}
	must := func(modelsDir, home string, args ...string) string {
		t.Helper()
		out, err := run(modelsDir, home, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// view is what a reader sees: the embedder, the count, and recalls.
	view := func(home string) (embedder, text string) {
		t.Helper()
		var st statsJSON
		json.Unmarshal([]byte(must(models, home, "stats", "--json")), &st)
		var b strings.Builder
		fmt.Fprintf(&b, "chunks %d\n", st.Chunks)
		for _, q := range []string{synth.Word(2) + " " + synth.Word(31), synth.ZhWord(4)} {
			b.WriteString(must(models, home, "recall", "-k", "5", q))
		}
		return st.Embedder.Name, b.String()
	}
	mk := func(name string) string {
		home := filepath.Join(dir, name)
		must(noModels, home, "ingest", "--quiet", file)
		return home
	}

	clean := mk("clean")
	emb, before := view(clean)
	if emb != "hash" {
		t.Fatalf("the home was made with %s, want hash", emb)
	}
	if out := must(models, clean, "reindex", "--quiet"); !strings.HasPrefix(out, "re-embedded with use-lite") {
		t.Fatalf("reindex printed %q", out)
	}
	emb, want := view(clean)
	if emb != "use-lite" || want == before {
		t.Fatalf("the clean reindex left %s and the same recall results", emb)
	}

	home := mk("home")
	// Small batches, so that each kill finds some of them kept in
	// reembed.partial.
	batchEnv := "HUIMEM_EMBEDDING_BATCH_SIZE=4"
	resumed := 0
	// reindex runs `huimem reindex`, killed after after (0: never), and
	// reports whether it was killed. A run that finishes must have taken
	// the vectors the killed runs before it left.
	reindex := func(after time.Duration) bool {
		t.Helper()
		partial, _ := os.ReadFile(filepath.Join(home, "reembed.partial"))
		_, records, _ := bytes.Cut(partial, []byte("\n"))
		cmd := exec.Command(bin, "--home", home, "reindex", "--quiet")
		cmd.Env = append(os.Environ(), "HUIMEM_MODELS="+models, batchEnv, useLite)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var kill <-chan time.Time
		if after > 0 {
			kill = time.After(after)
		}
		select {
		case err := <-done:
			out := stdout.String()
			if err != nil {
				t.Fatalf("reindex: %v: %s", err, out)
			}
			t.Logf("reindex finished: %s", strings.TrimSpace(out))
			if !strings.Contains(out, "indexed 60 chunks") {
				t.Errorf("reindex printed %q", out)
			}
			if len(records) > 0 {
				if !strings.Contains(out, "embedded by an interrupted reindex") {
					t.Errorf("reindex took nothing of the %d bytes of vectors the killed runs left: %q", len(records), out)
				}
				resumed++
			}
			return false
		case <-kill:
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
			return true
		}
	}
	killed := 0
	for _, after := range []time.Duration{2 * time.Second, 5 * time.Second, 9 * time.Second, 14 * time.Second} {
		if reindex(after) {
			killed++
		}
		emb, got := view(home)
		if emb == "use-lite" {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("after a reindex killed at %v the home runs use-lite but differs from a clean reindex (-clean +killed):\n%.3000s", after, diff)
			}
			break // the reindex got to its commit before the kill
		}
		if diff := cmp.Diff(before, got); diff != "" {
			t.Fatalf("after a kill at %v the home runs %s but differs from before (-before +after):\n%.3000s", after, emb, diff)
		}
	}
	if killed == 0 {
		t.Fatal("no reindex was killed; the test proves nothing")
	}
	reindex(0)
	t.Logf("%d reindexes killed; %d finished runs took vectors from killed ones", killed, resumed)
	if _, err := os.Stat(filepath.Join(home, "reembed.partial")); !os.IsNotExist(err) {
		t.Errorf("reembed.partial is left after the reindex finished: %v", err)
	}
	emb, got := view(home)
	if emb != "use-lite" {
		t.Errorf("after re-running reindex the home runs %s, want use-lite", emb)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("re-running reindex after kills differs from a clean reindex (-clean +rerun):\n%.3000s", diff)
	}
}
