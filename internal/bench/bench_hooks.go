package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/internal/bench/cold"
	"github.com/huimemory/huimemory/internal/cli"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *app) benchHooksCmd() *cobra.Command {
	var sizes, exe string
	var runs int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "hooks [--chunks 10000,100000] [--runs 50] [--json]",
		Short: "Measure whole `huimem hook claude-code` processes: Stop, SessionStart, UserPromptSubmit",
		Long: `Measure what a coding agent waits for at each hook. At each size in
--chunks, build a project's memory of that many synthetic turn chunks with
one "huimem ingest" process (in the namespace "huimem hooks namespace"
names for a scratch git project), capture a Claude Code session of 50
exchanges into it, then time --runs whole "huimem hook claude-code"
processes of each event, after one untimed one:

  Stop              the session's transcript grew by one exchange (two
                    lines) since the capture before; the capture ingests it
  SessionStart      the wake-up context
  UserPromptSubmit  a recall for a prompt, a different one each time

Reports p50 and p99 wall time (the p99 of 50 runs is their slowest but
one), the median CPU time and the peak RSS, and the load average before
and after: the machine may be shared, so compare runs made one after the
other. HUIMEM_* settings in the environment reach the children (pin the
embedder with HUIMEM_EMBEDDING_NAME=hash to compare runs).`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runs < 1 || runs > 1000 {
				return cli.Usagef("hooks: --runs %d is not between 1 and 1000", runs)
			}
			steps, err := chunkSizes("hooks", sizes)
			if err != nil {
				return err
			}
			exe, err := huimemExe(exe)
			if err != nil {
				return err
			}
			var results []*cold.HookResult
			for _, n := range steps {
				dir, err := os.MkdirTemp("", "huimem-hooks-")
				if err != nil {
					return err
				}
				r, err := cold.RunHooks(cmd.Context(), cold.HookOptions{Exe: exe, Chunks: n, Runs: runs, Dir: dir})
				os.RemoveAll(dir)
				if err != nil {
					return fmt.Errorf("hooks at %d chunks: %w", n, err)
				}
				a.Logf("hooks: %d chunks done", n)
				results = append(results, r)
			}
			if asJSON {
				return render.JSON(a.Stdout, results)
			}
			printHooks(a, results)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&sizes, "chunks", "10000,100000", "sizes of the project's memory in chunks")
	f.IntVar(&runs, "runs", 50, "hook processes to time for each event at each size")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	f.StringVar(&exe, "exe", "", "the huimem binary to measure (default the one next to huimem-bench, else on PATH)")
	return cmd
}

// chunkSizes parses a --chunks list such as "10000,100000" for the
// command name.
func chunkSizes(name, sizes string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 100 || n > 10_000_000 {
			return nil, cli.Usagef("%s: --chunks %q: want sizes from 100 to 10000000, such as 10000,100000", name, sizes)
		}
		out = append(out, n)
	}
	return out, nil
}

func printHooks(a *app, results []*cold.HookResult) {
	w := a.Stdout
	fmt.Fprintln(w, "| chunks | embedder | ingest s | event | runs | p50 ms | p99 ms | max ms | CPU ms (median) | peak RSS MiB | load avg |")
	fmt.Fprintln(w, "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		for _, ev := range []struct {
			name string
			l    cold.Latency
		}{{"Stop (+1 exchange)", r.Stop}, {"SessionStart", r.SessionStart},
			{fmt.Sprintf("UserPromptSubmit (%d/%d with context)", r.PromptsWithContext, r.UserPromptSubmit.Runs), r.UserPromptSubmit}} {
			fmt.Fprintf(w, "| %d | %s | %.1f | %s | %d | %.1f | %.1f | %.1f | %.0f | %.0f | %.1f→%.1f |\n",
				r.Chunks, r.Embedder, r.Ingest.WallMS/1000, ev.name, ev.l.Runs, ev.l.P50MS, ev.l.P99MS, ev.l.MaxMS,
				ev.l.MedianCPUMS, float64(ev.l.MaxPeakRSS)/(1<<20), r.Load[0], r.Load[1])
		}
	}
}
