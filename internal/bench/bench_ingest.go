package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/internal/bench/perf"
	"github.com/huimemory/huimemory/internal/cli"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *app) benchIngestCmd() *cobra.Command {
	var mb, formatList, layoutList, dir, exe string
	var keep, asJSON bool
	var batch int
	cmd := &cobra.Command{
		Use:   "ingest [--mb 75,150,300] [--formats jsonl,chatgpt] [--layout file,folder] [--json]",
		Short: "Ingest generated chat exports of doubling sizes with whole processes: MB/s, messages/s, peak RSS",
		Long: `Generate a seeded synthetic export of each size in --mb (megabytes) and
each format in --formats (jsonl: HuiMemory's JSONL; chatgpt: a ChatGPT
conversations.json), ingest it into a new home with one "huimem ingest"
process, and report wall and CPU time, MB/s, messages/s, the peak RSS
the kernel reports for the process (getrusage), and the largest
anonymous part of it seen (RssAnon, sampled every 100 ms on Linux): the
process's own memory, without the pages of the store's and the index's
files it maps, which the kernel counts in the RSS but keeps in the page
cache when the process lets them go. With sizes that double, a flat
peak shows that memory does not grow with the file.

--layout says how the messages are laid out: file (one export file) and
folder (the same messages, one file per session, in a folder that one
"huimem ingest FOLDER" walks). With both, each folder row is followed
by the ratio of its wall time and peak RSS to the file's.

The files and homes go into --dir (default: a new temporary folder) and
are removed after each step unless --keep is set. Heavy: 300 MB is about
1.5 million messages. --exe measures another build (A/B).`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var sizes []int64
			for _, f := range strings.Split(mb, ",") {
				n, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
				if err != nil || n <= 0 || n > 100000 {
					return cli.Usagef("ingest: --mb %q: want sizes in megabytes, such as 75,150,300", mb)
				}
				sizes = append(sizes, int64(n*(1<<20)))
			}
			fmts := strings.Split(formatList, ",")
			for _, f := range fmts {
				if f != "jsonl" && f != "chatgpt" {
					return cli.Usagef("ingest: --formats %q: want jsonl, chatgpt or both", formatList)
				}
			}
			layouts := strings.Split(layoutList, ",")
			for _, l := range layouts {
				if !slices.Contains(perf.ExportLayouts, l) {
					return cli.Usagef("ingest: --layout %q: want file, folder or both", layoutList)
				}
			}
			exe, err := huimemExe(exe)
			if err != nil {
				return err
			}
			if dir == "" {
				d, err := os.MkdirTemp("", "huimem-bench-ingest-")
				if err != nil {
					return err
				}
				if !keep {
					defer os.RemoveAll(d)
				}
				dir = d
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("ingest: --dir: %w", err)
			}
			var extra []string
			if batch > 0 {
				extra = append(extra, "--batch", strconv.Itoa(batch))
			}
			var runs []*perf.IngestRun
			for _, f := range fmts {
				for _, size := range sizes {
					var file *perf.IngestRun
					for _, l := range layouts {
						r, err := perf.RunIngest(cmd.Context(), exe, dir, f, l, size, keep, nil, extra...)
						if err != nil {
							return err
						}
						runs = append(runs, r)
						if l == "file" {
							file = r
						}
						if !asJSON {
							printIngestRun(a, r, len(runs) == 1)
							if l == "folder" && file != nil {
								printIngestRatio(a, r, file)
							}
						}
					}
				}
			}
			if asJSON {
				render.JSON(a.Stdout, runs)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&mb, "mb", "75,150,300", "export sizes in megabytes, comma-separated")
	f.StringVar(&formatList, "formats", "jsonl,chatgpt", "formats to generate: jsonl, chatgpt")
	f.StringVar(&layoutList, "layout", "file", "layouts to ingest: file (one export), folder (one file per session)")
	f.StringVar(&dir, "dir", "", "folder for the files and homes (default: a temporary folder)")
	f.StringVar(&exe, "exe", "", "the huimem binary to measure (default the one next to huimem-bench, else on PATH)")
	f.BoolVar(&keep, "keep", false, "keep the generated files and homes")
	f.IntVar(&batch, "batch", 0, "pass --batch to the ingest (0: its default)")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	return cmd
}

func printIngestRun(a *app, r *perf.IngestRun, header bool) {
	if header {
		fmt.Fprintln(a.Stdout, "| format | layout | size | files | messages | wall | CPU | MB/s | messages/s | peak RSS | of it anonymous | load |")
		fmt.Fprintln(a.Stdout, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	}
	anon := "–"
	if r.PeakAnon > 0 {
		anon = fmt.Sprintf("%.0f MiB", float64(r.PeakAnon)/(1<<20))
	}
	fmt.Fprintf(a.Stdout, "| %s | %s | %.0f MB | %d | %d | %.1f s | %.1f s | %.2f | %.0f | %.0f MiB | %s | %.1f→%.1f |\n",
		r.Format, r.Layout, float64(r.Bytes)/(1<<20), r.Files, r.Messages, r.WallS, r.CPUS, r.MBPerS, r.MsgPerS, float64(r.PeakRSS)/(1<<20), anon, r.Load[0], r.Load[1])
}

// printIngestRatio prints the row comparing a folder run with the file
// run of the same messages.
func printIngestRatio(a *app, folder, file *perf.IngestRun) {
	fmt.Fprintf(a.Stdout, "| %s | folder ÷ file | | | | %.2f× | %.2f× | | | %.2f× | | |\n",
		folder.Format, folder.WallS/file.WallS, folder.CPUS/max(file.CPUS, 1e-9), float64(folder.PeakRSS)/float64(max(file.PeakRSS, 1)))
}
