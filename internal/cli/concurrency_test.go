//go:build unix

package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// huimemCmd runs bin on home and returns stdout, stderr and the exit code.
func huimemCmd(t *testing.T, env []string, bin, home string, args ...string) (string, string, int) {
	t.Helper()
	return procIn(t, bin, "", env, nil, append([]string{"--home", home}, args...)...)
}

// TestCLIBesideServe: while `huimem serve` has a home open, CLI commands on
// the same home read and write it, and the server sees what they wrote.
func TestCLIBesideServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs huimem processes")
	}
	bin := buildHuimem(t)
	home := t.TempDir()
	if _, errs, code := huimemCmd(t, nil, bin, home, "ingest", sampleFile); code != 0 {
		t.Fatalf("ingest: %d %s", code, errs)
	}
	ctx, cancel := context.WithCancel(t.Context())
	srv := exec.CommandContext(ctx, bin, "--home", home, "serve", "--addr", "127.0.0.1:0")
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); srv.Wait() })
	sc := bufio.NewScanner(stderr)
	url := ""
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), " on http://"); ok {
			url = "http://" + strings.Fields(after)[0]
			break
		}
	}
	if url == "" {
		t.Fatal("serve printed no address")
	}
	go func() { // drain
		for sc.Scan() {
		}
	}()
	for _, args := range [][]string{{"recall", "deploy"}, {"stats"}, {"add", "--session", "cli", "--role", "user", "the zebracorn password is teal"}, {"recall", "zebracorn"}} {
		out, errs, code := huimemCmd(t, nil, bin, home, args...)
		if code != 0 {
			t.Fatalf("%v beside serve: exit %d: %s", args, code, errs)
		}
		if args[0] == "recall" && args[1] == "zebracorn" && !strings.Contains(out, "teal") {
			t.Errorf("recall after add: %s", out)
		}
	}
	// The server finds what the CLI added.
	c := exec.Command("curl", "-s", "-X", "POST", url+"/v1/recall", "-d", `{"query":"zebracorn"}`)
	out, err := c.Output()
	if err != nil {
		t.Skipf("curl: %v", err)
	}
	if !strings.Contains(string(out), "teal") {
		t.Errorf("server recall after a CLI add: %s", out)
	}
}

// asNobody runs bin as the user nobody, for permission tests (they run as
// root here, and root ignores file modes).
func asNobody(t *testing.T) (wrap func(args ...string) *exec.Cmd, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run commands as nobody")
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("needs runuser")
	}
	if _, err := user.Lookup("nobody"); err != nil {
		t.Skip("no user nobody")
	}
	dir, err := os.MkdirTemp("", "huimem-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("chmod", "-R", "u+w", dir).Run(); os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	bin := filepath.Join(dir, "huimem")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/huimem").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(sampleFile)
	os.WriteFile(filepath.Join(dir, "conv.jsonl"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "more.jsonl"), []byte(`{"session":"late","time":"2026-12-01T10:00:00+08:00","role":"user","text":"the quokka budget is forty"}`+"\n"), 0o644)
	return func(args ...string) *exec.Cmd {
		return exec.Command("runuser", append([]string{"-u", "nobody", "--", bin}, args...)...)
	}, dir
}

