package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/bench/loadtest"
	"github.com/huimemory/huimemory/internal/bench/perf"
	"github.com/huimemory/huimemory/internal/bench/pgload"
	"github.com/huimemory/huimemory/internal/bench/synth"
	"github.com/huimemory/huimemory/internal/cli"
	"github.com/huimemory/huimemory/internal/render"
)

// clusterReport is what `bench cluster --json` prints.
type clusterReport struct {
	Servers   int                 `json:"servers"`
	Killed    int                 `json:"killed"`
	Chunks    int                 `json:"prefill_chunks"`
	Sessions  int                 `json:"sessions"`
	Load      *loadtest.Report    `json:"load"`
	Integrity *loadtest.Integrity `json:"integrity"`
}

func (a *app) benchClusterCmd() *cobra.Command {
	var dsn, embedder, exe string
	var servers, kill, chunks, requests, clients, sessions int
	var share float64
	var asJSON, verbose bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "cluster --dsn DSN [--servers 3] [--kill 1] [--requests 10000] [--clients 32] [--json]",
		Short: "Load-test several `huimem serve` on one PostgreSQL, killing one with SIGKILL halfway",
		Long: `Fill the PostgreSQL database --dsn with a synthetic
corpus of --chunks turn chunks (content-keyed, so a second run adds
nothing), start --servers ` + "`huimem serve`" + ` processes on it (each with its
own home folder for transcripts, on a free loopback port), and send
--requests requests from --clients concurrent clients spread round robin
over them: --append-share appends into --sessions shared sessions, the
rest recalls. When half the requests have started, server --kill gets
SIGKILL (--kill -1: none); clients whose server fails (connection error
or 5xx) send the same request to the next server. Appends carry their own
time and ref, so a resent append is stored once.

Afterwards every acknowledged append must be in the export exactly once
and found by recall, and every session's anchor chain must be intact:
walked from the first chunk along next, prev mirrors next, the chunks hold
the session's messages in time order, and the chains hold every chunk the
load added. Reports ops/s and recall and append p50/p99 before and after
the kill. Exits 1 on any error or violation.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dsn == "" {
				dsn = os.Getenv("HUIMEM_STORAGE_POSTGRES_DSN")
			}
			if dsn == "" || servers < 1 || kill >= servers || chunks < 0 || requests < 2 || clients < 1 || clients > 1024 ||
				sessions < 1 || share <= 0 || share > 1 || timeout <= 0 {
				return cli.Usagef("cluster: want --dsn (or HUIMEM_STORAGE_POSTGRES_DSN), --servers >= 1, --kill below --servers, " +
					"--chunks >= 0, --requests >= 2, --clients 1..1024, --sessions >= 1, --append-share in (0, 1], --timeout > 0")
			}
			if embedder != "" {
				// The servers inherit it, and the prefill reads it.
				os.Setenv("HUIMEM_EMBEDDING_NAME", embedder)
			}
			ctx := cmd.Context()
			dir, err := os.MkdirTemp("", "huimem-cluster-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			if chunks > 0 {
				fmt.Fprintf(a.Stderr, "huimem-bench: cluster: filling the database with %d chunks\n", chunks)
				if err := a.fillDatabase(ctx, dsn, filepath.Join(dir, "prefill"), chunks); err != nil {
					return err
				}
			}
			exe, err := huimemExe(exe)
			if err != nil {
				return err
			}
			var logw io.Writer
			if verbose {
				logw = a.Stderr
			}
			fmt.Fprintf(a.Stderr, "huimem-bench: cluster: %d servers, %d clients, %d requests\n", servers, clients, requests)
			res, err := pgload.Run(ctx, pgload.Options{Bin: exe, DSN: dsn, Servers: servers, Dir: dir, Log: logw},
				loadtest.Options{Requests: requests, Clients: clients, AppendShare: share, Sessions: sessions, Seed: 1, Timeout: timeout}, kill)
			if err != nil {
				return fmt.Errorf("cluster: %w", err)
			}
			if asJSON {
				if err := render.JSON(a.Stdout, clusterReport{Servers: servers, Killed: kill, Chunks: chunks, Sessions: sessions,
					Load: res.Report, Integrity: res.Integrity}); err != nil {
					return err
				}
			} else {
				a.printCluster(res, servers, sessions, share)
			}
			if err := res.Err(); err != nil {
				return fmt.Errorf("cluster: %w", err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&exe, "exe", "", "the huimem binary to serve (default the one next to huimem-bench, else on PATH)")
	f.StringVar(&dsn, "dsn", "", "PostgreSQL database the servers share (default $HUIMEM_STORAGE_POSTGRES_DSN)")
	f.IntVar(&servers, "servers", 3, "huimem serve processes")
	f.IntVar(&kill, "kill", 1, "server (0-based) to SIGKILL when half the requests have started; -1 for none")
	f.IntVar(&chunks, "chunks", 3000, "turn chunks of a synthetic corpus to fill the database with first")
	f.IntVar(&requests, "requests", 10000, "requests in all")
	f.IntVar(&clients, "clients", 32, "concurrent clients")
	f.IntVar(&sessions, "sessions", 64, "sessions the appends are spread over, shared by all clients")
	f.Float64Var(&share, "append-share", 0.3, "share of appends; the rest are recalls")
	f.StringVar(&embedder, "embedder", "", "embedding.name for the fill and the servers (default: the configuration's)")
	f.DurationVar(&timeout, "timeout", 30*time.Minute, "stop the load after this long (an error)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&verbose, "verbose", false, "copy the servers' stderr to stderr")
	return cmd
}

// fillDatabase ingests a seeded synthetic corpus of n chunks into the
// PostgreSQL database dsn, with home as the local folder.
func (a *app) fillDatabase(ctx context.Context, dsn, home string, n int) error {
	cfg, err := a.LoadBenchConfig()
	if err != nil {
		return err
	}
	cfg.Storage.Home = home
	cfg.Storage.Backend = core.BackendPostgres
	cfg.Storage.Postgres.DSN = dsn
	e, err := a.OpenEngine(ctx, cfg, engine.Options{})
	if err != nil {
		return fmt.Errorf("opening %s: %w", dsn, err)
	}
	defer e.Close()
	msgs := synth.Corpus(synth.Options{Seed: 1, Pairs: n, Namespaces: perf.Namespaces[:1]})
	for start := 0; start < len(msgs); start += 5000 {
		if _, err := e.Ingest(ctx, msgs[start:min(start+5000, len(msgs))]); err != nil {
			return fmt.Errorf("filling the database: %w", err)
		}
	}
	return nil
}

func (a *app) printCluster(res *pgload.Result, servers, sessions int, share float64) {
	rep, in := res.Report, res.Integrity
	killed := "no server killed"
	if res.Killed >= 0 {
		killed = fmt.Sprintf("server %d killed with SIGKILL at half time", res.Killed)
	}
	w := a.Stdout
	fmt.Fprintf(w, "%d servers on one PostgreSQL (%d chunks before the load), %d clients, %d requests (%.0f%% recall, %.0f%% append into %d sessions); %s\n\n",
		servers, rep.BaseChunks, rep.Clients, rep.Requests, 100*(1-share), 100*share, sessions, killed)
	var b strings.Builder
	fmt.Fprintf(&b, "| phase | requests | seconds | ops/s | recall p50 / p99 | append p50 / p99 | errors | retries |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range rep.Phases {
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.0f | %.1f / %.1f ms | %.1f / %.1f ms | %d | %d |\n",
			p.Name, p.Requests, p.Seconds, p.RPS, p.Recall.P50, p.Recall.P99, p.Append.P50, p.Append.P99, p.Errors, p.Retries)
	}
	if len(rep.Phases) > 1 {
		fmt.Fprintf(&b, "| all | %d | %.1f | %.0f | %.1f / %.1f ms | %.1f / %.1f ms | %d | %d |\n",
			rep.Requests, rep.Seconds, rep.RPS, rep.Recall.P50, rep.Recall.P99, rep.Append.P50, rep.Append.P99, rep.Errors, rep.Retries)
	}
	fmt.Fprint(w, b.String())
	fmt.Fprintf(w, "\nappends: %d acknowledged, %d stored, %d lost, %d duplicated, %d altered, %d unknown; %d failed on every server (%d of them stored)\n",
		in.Acked, in.Stored, len(in.Lost), len(in.Duplicated), len(in.Altered), len(in.Unknown), len(rep.Failed), len(in.Unacked))
	fmt.Fprintf(w, "recall found %d of %d acknowledged appends\n", rep.Verified, len(rep.Acked))
	fmt.Fprintf(w, "anchor chains: %d sessions, %d chunks walked, the store grew by %d chunks; %d violations\n",
		in.Sessions, in.Chunks, in.ChunksAdded, len(in.Broken))
}
