package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/internal/bench/cold"
	"github.com/huimemory/huimemory/internal/cli"
	"github.com/huimemory/huimemory/internal/render"
)

// defaultBeamDir is where the BEAM 100K development chats are read from
// by `bench cold --beam` when no folder is given.
const defaultBeamDir = "../shared/bench/beam/100K-dev"

func (a *app) benchColdCmd() *cobra.Command {
	var sizes, beamDir, keep, exe string
	var runs, warm, copies int
	var large, asJSON, evict bool
	cmd := &cobra.Command{
		Use:   "cold [--chunks 10000,100000] [--large] [--beam [DIR]] [--copies N] [--runs 10] [--warm 300] [--evict] [--json]",
		Short: "Measure whole processes: one ingest, then one-shot recall and get, with peak RSS",
		Long: `Measure HuiMemory as an agent that calls it as a command sees it. At each
size in --chunks, write a synthetic corpus as JSONL, ingest it with one
"huimem ingest" process, then run --runs one-shot "huimem recall -k 10" and
"huimem get" processes, each a cold start, after one untimed pass over
the queries. Reports wall time (median, min,
max), the median CPU time and the peak RSS (VmHWM) of each, and the load
average before and after (the machine may be shared: compare runs made
one after the other). --large adds the 1,000,000-chunk step.

A process's peak RSS counts the pages of its binary and of the home's
files that it maps, and on Linux that depends on how they came into the
page cache: a file just written (by the linker, cp, or the ingest) sits
in large folios that are mapped whole, about 12 MiB more per process for
the binary and 6 MiB for a 10k-chunk index than the same files read back
from disk. --evict runs a copy of the binary dropped from the page cache,
and drops the home after the ingest, as after a reboot (Linux only).

--warm N then starts one "huimem serve" on the home and times N recalls
over HTTP, one after the other, after 20 untimed ones (a sidecar's view):
p50 and p99, and the server's CPU and peak RSS from start to shutdown.

--beam ingests the BEAM 100K development chats instead
(` + defaultBeamDir + `/*.messages.jsonl, or the folder given as
--beam=DIR), read where they are, and recalls their questions. --copies N
ingests N copies of them instead, each in sessions of its own and 52 weeks
after the one before (written to a temporary folder): a real-text corpus
N times the size, such as 9,728 messages with --copies 4.

HUIMEM_* settings in the environment reach the children, e.g.
HUIMEM_PLUGINS_SUBPROCESS=true or HUIMEM_STORAGE_VECTOR_CACHE_MB=-1. The
embedder column says which embedder the home got: the default depends on
what is installed, so pin it (HUIMEM_EMBEDDING_NAME=hash) to compare runs.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runs < 1 || runs > 1000 {
				return cli.Usagef("cold: --runs %d is not between 1 and 1000", runs)
			}
			if warm < 0 || warm > 100000 {
				return cli.Usagef("cold: --warm %d is not between 0 and 100000", warm)
			}
			if copies < 1 || copies > 100 {
				return cli.Usagef("cold: --copies %d is not between 1 and 100", copies)
			}
			if copies > 1 && !cmd.Flags().Changed("beam") {
				return cli.Usagef("cold: --copies needs --beam")
			}
			type step struct {
				chunks  int
				files   []string
				queries []string
			}
			var steps []step
			if cmd.Flags().Changed("beam") {
				files, queries, err := beamInputs(beamDir)
				if err != nil {
					return err
				}
				if copies > 1 {
					dir, err := os.MkdirTemp("", "huimem-cold-copies-")
					if err != nil {
						return err
					}
					defer os.RemoveAll(dir)
					if files, err = cold.WriteCopies(files, dir, copies); err != nil {
						return err
					}
				}
				steps = append(steps, step{files: files, queries: queries})
			}
			if !cmd.Flags().Changed("beam") || cmd.Flags().Changed("chunks") || large {
				if !cmd.Flags().Changed("beam") || cmd.Flags().Changed("chunks") {
					list, err := chunkSizes("cold", sizes)
					if err != nil {
						return err
					}
					for _, n := range list {
						steps = append(steps, step{chunks: n})
					}
				}
				if large {
					steps = append(steps, step{chunks: 1_000_000})
				}
			}
			exe, err := huimemExe(exe)
			if err != nil {
				return err
			}
			var results []*cold.Result
			for _, s := range steps {
				dir, err := os.MkdirTemp("", "huimem-cold-")
				if err != nil {
					return err
				}
				r, err := cold.Run(cmd.Context(), cold.Options{Exe: exe, Chunks: s.chunks, Runs: runs, Dir: dir,
					Files: s.files, Queries: s.queries, Warm: warm, Evict: evict, Keep: keep != ""})
				if keep != "" && err == nil {
					err = os.MkdirAll(keep, 0o755)
				}
				if keep != "" && err == nil {
					err = os.Rename(filepath.Join(dir, "home"), filepath.Join(keep, fmt.Sprintf("home-%s-%d", r.Corpus, r.Chunks)))
				}
				os.RemoveAll(dir)
				if err != nil {
					return fmt.Errorf("cold at %d chunks: %w", s.chunks, err)
				}
				a.Logf("cold: %s, %d chunks done", r.Corpus, r.Chunks)
				results = append(results, r)
			}
			if asJSON {
				return render.JSON(a.Stdout, results)
			}
			printCold(a, results)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&sizes, "chunks", "10000,100000", "synthetic corpus sizes in chunks")
	f.BoolVar(&large, "large", false, "add the 1,000,000-chunk step")
	f.StringVar(&beamDir, "beam", defaultBeamDir, "ingest the BEAM chats in this folder instead (real data)")
	f.Lookup("beam").NoOptDefVal = defaultBeamDir
	f.IntVar(&copies, "copies", 1, "with --beam: ingest this many copies of the chats, each in sessions of its own")
	f.IntVar(&runs, "runs", 10, "one-shot recalls and gets to time at each size")
	f.IntVar(&warm, "warm", 0, "also time this many recalls over HTTP to one warm huimem serve (0: none)")
	f.StringVar(&keep, "keep", "", "move each home into this folder instead of deleting it, for profiling by hand")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	f.StringVar(&exe, "exe", "", "the huimem binary to measure (default the one next to huimem-bench, else on PATH), to compare two builds")
	f.BoolVar(&evict, "evict", false, "drop the binary (a copy) and the ingested home from the page cache, as after a reboot (Linux)")
	return cmd
}

// beamInputs lists the BEAM chats in dir and reads their questions, the
// recall queries.
func beamInputs(dir string) (files, queries []string, err error) {
	files, err = filepath.Glob(filepath.Join(dir, "*.messages.jsonl"))
	if err != nil || len(files) == 0 {
		return nil, nil, cli.Usagef("cold: --beam: no *.messages.jsonl in %s", dir)
	}
	for _, f := range files {
		qs, err := os.ReadFile(strings.TrimSuffix(f, ".messages.jsonl") + ".questions.jsonl")
		if err != nil {
			continue // questions are optional; the synthetic queries stand in
		}
		for i, line := range strings.Split(string(qs), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var q struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal([]byte(line), &q); err != nil {
				return nil, nil, fmt.Errorf("cold: %s:%d: %v", f, i+1, err)
			}
			if q.Query != "" {
				queries = append(queries, q.Query)
			}
		}
	}
	return files, queries, nil
}

func printCold(a *app, results []*cold.Result) {
	mib := func(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }
	w := a.Stdout
	fmt.Fprintln(w, "| corpus | embedder | chunks | ingest wall s | ingest CPU s | ingest peak RSS MiB | recall median ms (min..max) | recalls with hits | recall CPU ms | recall peak RSS MiB | get median ms (min..max) | get CPU ms | get peak RSS MiB | load avg |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.1f | %s | %.1f (%.1f..%.1f) | %d/%d | %.0f | %s | %.1f (%.1f..%.1f) | %.0f | %s | %.1f→%.1f |\n",
			r.Corpus, r.Embedder, r.Chunks,
			r.Ingest.WallMS/1000, r.Ingest.CPUMS/1000, mib(r.Ingest.PeakRSS),
			r.Recall.MedianMS, r.Recall.MinMS, r.Recall.MaxMS, r.RecallsFound, r.Recall.Runs, r.Recall.MedianCPUMS, mib(r.Recall.MaxPeakRSS),
			r.Get.MedianMS, r.Get.MinMS, r.Get.MaxMS, r.Get.MedianCPUMS, mib(r.Get.MaxPeakRSS),
			r.Load[0], r.Load[1])
	}
	if slices.ContainsFunc(results, func(r *cold.Result) bool { return r.Evicted }) {
		fmt.Fprintln(w, "\nThe binary (a copy) and the home were dropped from the page cache before the one-shot processes (--evict).")
	}
	if !slices.ContainsFunc(results, func(r *cold.Result) bool { return r.Warm != nil }) {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| corpus | chunks | warm serve recalls | p50 ms | p99 ms | serve CPU s | serve peak RSS MiB |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		if r.Warm != nil {
			fmt.Fprintf(w, "| %s | %d | %d | %.1f | %.1f | %.1f | %s |\n", r.Corpus, r.Chunks,
				r.Warm.Recalls, r.Warm.P50MS, r.Warm.P99MS, r.Warm.CPUMS/1000, mib(r.Warm.PeakRSS))
		}
	}
}
