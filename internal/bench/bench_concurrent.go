package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/internal/cli"
)

// concurrentOptions describe one run of the many-processes test:
// readers and writers, each a loop of whole huimem processes on one
// home.
type concurrentOptions struct {
	Exe      string        // the huimem binary to run
	Home     string        // a home; filled with a seed file first
	Readers  int           // processes recalling at once
	Writers  int           // processes ingesting at once
	Duration time.Duration // how long the loops run
	Messages int           // messages per ingested file
	Seed     uint64
}

// concurrentResult is what the run measured.
type concurrentResult struct {
	Readers, Writers      int
	Seconds               float64
	Reads, Writes         int
	ReadsPerSec           float64 `json:"reads_per_sec"`
	WritesPerSec          float64 `json:"writes_per_sec"`
	MessagesWritten       int     `json:"messages_written"`
	ReadChecks            int     `json:"read_checks"` // reads of a finished write's token
	WriterWaitP50Ms       float64 `json:"writer_wait_p50_ms"`
	WriterWaitP99Ms       float64 `json:"writer_wait_p99_ms"`
	WriterWaitMaxMs       float64 `json:"writer_wait_max_ms"`
	ExclusiveWaitP99Ms    float64 `json:"exclusive_wait_p99_ms"`
	ReadP50Ms, ReadP99Ms  float64
	Failures              []string `json:"failures,omitempty"`
	MissingAtEnd          []string `json:"missing_at_end,omitempty"`
	LoadBefore, LoadAfter string
}

// runConcurrent runs the loops until o.Duration has passed, then checks
// that every message written is recallable. Failures are collected, not
// returned: the error is for a run that could not be made at all.
func runConcurrent(ctx context.Context, o concurrentOptions) (*concurrentResult, error) {
	res := &concurrentResult{Readers: o.Readers, Writers: o.Writers, LoadBefore: loadAvg()}
	work := filepath.Join(o.Home, "..", filepath.Base(o.Home)+"-inputs")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "HUIMEM_TEST_LOCK_STATS=1")
	cmd := func(args ...string) (string, string, int, time.Duration) {
		c := exec.CommandContext(ctx, o.Exe, append([]string{"--home", o.Home}, args...)...)
		c.Env = env
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		start := time.Now()
		err := c.Run()
		d := time.Since(start)
		code := 0
		if err != nil {
			code = -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
		}
		return out.String(), errb.String(), code, d
	}
	writeFile := func(name string, w, i int) ([]string, error) {
		var b strings.Builder
		var toks []string
		for j := range o.Messages {
			tok := fmt.Sprintf("kw%dn%dm%d", w, i, j)
			toks = append(toks, tok)
			line, _ := json.Marshal(map[string]string{
				"session": fmt.Sprintf("w%d-%d", w, i),
				"time":    time.Date(2026, 3, 1+i%20, 9, j%60, w, 0, time.UTC).Format(time.RFC3339),
				"role":    []string{"user", "assistant"}[j%2],
				"text":    fmt.Sprintf("note %s about topic %d and the deploy", tok, j%7),
			})
			b.Write(line)
			b.WriteByte('\n')
		}
		return toks, os.WriteFile(name, []byte(b.String()), 0o644)
	}
	// Seed the home so that readers have something from the start.
	seed := filepath.Join(work, "seed.jsonl")
	seedToks, err := writeFile(seed, 99, 0)
	if err != nil {
		return nil, err
	}
	if _, errs, code, _ := cmd("ingest", seed); code != 0 {
		return nil, fmt.Errorf("seeding %s: exit %d: %s", o.Home, code, errs)
	}
	var mu sync.Mutex
	done := slices.Clone(seedToks)
	var writerWaits, exclWaits, readTimes []time.Duration
	fail := func(format string, args ...any) {
		mu.Lock()
		res.Failures = append(res.Failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	stop := time.Now().Add(o.Duration)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range o.Writers {
		wg.Go(func() {
			for i := 0; time.Now().Before(stop); i++ {
				name := filepath.Join(work, fmt.Sprintf("w%d-%d.jsonl", w, i))
				toks, err := writeFile(name, w, i)
				if err != nil {
					fail("writer %d: %v", w, err)
					return
				}
				_, errs, code, _ := cmd("ingest", name)
				mu.Lock()
				res.Writes++
				for _, line := range strings.Split(errs, "\n") {
					f := strings.Fields(line)
					if len(f) == 4 && f[1] == "lock-wait" {
						us, _ := strconv.Atoi(f[3])
						if f[2] == "writer" {
							writerWaits = append(writerWaits, time.Duration(us)*time.Microsecond)
						} else {
							exclWaits = append(exclWaits, time.Duration(us)*time.Microsecond)
						}
					}
				}
				if code == 0 {
					done = append(done, toks...)
					res.MessagesWritten += len(toks)
				}
				mu.Unlock()
				if code != 0 {
					fail("ingest %s: exit %d: %s", filepath.Base(name), code, strings.TrimSpace(errs))
				}
			}
		})
	}
	for r := range o.Readers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(o.Seed, uint64(r)))
			for time.Now().Before(stop) {
				mu.Lock()
				tok := done[rng.IntN(len(done))]
				mu.Unlock()
				var out, errs string
				var code int
				var d time.Duration
				check := rng.IntN(2) == 0
				if check {
					out, errs, code, d = cmd("recall", tok, "-k", "1", "--json")
				} else {
					out, errs, code, d = cmd("recall", "deploy topic", "-k", "5")
				}
				mu.Lock()
				res.Reads++
				readTimes = append(readTimes, d)
				if check {
					res.ReadChecks++
				}
				mu.Unlock()
				switch {
				case code != 0:
					fail("recall: exit %d: %s", code, strings.TrimSpace(errs))
				case check && !strings.Contains(out, tok):
					fail("recall %s: a finished write is not found", tok)
				}
			}
		})
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	res.LoadAfter = loadAvg()
	res.ReadsPerSec = float64(res.Reads) / res.Seconds
	res.WritesPerSec = float64(res.Writes) / res.Seconds
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	res.WriterWaitP50Ms, res.WriterWaitP99Ms, res.WriterWaitMaxMs = ms(pct(writerWaits, 50)), ms(pct(writerWaits, 99)), ms(pct(writerWaits, 100))
	res.ExclusiveWaitP99Ms = ms(pct(exclWaits, 99))
	res.ReadP50Ms, res.ReadP99Ms = ms(pct(readTimes, 50)), ms(pct(readTimes, 99))
	// Every message written is recallable: one batch recall, one process.
	var q bytes.Buffer
	for _, tok := range done {
		line, _ := json.Marshal(map[string]any{"query": tok, "top_k": 1})
		q.Write(line)
		q.WriteByte('\n')
	}
	qfile := filepath.Join(work, "queries.jsonl")
	if err := os.WriteFile(qfile, q.Bytes(), 0o644); err != nil {
		return nil, err
	}
	out, errs, code, _ := cmd("recall", "--json", "--batch", qfile)
	if code != 0 {
		fail("final batch recall: exit %d: %s", code, strings.TrimSpace(errs))
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for i := 0; sc.Scan(); i++ {
		if i < len(done) && !strings.Contains(sc.Text(), done[i]) {
			res.MissingAtEnd = append(res.MissingAtEnd, done[i])
		}
	}
	return res, nil
}

