// Package perf is HuiMemory's performance suite: it generates a synthetic
// corpus (internal/synth: mixed Chinese and English turns, several
// namespaces, sessions over a year), ingests it through the same JSONL path
// a user would, and measures ingest throughput, recall latency (plain,
// scoped to one week, and a progressive scan) at p50 and p99,
// recall_by_id latency, disk bytes per chunk and peak memory.
package perf

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/bench/synth"
	"github.com/huimemory/huimemory/plugins/host"
	"github.com/huimemory/huimemory/timeparse"
)

// Options tune [Run].
type Options struct {
	// Chunks is the corpus size in turn chunks (exchange pairs).
	Chunks int
	// Queries is how many recalls of each kind to time.
	Queries int
	// Dir is a scratch directory for the home and the JSONL files.
	Dir string
	// Config is the engine configuration; its home is replaced.
	Config core.Config
	// Logf reports progress.
	Logf func(format string, args ...any)
}

// Result holds the figures of one run.
type Result struct {
	Chunks       int                `json:"chunks"`
	Messages     int                `json:"messages"`
	Embedder     string             `json:"embedder"`
	IngestSec    float64            `json:"ingest_seconds"`
	ChunksPerSec float64            `json:"ingest_chunks_per_second"`
	Latency      map[string]Latency `json:"latency"`
	StoreBytes   int64              `json:"store_bytes"`
	IndexBytes   int64              `json:"index_bytes"`
	FilesBytes   int64              `json:"sessions_bytes"`
	PeakRSS      int64              `json:"peak_rss_bytes"`
}

// Latency is a latency distribution in milliseconds.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	// Found is the share of the recalls that returned at least one hit:
	// a recall the relevance floor empties skips the rendering and the
	// neighbours, so a latency means little without it.
	Found float64 `json:"found,omitempty"`
}

// Namespaces the corpus is spread over; queries run in the first.
var Namespaces = []string{"", "alice", "bob", "carol"}

// Run builds a home of o.Chunks chunks and measures it.
func Run(ctx context.Context, o Options) (*Result, error) {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if o.Queries == 0 {
		o.Queries = 200
	}
	start := time.Date(2025, 12, 1, 9, 0, 0, 0, time.FixedZone("CST", 8*3600))
	span := 365 * 24 * time.Hour
	msgs := synth.Corpus(synth.Options{Seed: 1, Pairs: o.Chunks, Namespaces: Namespaces, Start: start, Span: span})
	files, err := writeFiles(o.Dir, msgs, 100000)
	if err != nil {
		return nil, err
	}
	cfg := o.Config
	cfg.Storage.Home = filepath.Join(o.Dir, "home")
	e, err := host.Open(ctx, cfg, engine.Options{Logf: logf}, host.Options{})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	info := e.EmbedderInfo()
	res := &Result{Chunks: o.Chunks, Messages: len(msgs), Latency: map[string]Latency{},
		Embedder: fmt.Sprintf("%s/%d", info.Name, info.Dim)}
	t0 := time.Now()
	// As `huimem ingest` does: the store's compaction and the index merge
	// once, after the last file, and inside the timed ingest.
	base := e.TidyBase()
	for i, f := range files {
		if _, err := e.IngestFile(ctx, f, engine.FileOptions{DeferTidy: true}); err != nil {
			return nil, err
		}
		logf("perf: ingested file %d of %d (%s)", i+1, len(files), time.Since(t0).Round(time.Second))
	}
	if _, _, err := e.Tidy(ctx, base); err != nil {
		return nil, err
	}
	res.IngestSec = time.Since(t0).Seconds()
	res.ChunksPerSec = float64(o.Chunks) / res.IngestSec

	now := start.Add(span)
	queries := queryTexts(o.Queries)
	kinds := []struct {
		name string
		q    func(i int) core.Query
	}{
		{"plain", func(i int) core.Query { return core.Query{Text: queries[i], Now: now, NoTime: true} }},
		{"week", func(i int) core.Query {
			w := timeparse.WeekOf(now.AddDate(0, 0, -7*(1+i%40)))
			s, b := w.Range(now.Location())
			return core.Query{Text: queries[i], Now: now, Since: s, Before: b, NoTime: true}
		}},
		{"progressive", func(i int) core.Query { return core.Query{Text: "前段时间 " + queries[i], Now: now} }},
	}
	// A running server has loaded what it keeps in memory.
	if err := e.Warm(ctx); err != nil {
		return nil, err
	}
	var ids []string
	for _, k := range kinds {
		// One untimed round warms the caches, as a running server's are.
		for i := 0; i < min(20, o.Queries); i++ {
			if _, err := e.Recall(ctx, k.q(i)); err != nil {
				return nil, err
			}
		}
		var lat []time.Duration
		found := 0
		for i := 0; i < o.Queries; i++ {
			q := k.q(i)
			t := time.Now()
			r, err := e.Recall(ctx, q)
			if err != nil {
				return nil, err
			}
			lat = append(lat, time.Since(t))
			if len(r.Hits) > 0 {
				found++
				if k.name == "plain" {
					ids = append(ids, r.Hits[0].ID)
				}
			}
		}
		l := summarize(lat)
		l.Found = float64(found) / float64(len(lat))
		res.Latency[k.name] = l
		logf("perf: %s recall p50 %.2f ms, %.0f%% found something", k.name, l.P50, 100*l.Found)
	}
	var lat []time.Duration
	for i := 0; i < o.Queries && len(ids) > 0; i++ {
		t := time.Now()
		if _, err := e.RecallByID(ctx, "", ids[i%len(ids)], 2); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t))
	}
	res.Latency["by_id"] = summarize(lat)
	st, err := e.Stats(ctx)
	if err != nil {
		return nil, err
	}
	res.StoreBytes, res.IndexBytes, res.FilesBytes = st.StoreBytes, st.IndexBytes, st.FilesBytes
	res.PeakRSS = peakRSS()
	return res, nil
}

