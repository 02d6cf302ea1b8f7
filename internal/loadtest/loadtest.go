// Package loadtest drives a running HuiMemory HTTP server with a bounded,
// mixed load (recalls and appends from concurrent clients over plain
// net/http), then checks that every append it was answered for is
// readable. `huimem bench serve` runs it against a real `huimem serve`
// process on loopback; the package's test runs it against an in-process
// server.
package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/huimemory/huimemory/internal/perf"
)

// Options shape a load.
type Options struct {
	// URL is the server's base URL, such as http://127.0.0.1:7878.
	URL string
	// Token, when set, is sent as a bearer token.
	Token string
	// Requests is the total number of requests; Clients run them.
	Requests, Clients int
	// AppendShare is the share of appends (default 0.3); the rest recall.
	AppendShare float64
	// Seed makes the mix and the queries repeatable.
	Seed uint64
	// Timeout bounds the whole run (default 10 minutes).
	Timeout time.Duration
}

// Report is what a load measured.
type Report struct {
	Requests   int     `json:"requests"`
	Clients    int     `json:"clients"`
	Recalls    int     `json:"recalls"`
	Appends    int     `json:"appends"`
	Errors     int     `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	Seconds    float64 `json:"seconds"`
	RPS        float64 `json:"requests_per_second"`
	// Latencies in milliseconds.
	All    Latency `json:"all"`
	Recall Latency `json:"recall"`
	Append Latency `json:"append"`
	// Verified counts the appends found again by a recall afterwards;
	// Missing lists those that were not.
	Verified int      `json:"verified"`
	Missing  []string `json:"missing,omitempty"`
}

// Latency summarises request times in milliseconds.
type Latency struct {
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

func summarize(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	slices.Sort(d)
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	return Latency{P50: ms(d[len(d)/2]), P99: ms(d[min(len(d)-1, len(d)*99/100)]), Max: ms(d[len(d)-1])}
}

type sample struct {
	append bool
	d      time.Duration
}

// Run sends the load, waits for it to finish, and verifies the appends.
// It returns an error only when the load could not run at all; failed
// requests are counted in the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Clients <= 0 || o.Requests <= 0 {
		return nil, fmt.Errorf("loadtest: need clients and requests, got %d and %d", o.Clients, o.Requests)
	}
	if o.AppendShare == 0 {
		o.AppendShare = 0.3
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients, MaxConnsPerHost: o.Clients}, Timeout: time.Minute}
	queries := perf.QueryTexts(500)
	rep := &Report{Requests: o.Requests, Clients: o.Clients}
	var (
		next    atomic.Int64
		mu      sync.Mutex
		samples = make([]sample, 0, o.Requests)
		markers []string
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		rep.Errors++
		if rep.FirstError == "" {
			rep.FirstError = err.Error()
		}
		mu.Unlock()
	}
	start := time.Now()
	for c := range o.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(o.Seed, uint64(c)))
			for {
				i := next.Add(1) - 1
				if i >= int64(o.Requests) || ctx.Err() != nil {
					return
				}
				isAppend := rng.Float64() < o.AppendShare
				var body []byte
				path := "/v1/recall"
				marker := ""
				if isAppend {
					marker = fmt.Sprintf("loadmark%dx%d", c, i)
					path = "/v1/messages"
					body, _ = json.Marshal(map[string]string{"session": fmt.Sprintf("load-%d", c), "role": "user",
						"text": "load test note " + marker + " " + queries[rng.IntN(len(queries))]})
				} else {
					body, _ = json.Marshal(map[string]any{"query": queries[rng.IntN(len(queries))], "top_k": 5})
				}
				t0 := time.Now()
				_, err := post(ctx, client, o, path, body)
				d := time.Since(t0)
				if err != nil {
					fail(fmt.Errorf("%s: %w", path, err))
					continue
				}
				mu.Lock()
				samples = append(samples, sample{isAppend, d})
				if isAppend {
					markers = append(markers, marker)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("loadtest: stopped after %.0f s: %w", rep.Seconds, err)
	}
	var all, rec, app []time.Duration
	for _, s := range samples {
		all = append(all, s.d)
		if s.append {
			app = append(app, s.d)
		} else {
			rec = append(rec, s.d)
		}
	}
	rep.Recalls, rep.Appends = len(rec), len(app)
	rep.RPS = float64(len(all)) / rep.Seconds
	rep.All, rep.Recall, rep.Append = summarize(all), summarize(rec), summarize(app)
	// Every answered append must be found again.
	for _, m := range markers {
		body, _ := json.Marshal(map[string]any{"query": m, "top_k": 1})
		data, err := post(ctx, client, o, "/v1/recall", body)
		if err == nil && bytes.Contains(data, []byte(m)) {
			rep.Verified++
		} else {
			rep.Missing = append(rep.Missing, m)
		}
	}
	return rep, nil
}

func post(ctx context.Context, c *http.Client, o Options, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.URL+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+o.Token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return data, fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(data))
	}
	return data, nil
}
