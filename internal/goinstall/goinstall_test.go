package goinstall

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// root is the repository's root, two folders up.
const root = "../.."

func readGoMod(t *testing.T) *modfile.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestGoModHasNoReplace: a replace directive applies only when this module
// is the main one, so a user who installs or imports HuiMemory would run
// other code than the tests test.
func TestGoModHasNoReplace(t *testing.T) {
	f := readGoMod(t)
	for _, r := range f.Replace {
		t.Errorf("go.mod:%d: replace %s => %s: use the upstream module as it is", r.Syntax.Start.Line, r.Old.Path, r.New.Path)
	}
	for _, r := range f.Exclude {
		t.Errorf("go.mod:%d: exclude %s %s: users' builds ignore it", r.Syntax.Start.Line, r.Mod.Path, r.Mod.Version)
	}
}

// TestGoInstall builds the CLI and the benchmark tool as
// `go install module/cmd/huimem@version` does, from a file-based module proxy that serves this tree as a
// version (the other modules come from the configured proxy, or the
// module cache), outside any module, and runs it. -trimpath lets the
// build cache serve, across runs, what the private module caches'
// different paths would otherwise make it build again.
func TestGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds huimem from a module zip of the tree")
	}
	mod := readGoMod(t).Module.Mod.Path
	const version = "v0.0.0-20261206000000-000000000000"
	proxy := t.TempDir()
	dir := filepath.Join(proxy, filepath.FromSlash(mod), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := zip.CreateFromDir(zf, module.Version{Path: mod, Version: version}, root); err != nil {
		t.Fatalf("zipping the module: %v", err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)})
	for name, data := range map[string][]byte{version + ".mod": gomod, version + ".info": info, "list": []byte(version + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A module cache of the test's own, so that no earlier run's copy of
	// this version is used; the other modules come from the machine's
	// module cache when it has them (its download folder is a proxy too),
	// else from the configured proxy.
	cached := filepath.Join(goEnv(t, "GOMODCACHE"), "cache", "download")
	upstream := goEnv(t, "GOPROXY")
	bin := t.TempDir()
	cmd := exec.Command("go", "install", "-trimpath", mod+"/cmd/huimem@"+version, mod+"/cmd/huimem-bench@"+version)
	cmd.Dir = t.TempDir() // outside any module
	cmd.Env = append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(cached)+","+upstream,
		"GOMODCACHE="+t.TempDir(), "GONOSUMDB="+mod, "GOFLAGS=-modcacherw", "GOBIN="+bin, "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	huimem := filepath.Join(bin, "huimem")
	out, err := exec.Command(huimem, "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "recall") {
		t.Fatalf("huimem --help: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "bench") {
		t.Errorf("huimem --help lists a benchmark:\n%s", out)
	}
	// The harnesses live in huimem-bench only: no symbol of
	// internal/bench is linked into huimem.
	syms, err := exec.Command("go", "tool", "nm", huimem).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if i := bytes.Index(syms, []byte(mod+"/internal/bench")); i >= 0 {
		line := syms[bytes.LastIndexByte(syms[:i], '\n')+1:]
		t.Errorf("huimem links a benchmark harness: %s", line[:bytes.IndexByte(line, '\n')])
	}
	out, err = exec.Command(filepath.Join(bin, "huimem-bench"), "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("huimem-bench --help: %v\n%s", err, out)
	}
	for _, sub := range []string{"locomo", "beam", "zh", "dev", "perf", "cold", "ingest", "serve", "cluster", "concurrent"} {
		if !strings.Contains(string(out), "\n  "+sub+" ") {
			t.Errorf("huimem-bench --help does not list %s:\n%s", sub, out)
		}
	}
	vm, err := exec.Command("go", "version", "-m", huimem).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, vm)
	}
	if !bytes.Contains(vm, []byte("mod\t"+mod+"\t"+version)) {
		t.Errorf("the binary is not built from %s@%s:\n%s", mod, version, vm)
	}
	if bytes.Contains(vm, []byte("=>")) {
		t.Errorf("the binary was built with a replaced module:\n%s", vm)
	}
}

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}
