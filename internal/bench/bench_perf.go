package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/internal/bench/perf"
	"github.com/huimemory/huimemory/internal/cli"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *app) benchPerfCmd() *cobra.Command {
	var sizes, cpuprofile string
	var queries int
	var large, asJSON, child, inProcess bool
	cmd := &cobra.Command{
		Use:   "perf [--chunks 10000,100000] [--large] [--json]",
		Short: "Measure ingest, recall latency, disk use and memory on a synthetic corpus",
		Long: `Measure HuiMemory on a generated corpus (mixed Chinese and English turns,
four namespaces, sessions spread over a year) at each size in --chunks:
ingest throughput, recall latency p50/p99 for plain, one-week and
progressive-scan queries, recall_by_id latency, disk bytes per chunk, and
peak RSS. --large adds the 1M-chunk step (tens of minutes). Each size runs
in its own process so that peak RSS is its own.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := chunkSizes("perf", sizes)
			if err != nil {
				return err
			}
			if large {
				list = append(list, 1_000_000)
			}
			cfg, err := a.LoadBenchConfig()
			if err != nil {
				return err
			}
			if child || inProcess {
				if cpuprofile != "" {
					f, err := os.Create(cpuprofile)
					if err != nil {
						return err
					}
					defer f.Close()
					pprof.StartCPUProfile(f)
					defer pprof.StopCPUProfile()
				}
				var results []*perf.Result
				for _, n := range list {
					dir, err := os.MkdirTemp("", "huimem-perf-")
					if err != nil {
						return err
					}
					defer os.RemoveAll(dir)
					r, err := perf.Run(cmd.Context(), perf.Options{Chunks: n, Queries: queries, Dir: dir, Config: cfg, Logf: a.Logf})
					if err != nil {
						return err
					}
					results = append(results, r)
				}
				if child {
					return render.JSON(a.Stdout, results[0])
				}
				return a.printPerf(results, asJSON)
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			var results []*perf.Result
			for _, n := range list {
				args := []string{"perf", "--child", "--chunks", strconv.Itoa(n), "--queries", strconv.Itoa(queries)}
				if a.Config != "" {
					args = append([]string{"--config", a.Config}, args...)
				}
				c := exec.CommandContext(cmd.Context(), exe, args...)
				var out bytes.Buffer
				c.Stdout, c.Stderr = &out, a.Stderr
				if err := c.Run(); err != nil {
					return fmt.Errorf("perf at %d chunks: %w", n, err)
				}
				var r perf.Result
				if err := json.Unmarshal(out.Bytes(), &r); err != nil {
					return fmt.Errorf("perf at %d chunks: reading result: %w", n, err)
				}
				results = append(results, &r)
			}
			return a.printPerf(results, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&sizes, "chunks", "10000,100000", "corpus sizes in chunks")
	f.BoolVar(&large, "large", false, "add the 1,000,000-chunk step")
	f.IntVar(&queries, "queries", 200, "recalls of each kind to time")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	f.BoolVar(&inProcess, "in-process", false, "run every size in this process")
	f.StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile (with --in-process)")
	f.BoolVar(&child, "child", false, "run one size and print its JSON (used by the parent process)")
	f.MarkHidden("child")
	return cmd
}

func (a *app) printPerf(results []*perf.Result, asJSON bool) error {
	if asJSON {
		return render.JSON(a.Stdout, results)
	}
	w := a.Stdout
	fmt.Fprintf(w, "| chunks | ingest chunks/s | plain p50/p99 ms | one week p50/p99 ms | progressive p50/p99 ms | by id p50/p99 ms | recalls with hits (plain / week / progressive) | store B/chunk | index B/chunk | transcripts B/chunk | peak RSS MiB |\n")
	fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		l := func(k string) string { return fmt.Sprintf("%.2f / %.2f", r.Latency[k].P50, r.Latency[k].P99) }
		per := func(b int64) string { return strconv.FormatInt(b/int64(r.Chunks), 10) }
		pct := func(k string) string { return fmt.Sprintf("%.0f%%", 100*r.Latency[k].Found) }
		fmt.Fprintf(w, "| %d | %.0f | %s | %s | %s | %s | %s / %s / %s | %s | %s | %s | %.0f |\n", r.Chunks, r.ChunksPerSec,
			l("plain"), l("week"), l("progressive"), l("by_id"), pct("plain"), pct("week"), pct("progressive"),
			per(r.StoreBytes), per(r.IndexBytes), per(r.FilesBytes), float64(r.PeakRSS)/(1<<20))
	}
	return nil
}