// pct returns the p-th percentile of ds (nearest rank); 0 for none.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(i-1, len(s)-1))]
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

func (a *app) benchConcurrentCmd() *cobra.Command {
	o := concurrentOptions{Readers: 16, Writers: 2, Duration: time.Minute, Messages: 20, Seed: 1}
	var asJSON bool
	var keep string
	cmd := &cobra.Command{
		Use:   "concurrent [--readers 16] [--writers 2] [--duration 1m]",
		Short: "Many huimem processes on one home: recalls and ingests at once",
		Long: `Run --readers loops of one-shot "huimem recall" processes and --writers
loops of one-shot "huimem ingest" processes (each a new file of --messages
messages with unique words) on one scratch home for --duration. Half of the
recalls look for a word of a finished ingest and must find it. At the end,
every message written must be recallable. Prints operations per second,
recall latency, the wait for the writer lock (p50, p99, max) and every
failure; exits with status 1 if anything failed.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := huimemExe(o.Exe)
			if err != nil {
				return err
			}
			o.Exe = exe
			dir := keep
			if dir == "" {
				tmp, err := os.MkdirTemp("", "huimem-concurrent-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				dir = tmp
			}
			o.Home = filepath.Join(dir, "home")
			res, err := runConcurrent(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(a.Stdout)
				enc.SetIndent("", "  ")
				enc.Encode(res)
			} else {
				printConcurrent(a, res)
			}
			if n := len(res.Failures) + len(res.MissingAtEnd); n > 0 {
				return fmt.Errorf("concurrent: %d failures", n)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Readers, "readers", o.Readers, "recall loops")
	f.IntVar(&o.Writers, "writers", o.Writers, "ingest loops")
	f.DurationVar(&o.Duration, "duration", o.Duration, "how long the loops run")
	f.IntVar(&o.Messages, "messages", o.Messages, "messages per ingested file")
	f.StringVar(&o.Exe, "exe", "", "the huimem binary to run (default the one next to huimem-bench, else on PATH)")
	f.StringVar(&keep, "keep", "", "run in this folder and keep it")
	f.BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

func printConcurrent(a *app, r *concurrentResult) {
	fmt.Fprintf(a.Stdout, "%d readers, %d writers, %.1f s (load %s -> %s)\n", r.Readers, r.Writers, r.Seconds, r.LoadBefore, r.LoadAfter)
	fmt.Fprintf(a.Stdout, "recalls: %d (%.1f/s), p50 %.0f ms, p99 %.0f ms; %d checked a finished write\n", r.Reads, r.ReadsPerSec, r.ReadP50Ms, r.ReadP99Ms, r.ReadChecks)
	fmt.Fprintf(a.Stdout, "ingests: %d (%.2f/s), %d messages\n", r.Writes, r.WritesPerSec, r.MessagesWritten)
	fmt.Fprintf(a.Stdout, "writer lock wait: p50 %.1f ms, p99 %.1f ms, max %.1f ms; readers-let-go wait p99 %.1f ms\n", r.WriterWaitP50Ms, r.WriterWaitP99Ms, r.WriterWaitMaxMs, r.ExclusiveWaitP99Ms)
	fmt.Fprintf(a.Stdout, "failures: %d; missing at the end: %d\n", len(r.Failures), len(r.MissingAtEnd))
	for i, f := range r.Failures {
		if i == 10 {
			fmt.Fprintf(a.Stdout, "  ... and %d more\n", len(r.Failures)-10)
			break
		}
		fmt.Fprintf(a.Stdout, "  %s\n", f)
	}
}
