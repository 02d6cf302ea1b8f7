package host

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/huimemory/huimemory/core"
)

// bins are the programs TestMain builds once for all tests: the huimem
// binary, which serves the built-ins, and the faulty test plugin.
var bins struct {
	huimem, faulty string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "huimem-host-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// plugin.TestPluginGRPCConn logs every stream at debug level.
	hclog.DefaultOutput = io.Discard
	code := 1
	if err := build(dir); err != nil {
		fmt.Fprintf(os.Stderr, "building the test programs: %v\n", err)
	} else {
		bins.huimem = filepath.Join(dir, "huimem")
		bins.faulty = filepath.Join(dir, "faulty")
		code = m.Run()
	}
	plugin.CleanupClients()
	os.RemoveAll(dir)
	os.Exit(code)
}

func build(dir string) error {
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/huimemory/huimemory/cmd/huimem",
		"github.com/huimemory/huimemory/plugins/internal/testplugins/faulty")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}

// testConfig returns a configuration with defaults on a fresh home,
// with built-ins as subprocesses (plugins.subprocess), which most tests
// here are about.
func testConfig(t testing.TB, mutate ...func(*core.Config)) core.Config {
	t.Helper()
	var cfg core.Config
	cfg.Storage.Home = t.TempDir()
	cfg.Plugins.Subprocess = true
	for _, m := range mutate {
		m(&cfg)
	}
	cfg.SetDefaults()
	return cfg
}

// newHost starts a host on cfg whose built-ins are served by the test
// huimem binary.
func newHost(t testing.TB, cfg core.Config) *Host {
	t.Helper()
	h, err := New(t.Context(), cfg, Options{Executable: bins.huimem})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// faulty names the faulty test plugin with args.
func faulty(args ...string) core.PluginSpec {
	return core.PluginSpec{Name: "faulty", Command: bins.faulty, Args: args}
}

// waitFor polls cond until it holds; it fails the test if it does not
// within a generous bound (a bound on the test, not a timing assertion).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("gave up waiting for %s", what)
}

// wantErr checks that err wraps want and that its text holds every part.
func wantErr(t testing.TB, err, want error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", want)
	}
	if want != nil && !isErr(err, want) {
		t.Errorf("error %q does not wrap %q", err, want)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}