func runOut(t *testing.T, c *exec.Cmd) (string, int) {
	t.Helper()
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestReadOnlyHome: a home nobody may write is searched: recall, get and
// stats work, also when its index is missing (it is built in a temporary
// folder).
func TestReadOnlyHome(t *testing.T) {
	huimem, dir := asNobody(t)
	home := filepath.Join(dir, "home")
	if out, code := runOut(t, huimem("--home", home, "ingest", filepath.Join(dir, "conv.jsonl"))); code != 0 {
		t.Fatalf("ingest: %d %s", code, out)
	}
	for _, dropIndex := range []bool{false, true} {
		exec.Command("chmod", "-R", "u+w", home).Run()
		if dropIndex {
			os.RemoveAll(filepath.Join(home, "index"))
		}
		if out, err := exec.Command("chmod", "-R", "a-w", home).CombinedOutput(); err != nil {
			t.Fatalf("chmod: %v %s", err, out)
		}
		out, code := runOut(t, huimem("--home", home, "recall", "deploy", "-k", "1", "--json"))
		if code != 0 || !strings.Contains(out, `"id"`) {
			t.Fatalf("recall on a read-only home (index dropped: %v): exit %d: %s", dropIndex, code, out)
		}
		id := out[strings.Index(out, `"id":"`)+6:]
		id = id[:strings.IndexByte(id, '"')]
		if out, code := runOut(t, huimem("--home", home, "get", id)); code != 0 {
			t.Errorf("get %s on a read-only home: exit %d: %s", id, code, out)
		}
		if out, code := runOut(t, huimem("--home", home, "stats")); code != 0 {
			t.Errorf("stats on a read-only home: exit %d: %s", code, out)
		}
		// A write fails clearly.
		if out, code := runOut(t, huimem("--home", home, "ingest", filepath.Join(dir, "more.jsonl"))); code == 0 || !strings.Contains(out, "read-only") {
			t.Errorf("ingest into a read-only home: exit %d: %s", code, out)
		}
	}
}

// TestUnwritableSessions: an ingest whose store transaction committed
// succeeds with a warning when sessions/ cannot be written, and reads
// work afterwards.
func TestUnwritableSessions(t *testing.T) {
	huimem, dir := asNobody(t)
	home := filepath.Join(dir, "home")
	if out, code := runOut(t, huimem("--home", home, "ingest", filepath.Join(dir, "conv.jsonl"))); code != 0 {
		t.Fatalf("ingest: %d %s", code, out)
	}
	if out, err := exec.Command("chmod", "-R", "a-w", filepath.Join(home, "sessions")).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v %s", err, out)
	}
	out, code := runOut(t, huimem("--home", home, "ingest", filepath.Join(dir, "more.jsonl")))
	if code != 0 || !strings.Contains(out, "warning: transcripts not written") {
		t.Fatalf("ingest with sessions/ read-only: exit %d, want 0 and a warning: %s", code, out)
	}
	for _, args := range [][]string{{"recall", "quokka"}, {"stats"}} {
		out, code := runOut(t, huimem(append([]string{"--home", home}, args...)...))
		if code != 0 {
			t.Errorf("%v after: exit %d: %s", args, code, out)
		}
		if args[0] == "recall" && !strings.Contains(out, "forty") {
			t.Errorf("recall quokka: %s", out)
		}
	}
}

// TestWriterWaitsForWriter: a write waits for another process's write up
// to storage.lock_wait, then fails with exit 4 and a message that names
// the holder; with enough wait it goes through.
func TestWriterWaitsForWriter(t *testing.T) {
	home := ingested(t)
	// Hold the writer lock as another huimem would, without a read handle.
	release := holdWriterLock(t, home, "test holder (pid 1)")
	t.Setenv("HUIMEM_STORAGE_LOCK_WAIT", "300ms")
	_, errs, code := cli(t, home, "add", "--session", "w", "--role", "user", "first try")
	if code != exitLocked || !strings.Contains(errs, "test holder") || !strings.Contains(errs, "storage.lock_wait") {
		t.Errorf("add while another writer writes: exit %d, stderr %q; want %d naming the holder and storage.lock_wait", code, errs, exitLocked)
	}
	// Readers do not wait for the writer lock.
	if _, errs, code := cli(t, home, "recall", "deploy"); code != 0 {
		t.Errorf("recall while another writer writes: exit %d: %s", code, errs)
	}
	t.Setenv("HUIMEM_STORAGE_LOCK_WAIT", "20s")
	released := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		release()
		close(released)
	}()
	_, errs, code = cli(t, home, "add", "--session", "w", "--role", "user", "second try")
	<-released
	if code != 0 {
		t.Errorf("add that waits for the writer: exit %d: %s", code, errs)
	}
}
