package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// huimemBin and benchBin are huimem and huimem-bench, built side by side
// in one folder by TestMain, so that huimem-bench finds huimem as it does
// when both are installed.
var huimemBin, benchBin string

// TestMain builds huimem and huimem-bench and points $HUIMEM_MODELS at an
// empty folder, so that the benchmarks run with the embedder a machine
// without models gets (hash) whatever this machine has installed.
func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "huimem-bench-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	huimemBin, benchBin = filepath.Join(dir, "huimem"), filepath.Join(dir, "huimem-bench")
	for bin, pkg := range map[string]string{huimemBin: "../../cmd/huimem", benchBin: "../../cmd/huimem-bench"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", pkg, err, out)
			return 1
		}
	}
	empty := filepath.Join(dir, "no-models")
	if err := os.Mkdir(empty, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("HUIMEM_MODELS", empty)
	return m.Run()
}

// run runs one huimem-bench command line in process against home.
func run(t *testing.T, home string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	full := append([]string{"--home", home}, args...)
	code = Program.Run(t.Context(), full, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}
