package cold

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/bench/perf"
	"github.com/huimemory/huimemory/internal/bench/synth"
)

// Options shape a run.
type Options struct {
	// Exe is the huimem binary to run.
	Exe string
	// Chunks is the corpus size in exchange pairs (turn chunks).
	Chunks int
	// Runs is how many one-shot recalls and gets to time (default 10).
	Runs int
	// Dir is a scratch folder.
	Dir string
	// Env is added to each child's environment (HUIMEM_* settings).
	Env []string
	// Messages, when set, is ingested instead of a synthetic corpus.
	Messages []core.Message
	// Files, when set, are chat files (generic JSONL) ingested as they
	// are, in place of a synthetic corpus; Queries then supplies the
	// recall queries.
	Files []string
	// Queries are the recall queries, used in turn; empty means the
	// synthetic ones of internal/perf.
	Queries []string
	// Keep leaves the home in Dir/home for a profile by hand.
	Keep bool
	// Warm, when above 0, also times that many recalls over HTTP to one
	// `huimem serve` on the home, after the one-shot processes.
	Warm int
	// Evict runs a copy of Exe installed in Dir and dropped from the page
	// cache, as a binary read from disk rather than one the linker has
	// just written, and drops the home from the page cache after the
	// ingest, as a home written before the last reboot (see evict.go):
	// Linux only.
	Evict bool
}

// Proc is what one child process cost. CPU time is user plus system, of
// the child and the children it waited for. PeakRSS is the child's own
// peak (VmHWM, which huimem writes to HUIMEM_PEAK_RSS_FILE at exit; see
// cmd/huimem/main.go), or getrusage's ru_maxrss for a binary that does not
// write it, which on Linux also counts the measuring process's own peak:
// RSSFromRusage says so.
type Proc struct {
	WallMS  float64 `json:"wall_ms"`
	CPUMS   float64 `json:"cpu_ms"`
	PeakRSS int64   `json:"peak_rss_bytes"`
	// RSSFromRusage is set when PeakRSS comes from getrusage.
	RSSFromRusage bool `json:"rss_from_rusage,omitempty"`
}

// Result is one size's measurements.
type Result struct {
	// Corpus says what was ingested: "synthetic" or "beam".
	Corpus   string `json:"corpus"`
	Chunks   int    `json:"chunks"`
	Messages int    `json:"messages"`
	// Embedder is the embedder the home's vectors come from ("hash",
	// "use-lite", ...): the default depends on what is installed, and it
	// decides the cost of a recall (HUIMEM_EMBEDDING_NAME=hash pins it).
	Embedder string `json:"embedder"`
	Ingest   Proc   `json:"ingest"`
	Recall   Stats  `json:"recall"`
	// RecallsFound is how many of the timed recalls returned a hit: one
	// that the relevance floor empties renders nothing and costs less.
	RecallsFound int   `json:"recalls_with_hits"`
	Get          Stats `json:"get"`
	// Warm is the server run of Options.Warm, nil without one.
	Warm *WarmStats `json:"warm,omitempty"`
	// Load is the 1-minute load average before and after the run.
	Load [2]float64 `json:"load_avg"`
	// Evicted is set when the processes ran a copy of the binary read
	// back from disk (Options.Evict).
	Evicted bool `json:"binary_evicted,omitempty"`
}

// Stats summarises repeated one-shot processes.
type Stats struct {
	Runs        int     `json:"runs"`
	MedianMS    float64 `json:"median_ms"`
	MinMS       float64 `json:"min_ms"`
	MaxMS       float64 `json:"max_ms"`
	MedianCPUMS float64 `json:"median_cpu_ms"`
	MedianRSS   int64   `json:"median_peak_rss_bytes"`
	MaxPeakRSS  int64   `json:"max_peak_rss_bytes"`
	// RSSFromRusage is set when any run's peak RSS came from getrusage
	// (see Proc).
	RSSFromRusage bool `json:"rss_from_rusage,omitempty"`
}

