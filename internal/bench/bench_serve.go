package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/bench/loadtest"
	"github.com/huimemory/huimemory/internal/bench/perf"
	"github.com/huimemory/huimemory/internal/bench/synth"
	"github.com/huimemory/huimemory/internal/cli"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *app) benchServeCmd() *cobra.Command {
	var chunks, requests, clients int
	var exe string
	var share float64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "serve [--chunks 10000] [--requests 20000] [--clients 32] [--json]",
		Short: "Load-test `huimem serve` on loopback: concurrent recalls and appends",
		Long: `Build a synthetic home of --chunks turn chunks, start a real ` + "`huimem serve`" + `
process on a free loopback port, and send --requests requests from
--clients concurrent clients (--append-share appends, the rest recalls).
Then check that every answered append is found again by a recall, stop
the server with SIGTERM, and report errors, requests per second and
p50/p99 latency. The load is bounded and stops by itself.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if chunks < 10 || requests < 1 || clients < 1 || clients > 1024 || share < 0 || share > 1 {
				return cli.Usagef("serve: want --chunks >= 10, --requests >= 1, --clients 1..1024, --append-share 0..1")
			}
			ctx := cmd.Context()
			dir, err := os.MkdirTemp("", "huimem-loadtest-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			home := filepath.Join(dir, "home")
			if err := a.buildHome(ctx, home, chunks); err != nil {
				return err
			}
			rep, err := runAgainstServer(ctx, exe, home, loadtest.Options{Requests: requests, Clients: clients, AppendShare: share, Seed: 1}, a.Stderr)
			if err != nil {
				return err
			}
			if asJSON {
				return render.JSON(a.Stdout, rep)
			}
			fmt.Fprintf(a.Stdout, "%d requests (%d recalls, %d appends) from %d clients on a %d-chunk home in %.1f s: %.0f requests/s\n",
				rep.Requests, rep.Recalls, rep.Appends, rep.Clients, chunks, rep.Seconds, rep.RPS)
			fmt.Fprintf(a.Stdout, "latency p50/p99: all %.2f/%.2f ms, recall %.2f/%.2f ms, append %.2f/%.2f ms\n",
				rep.All.P50, rep.All.P99, rep.Recall.P50, rep.Recall.P99, rep.Append.P50, rep.Append.P99)
			fmt.Fprintf(a.Stdout, "errors: %d; appends readable afterwards: %d of %d\n", rep.Errors, rep.Verified, rep.Appends)
			if rep.Errors > 0 || len(rep.Missing) > 0 {
				return fmt.Errorf("serve: %d errors (first: %s), %d appends missing", rep.Errors, rep.FirstError, len(rep.Missing))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&exe, "exe", "", "the huimem binary to serve (default the one next to huimem-bench, else on PATH)")
	f.IntVar(&chunks, "chunks", 10000, "turn chunks in the synthetic home")
	f.IntVar(&requests, "requests", 20000, "requests in all")
	f.IntVar(&clients, "clients", 32, "concurrent clients")
	f.Float64Var(&share, "append-share", 0.3, "share of appends; the rest are recalls")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// buildHome ingests a seeded synthetic corpus of n chunks into home.
func (a *app) buildHome(ctx context.Context, home string, n int) error {
	cfg, err := a.LoadBenchConfig()
	if err != nil {
		return err
	}
	cfg.Storage.Home = home
	e, err := a.OpenEngine(ctx, cfg, engine.Options{})
	if err != nil {
		return err
	}
	defer e.Close()
	msgs := synth.Corpus(synth.Options{Seed: 1, Pairs: n, Namespaces: perf.Namespaces[:1]})
	for start := 0; start < len(msgs); start += 20000 {
		if _, err := e.Ingest(ctx, msgs[start:min(start+20000, len(msgs))]); err != nil {
			return fmt.Errorf("building the home: %w", err)
		}
	}
	return nil
}

// runAgainstServer starts `huimem serve` on home as a child process on a
// free loopback port, runs the load, and stops the server with SIGTERM.
func runAgainstServer(ctx context.Context, exe, home string, o loadtest.Options, logw interface{ Write([]byte) (int, error) }) (*loadtest.Report, error) {
	exe, err := huimemExe(exe)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := exec.CommandContext(ctx, exe, "--home", home, "serve", "--addr", addr)
	srv.Stderr = logw
	srv.Env = append(os.Environ(), "HUIMEM_SERVER_TOKEN=")
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("starting huimem serve: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	o.URL = "http://" + addr
	if err := waitHealthy(o.URL, exited); err != nil {
		srv.Process.Kill()
		return nil, err
	}
	rep, err := loadtest.Run(ctx, o)
	srv.Process.Signal(syscall.SIGTERM)
	select {
	case werr := <-exited:
		if err == nil && werr != nil {
			err = fmt.Errorf("huimem serve exited badly after SIGTERM: %w", werr)
		}
	case <-time.After(time.Minute):
		srv.Process.Kill()
		err = fmt.Errorf("huimem serve did not stop within a minute of SIGTERM")
	}
	return rep, err
}

func waitHealthy(url string, exited chan error) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("huimem serve exited before it was ready: %v", err)
		default:
		}
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("huimem serve was not ready on %s within 2 minutes", url)
}
