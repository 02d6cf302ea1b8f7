package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/internal/cli"
)

// Program is the huimem-bench command.
var Program = cli.Program{
	Name:  "huimem-bench",
	Short: "Benchmarks of HuiMemory: retrieval quality on the dev sets, and performance",
	Long: `huimem-bench measures HuiMemory. The quality commands (locomo, beam, zh,
dev) ingest a benchmark's conversations into a scratch home and report
evidence recall. The performance commands (perf, cold, ingest, serve,
cluster, concurrent, hooks) run the huimem binary as real processes: the one next
to huimem-bench, else the one on PATH, or the one --exe names.`,
	Commands: func(c *cli.App) []*cobra.Command {
		a := &app{c}
		return []*cobra.Command{
			a.benchLocomoCmd(), a.benchBeamCmd(), a.benchZhCmd(), a.benchDevCmd(),
			a.benchPerfCmd(), a.benchColdCmd(), a.benchIngestCmd(), a.benchServeCmd(),
			a.benchClusterCmd(), a.benchConcurrentCmd(), a.benchHooksCmd(),
		}
	},
	// The quality benchmarks fill a scratch home of their own.
	Creators: map[string]bool{"locomo": false, "beam": false, "zh": false, "dev": false},
}

// app is the shared command state, with the benchmarks' helpers.
type app struct{ *cli.App }

// huimemExe returns the huimem binary the performance commands run: exe
// when it is set, else huimem in this program's folder, else huimem on
// PATH.
func huimemExe(exe string) (string, error) {
	if exe != "" {
		return exe, nil
	}
	name := "huimem"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), name); isFile(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", cli.Usagef("no huimem binary next to huimem-bench or on PATH; install it (go install github.com/huimemory/huimemory/cmd/huimem@latest) or pass --exe")
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
