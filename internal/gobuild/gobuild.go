// Package gobuild builds Go programs for tests that run them as real
// processes: the examples' tests build the example (or huimem) once in
// TestMain and run the binary.
package gobuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds the package at pkg (a path relative to the test's folder,
// such as "." or "../../cmd/huimem") into a temporary folder as name,
// stores the binary's path in *bin, runs the tests and exits with their
// code, removing the folder. A build failure prints go build's output and
// exits 1. Call it from TestMain.
func Main(m *testing.M, pkg, name string, bin *string) {
	dir, err := os.MkdirTemp("", name+"-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", *bin, pkg).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", pkg, err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
