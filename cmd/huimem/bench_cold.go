package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/internal/cold"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *app) benchColdCmd() *cobra.Command {
	var sizes string
	var runs int
	var large, asJSON bool
	cmd := &cobra.Command{
		Use:   "cold [--chunks 10000,100000] [--large] [--runs 10] [--json]",
		Short: "Measure whole processes: one ingest, then one-shot recall and get, with peak RSS",
		Long: `Measure HuiMemory as an agent that calls it as a command sees it. At each
size in --chunks, write a synthetic corpus as JSONL, ingest it with one
"huimem ingest" process, then run --runs one-shot "huimem recall -k 10" and
"huimem get" processes, each a cold start. Reports wall time (median, min,
max), CPU time and peak RSS (from getrusage) of each. --large adds the
1,000,000-chunk step. HUIMEM_* settings in the environment reach the
children, e.g. HUIMEM_PLUGINS_IN_PROCESS=false.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var list []int
			for _, f := range strings.Split(sizes, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || n < 100 || n > 10_000_000 {
					return usagef("bench cold: --chunks %q: want sizes from 100 to 10000000", sizes)
				}
				list = append(list, n)
			}
			if large {
				list = append(list, 1_000_000)
			}
			if runs < 1 || runs > 1000 {
				return usagef("bench cold: --runs %d is not between 1 and 1000", runs)
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			var results []*cold.Result
			for _, n := range list {
				dir, err := os.MkdirTemp("", "huimem-cold-")
				if err != nil {
					return err
				}
				r, err := cold.Run(cmd.Context(), cold.Options{Exe: exe, Chunks: n, Runs: runs, Dir: dir})
				os.RemoveAll(dir)
				if err != nil {
					return fmt.Errorf("bench cold at %d chunks: %w", n, err)
				}
				a.logf("bench cold: %d chunks done", n)
				results = append(results, r)
			}
			if asJSON {
				return render.JSON(a.stdout, results)
			}
			mib := func(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }
			w := a.stdout
			fmt.Fprintln(w, "| chunks | ingest wall s | ingest CPU s | ingest peak RSS MiB | recall median ms (min..max) | recall peak RSS MiB | get median ms (min..max) | get peak RSS MiB |")
			fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|")
			for _, r := range results {
				fmt.Fprintf(w, "| %d | %.1f | %.1f | %s | %.1f (%.1f..%.1f) | %s | %.1f (%.1f..%.1f) | %s |\n", r.Chunks,
					r.Ingest.WallMS/1000, r.Ingest.CPUMS/1000, mib(r.Ingest.PeakRSS),
					r.Recall.MedianMS, r.Recall.MinMS, r.Recall.MaxMS, mib(r.Recall.MaxPeakRSS),
					r.Get.MedianMS, r.Get.MinMS, r.Get.MaxMS, mib(r.Get.MaxPeakRSS))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&sizes, "chunks", "10000,100000", "corpus sizes in chunks")
	f.BoolVar(&large, "large", false, "add the 1,000,000-chunk step")
	f.IntVar(&runs, "runs", 10, "one-shot recalls and gets to time at each size")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	return cmd
}