// QueryTexts makes n seeded queries from the synthetic corpus's
// vocabulary, as the perf benchmark asks them.
func QueryTexts(n int) []string { return queryTexts(n) }

// queryTexts makes n queries from the corpus vocabulary: a frequent and a
// topical word, in English or Chinese, as an agent's recall_memory call
// names them. Every query word is one the corpus holds: the synthetic
// messages have no function words, so a question such as "what did we
// say about X" would be mostly words that no chunk holds, and the
// relevance floor (retriever.min_relevance) would answer it with nothing,
// timing a recall that renders no hit.
func queryTexts(n int) []string {
	out := make([]string, n)
	for i := range out {
		if i%3 == 2 {
			out[i] = synth.ZhWord(30+i*7) + synth.ZhWord(200+i*13)
			continue
		}
		out[i] = fmt.Sprintf("%s and %s", synth.Word(40+i*11), synth.Word(300+i*17))
	}
	return out
}

func summarize(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	slices.Sort(d)
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	return Latency{N: len(d), P50: ms(d[len(d)/2]), P99: ms(d[min(len(d)-1, len(d)*99/100)])}
}

// WriteFiles writes msgs as JSONL files of at most per messages into dir
// and returns their paths.
func WriteFiles(dir string, msgs []core.Message, per int) ([]string, error) {
	return writeFiles(dir, msgs, per)
}

// writeFiles writes msgs as JSONL files of at most per messages.
func writeFiles(dir string, msgs []core.Message, per int) ([]string, error) {
	var files []string
	for i := 0; i < len(msgs); i += per {
		path := filepath.Join(dir, fmt.Sprintf("corpus-%04d.jsonl", i/per))
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, m := range msgs[i:min(i+per, len(msgs))] {
			enc.Encode(map[string]string{"namespace": m.Namespace, "session": m.Session, "time": m.Time.Format(time.RFC3339),
				"role": string(m.Role), "speaker": m.Speaker, "text": m.Text})
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// peakRSS returns the process's peak resident set size (VmHWM), or 0.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}