// Run builds the home with one ingest process and times the one-shot
// commands.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Runs <= 0 {
		o.Runs = 10
	}
	home := filepath.Join(o.Dir, "home")
	res := &Result{Corpus: "synthetic", Chunks: o.Chunks, Load: [2]float64{LoadAvg(), 0}, Evicted: o.Evict}
	if o.Evict {
		exe, err := installEvicted(o.Exe, o.Dir)
		if err != nil {
			return nil, err
		}
		o.Exe = exe
	}
	inputs := o.Files
	if len(inputs) > 0 {
		res.Corpus = "beam"
		for _, f := range inputs {
			n, err := countLines(f)
			if err != nil {
				return nil, err
			}
			res.Messages += n
		}
	} else {
		msgs := o.Messages
		if msgs == nil {
			msgs = synth.Corpus(synth.Options{Seed: 1, Pairs: o.Chunks, Namespaces: perf.Namespaces[:1]})
		}
		data := filepath.Join(o.Dir, "data")
		if err := os.MkdirAll(data, 0o700); err != nil {
			return nil, err
		}
		if _, err := perf.WriteFiles(data, msgs, 100000); err != nil {
			return nil, err
		}
		res.Messages = len(msgs)
		inputs = []string{data}
	}
	var err error
	if res.Ingest, _, err = o.run(ctx, append([]string{"--home", home, "ingest", "--quiet"}, inputs...)...); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if o.Evict {
		if err := evictTree(home); err != nil {
			return nil, err
		}
	}
	chunks, embedder, err := o.homeStats(ctx, home)
	if err != nil {
		return nil, err
	}
	res.Embedder = embedder
	if len(o.Files) > 0 {
		res.Chunks = chunks
	}
	queries := o.Queries
	if len(queries) == 0 {
		queries = perf.QueryTexts(o.Runs + 1)
	}
	for len(queries) < o.Runs+1 {
		queries = append(queries, queries...)
	}
	// One untimed pass over the queries: the first process after an
	// ingest may find work (an index merge) that is not a recall's, and
	// after Evict the pages the recalls need come back from disk first,
	// as they would once on a machine that has been up a while.
	for i := range o.Runs + 1 {
		if _, _, err := o.run(ctx, "--home", home, "recall", "-k", "10", queries[i]); err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
	}
	var recalls, gets []Proc
	var ids []string
	for i := range o.Runs {
		p, out, err := o.run(ctx, "--home", home, "recall", "--json", "-k", "10", queries[i])
		if err != nil {
			return nil, fmt.Errorf("recall: %w", err)
		}
		recalls = append(recalls, p)
		var r struct {
			Results []struct {
				ID string `json:"id"`
			} `json:"results"`
		}
		if json.Unmarshal(out, &r) == nil && len(r.Results) > 0 {
			ids = append(ids, r.Results[0].ID)
			res.RecallsFound++
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no recall found anything to get")
	}
	for i := range o.Runs {
		p, _, err := o.run(ctx, "--home", home, "get", "--context", "1", ids[i%len(ids)])
		if err != nil {
			return nil, fmt.Errorf("get: %w", err)
		}
		gets = append(gets, p)
	}
	res.Recall, res.Get = stats(recalls), stats(gets)
	if o.Warm > 0 {
		if res.Warm, err = o.warm(ctx, home, queries, o.Warm); err != nil {
			return nil, err
		}
	}
	res.Load[1] = LoadAvg()
	return res, nil
}

// homeStats asks `huimem stats --json` how many chunks the home holds and
// which embedder made its vectors.
func (o Options) homeStats(ctx context.Context, home string) (int, string, error) {
	_, out, err := o.run(ctx, "--home", home, "stats", "--json")
	if err != nil {
		return 0, "", fmt.Errorf("stats: %w", err)
	}
	return parseStats(out)
}

// parseStats reads the chunk count and the embedder's name from the
// output of `huimem stats --json`.
func parseStats(out []byte) (int, string, error) {
	var st struct {
		Chunks   int `json:"chunks"`
		Embedder struct {
			Name string `json:"name"`
		} `json:"embedder"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return 0, "", fmt.Errorf("stats: %w", err)
	}
	return st.Chunks, st.Embedder.Name, nil
}

// countLines counts the non-empty lines of a JSONL file.
func countLines(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	n := 0
	for line := range bytes.Lines(data) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n, nil
}

// LoadAvg returns the 1-minute load average, or -1 where /proc/loadavg
// cannot be read.
func LoadAvg() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// run runs one child process and returns its cost and stdout.
func (o Options) run(ctx context.Context, args ...string) (Proc, []byte, error) {
	return o.runIn(ctx, "", nil, args...)
}

// runIn is run in folder dir ("" for this process's), with stdin.
func (o Options) runIn(ctx context.Context, dir string, stdin []byte, args ...string) (Proc, []byte, error) {
	c := exec.CommandContext(ctx, o.Exe, args...)
	c.Dir = dir
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	rssFile := filepath.Join(o.Dir, "peak-rss")
	os.Remove(rssFile)
	c.Env = append(append(os.Environ(), o.Env...), "HUIMEM_PEAK_RSS_FILE="+rssFile)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	t0 := time.Now()
	err := c.Run()
	wall := time.Since(t0)
	if err != nil {
		return Proc{}, nil, fmt.Errorf("%v: %w: %s", args, err, bytes.TrimSpace(errb.Bytes()))
	}
	p := Proc{WallMS: float64(wall.Microseconds()) / 1000}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.PeakRSS, p.RSSFromRusage = ru.Maxrss*1024, true // kilobytes on Linux
		p.CPUMS = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
	}
	if n, ok := readPeakRSS(rssFile); ok {
		p.PeakRSS, p.RSSFromRusage = n, false
	}
	return p, out.Bytes(), nil
}

// readPeakRSS reads the peak RSS a child wrote to path at exit.
func readPeakRSS(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n, err == nil && n > 0
}

func stats(ps []Proc) Stats {
	s := Stats{Runs: len(ps)}
	if len(ps) == 0 {
		return s
	}
	walls := make([]float64, len(ps))
	cpus := make([]float64, len(ps))
	rss := make([]int64, len(ps))
	for i, p := range ps {
		walls[i], cpus[i], rss[i] = p.WallMS, p.CPUMS, p.PeakRSS
		s.RSSFromRusage = s.RSSFromRusage || p.RSSFromRusage
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	slices.Sort(rss)
	s.MedianCPUMS = cpus[len(cpus)/2]
	s.MedianMS, s.MinMS, s.MaxMS = walls[len(walls)/2], walls[0], walls[len(walls)-1]
	s.MedianRSS, s.MaxPeakRSS = rss[len(rss)/2], rss[len(rss)-1]
	return s
}
