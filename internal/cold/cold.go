// Package cold measures HuiMemory as agents that call it as a command see
// it: whole processes. It ingests a corpus with one `huimem ingest`
// process and then times one-shot `huimem recall` and `huimem get`
// processes, each a cold start, recording wall time and the peak RSS the
// kernel reports for each child (getrusage). `huimem bench cold` runs it.
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
	"syscall"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/perf"
	"github.com/huimemory/huimemory/internal/synth"
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
}

// Proc is what one child process cost.
type Proc struct {
	WallMS  float64 `json:"wall_ms"`
	CPUMS   float64 `json:"cpu_ms"`
	PeakRSS int64   `json:"peak_rss_bytes"`
}

// Result is one size's measurements.
type Result struct {
	Chunks   int   `json:"chunks"`
	Messages int   `json:"messages"`
	Ingest   Proc  `json:"ingest"`
	Recall   Stats `json:"recall"`
	Get      Stats `json:"get"`
}

// Stats summarises repeated one-shot processes.
type Stats struct {
	Runs       int     `json:"runs"`
	MedianMS   float64 `json:"median_ms"`
	MinMS      float64 `json:"min_ms"`
	MaxMS      float64 `json:"max_ms"`
	MedianRSS  int64   `json:"median_peak_rss_bytes"`
	MaxPeakRSS int64   `json:"max_peak_rss_bytes"`
}

// Run builds the home with one ingest process and times the one-shot
// commands.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Runs <= 0 {
		o.Runs = 10
	}
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
	home := filepath.Join(o.Dir, "home")
	res := &Result{Chunks: o.Chunks, Messages: len(msgs)}
	var err error
	if res.Ingest, _, err = o.run(ctx, "--home", home, "ingest", "--quiet", data); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	queries := perf.QueryTexts(o.Runs + 1)
	// One untimed recall: the first process after an ingest may find work
	// (an index merge) that is not a recall's.
	if _, _, err := o.run(ctx, "--home", home, "recall", "-k", "10", queries[o.Runs]); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
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
	return res, nil
}

// run runs one child process and returns its cost and stdout.
func (o Options) run(ctx context.Context, args ...string) (Proc, []byte, error) {
	c := exec.CommandContext(ctx, o.Exe, args...)
	c.Env = append(os.Environ(), o.Env...)
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
		p.PeakRSS = ru.Maxrss * 1024 // kilobytes on Linux
		p.CPUMS = float64((ru.Utime.Nano() + ru.Stime.Nano()) / 1e6)
	}
	return p, out.Bytes(), nil
}

func stats(ps []Proc) Stats {
	s := Stats{Runs: len(ps)}
	if len(ps) == 0 {
		return s
	}
	walls := make([]float64, len(ps))
	rss := make([]int64, len(ps))
	for i, p := range ps {
		walls[i], rss[i] = p.WallMS, p.PeakRSS
	}
	slices.Sort(walls)
	slices.Sort(rss)
	s.MedianMS, s.MinMS, s.MaxMS = walls[len(walls)/2], walls[0], walls[len(walls)-1]
	s.MedianRSS, s.MaxPeakRSS = rss[len(rss)/2], rss[len(rss)-1]
	return s
}
