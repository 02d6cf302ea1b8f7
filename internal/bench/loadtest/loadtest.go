package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/huimemory/huimemory/internal/bench/perf"
)

// Options shape a load.
type Options struct {
	// URL is the server's base URL, such as http://127.0.0.1:7878.
	URL string
	// URLs, when set, replaces URL with several servers that share one
	// store: client c starts on URLs[c%len(URLs)] and moves on to the next
	// server when a request fails there with a connection error or a 5xx.
	URLs []string
	// Token, when set, is sent as a bearer token.
	Token string
	// Requests is the total number of requests; Clients run them.
	Requests, Clients int
	// AppendShare is the share of appends, in [0, 1]; the rest recall. 0
	// means recalls only.
	AppendShare float64
	// Sessions, when positive, spreads the appends over this many sessions
	// shared by all clients; otherwise each client appends to its own.
	Sessions int
	// Tag names this run's sessions and markers ("load-TAG-N",
	// "loadmarkTAGxCxI"), so that runs on one store stay apart. The
	// default is derived from the clock.
	Tag string
	// Seed makes the mix and the queries repeatable.
	Seed uint64
	// Attempts bounds the tries of one request across the servers
	// (default 3 per server, at least 3).
	Attempts int
	// Halfway, when set, is called once, by the client that takes request
	// Requests/2, before it sends it (the others go on meanwhile). The
	// report then has two phases, "before" and "after": a request belongs
	// to the phase in which it started. An error from Halfway stops the
	// load.
	Halfway func() error
	// Timeout bounds the whole run (default 10 minutes).
	Timeout time.Duration
}

func (o *Options) urls() []string {
	if len(o.URLs) > 0 {
		return o.URLs
	}
	return []string{o.URL}
}

// Report is what a load measured.
type Report struct {
	Tag        string  `json:"tag"`
	Requests   int     `json:"requests"`
	Clients    int     `json:"clients"`
	Servers    int     `json:"servers"`
	Recalls    int     `json:"recalls"`
	Appends    int     `json:"appends"`
	Errors     int     `json:"errors"`
	Retries    int     `json:"retries"`
	FirstError string  `json:"first_error,omitempty"`
	Seconds    float64 `json:"seconds"`
	RPS        float64 `json:"requests_per_second"`
	// Latencies in milliseconds, from the first try to the answer
	// (retries included).
	All    Latency `json:"all"`
	Recall Latency `json:"recall"`
	Append Latency `json:"append"`
	// Phases splits the figures at [Options.Halfway]; without it there is
	// one phase, "all".
	Phases []Phase `json:"phases"`
	// Verified counts the appends found again by a recall afterwards;
	// Missing lists those that were not.
	Verified int      `json:"verified"`
	Missing  []string `json:"missing,omitempty"`
	// BaseChunks is the store's chunk count before the load (GET
	// /v1/stats), for [Check].
	BaseChunks int `json:"base_chunks"`
	// Acked are the appends the servers acknowledged; Failed those whose
	// every try failed (they may or may not be stored).
	Acked  []Append `json:"-"`
	Failed []Append `json:"-"`
}

// Phase is the figures of the requests that started in one phase of a
// load.
type Phase struct {
	Name     string  `json:"name"`
	Requests int     `json:"requests"`
	Recalls  int     `json:"recalls"`
	Appends  int     `json:"appends"`
	Errors   int     `json:"errors"`
	Retries  int     `json:"retries"`
	Seconds  float64 `json:"seconds"`
	RPS      float64 `json:"requests_per_second"`
	Recall   Latency `json:"recall"`
	Append   Latency `json:"append"`
}

// Append is one message a load appended.
type Append struct {
	Session string
	Ref     string // the marker, also in the text
	Time    time.Time
	Text    string
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
	phase   int
	append  bool
	failed  bool
	retries int
	d       time.Duration
}

// Run sends the load, waits for it to finish, and verifies by recall that
// the acknowledged appends are found again. It returns an error only when
// the load could not run at all or Halfway failed; failed requests are
// counted in the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Clients <= 0 || o.Requests <= 0 {
		return nil, fmt.Errorf("loadtest: need clients and requests, got %d and %d", o.Clients, o.Requests)
	}
	if o.AppendShare < 0 || o.AppendShare > 1 {
		return nil, fmt.Errorf("loadtest: append share %v is not between 0 and 1", o.AppendShare)
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Tag == "" {
		o.Tag = strconv.FormatInt(time.Now().UnixNano()/1e6%(36*36*36*36), 36)
	}
	urls := o.urls()
	if o.Attempts <= 0 {
		o.Attempts = max(3, 3*len(urls))
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cl := newClient(o)
	queries := perf.QueryTexts(500)
	rep := &Report{Tag: o.Tag, Requests: o.Requests, Clients: o.Clients, Servers: len(urls)}
	if st, err := cl.stats(ctx); err == nil {
		rep.BaseChunks = st.Chunks
	} else {
		return nil, fmt.Errorf("loadtest: reading the chunk count before the load: %w", err)
	}
	var (
		next     atomic.Int64
		phase    atomic.Int32
		mu       sync.Mutex
		samples  = make([]sample, 0, o.Requests)
		wg       sync.WaitGroup
		halfway  time.Time
		halfErr  error
		halfOnce sync.Once
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		rep.Errors++
		if rep.FirstError == "" {
			rep.FirstError = err.Error()
		}
	}
	half := int64(o.Requests / 2)
	start := time.Now()
	for c := range o.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(o.Seed, uint64(c)))
			server := c % len(urls)
			for {
				i := next.Add(1) - 1
				if i >= int64(o.Requests) || ctx.Err() != nil {
					return
				}
				if o.Halfway != nil && i == half {
					halfOnce.Do(func() {
						mu.Lock()
						halfway = time.Now()
						mu.Unlock()
						phase.Store(1)
						if err := o.Halfway(); err != nil {
							halfErr = fmt.Errorf("loadtest: at half time: %w", err)
							cancel()
						}
					})
				}
				isAppend := rng.Float64() < o.AppendShare
				var body []byte
				path := "/v1/recall"
				var ap Append
				if isAppend {
					session := c
					if o.Sessions > 0 {
						session = rng.IntN(o.Sessions)
					}
					ap.Ref = fmt.Sprintf("loadmark%sx%dx%d", o.Tag, c, i)
					ap.Session = fmt.Sprintf("load-%s-%d", o.Tag, session)
					ap.Text = "load test note " + ap.Ref + " " + queries[rng.IntN(len(queries))]
					// The time is fixed here, once: a retry sends the same
					// message, which the store keeps once.
					ap.Time = time.Now().UTC()
					path = "/v1/messages"
					body, _ = json.Marshal(map[string]string{"session": ap.Session, "role": "user",
						"time": ap.Time.Format(time.RFC3339Nano), "ref": ap.Ref, "text": ap.Text})
				} else {
					body, _ = json.Marshal(map[string]any{"query": queries[rng.IntN(len(queries))], "top_k": 5})
				}
				s := sample{phase: int(phase.Load()), append: isAppend}
				t0 := time.Now()
				var err error
				server, s.retries, _, err = cl.do(ctx, server, http.MethodPost, path, body)
				s.d = time.Since(t0)
				if err != nil {
					s.failed = true
					fail(fmt.Errorf("%s: %w", path, err))
				}
				mu.Lock()
				samples = append(samples, s)
				if isAppend && err == nil {
					rep.Acked = append(rep.Acked, ap)
				} else if isAppend {
					rep.Failed = append(rep.Failed, ap)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	end := time.Now()
	rep.Seconds = end.Sub(start).Seconds()
	if halfErr != nil {
		return rep, halfErr
	}
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("loadtest: stopped after %.0f s: %w", rep.Seconds, err)
	}
	rep.Phases = []Phase{{Name: "all", Seconds: rep.Seconds}}
	if o.Halfway != nil {
		rep.Phases = []Phase{{Name: "before", Seconds: halfway.Sub(start).Seconds()}, {Name: "after", Seconds: end.Sub(halfway).Seconds()}}
	}
	type lat struct{ all, rec, app []time.Duration }
	var total lat
	per := make([]lat, len(rep.Phases))
	for _, s := range samples {
		p := &rep.Phases[s.phase]
		p.Requests++
		p.Retries += s.retries
		rep.Retries += s.retries
		if s.failed {
			p.Errors++
			continue
		}
		for _, l := range []*lat{&total, &per[s.phase]} {
			l.all = append(l.all, s.d)
			if s.append {
				l.app = append(l.app, s.d)
			} else {
				l.rec = append(l.rec, s.d)
			}
		}
	}
	for i := range rep.Phases {
		p := &rep.Phases[i]
		p.Recalls, p.Appends = len(per[i].rec), len(per[i].app)
		if p.Seconds > 0 {
			p.RPS = float64(len(per[i].all)) / p.Seconds
		}
		p.Recall, p.Append = summarize(per[i].rec), summarize(per[i].app)
	}
	rep.Recalls, rep.Appends = len(total.rec), len(total.app)
	rep.RPS = float64(len(total.all)) / rep.Seconds
	rep.All, rep.Recall, rep.Append = summarize(total.all), summarize(total.rec), summarize(total.app)
	// Every answered append must be found again.
	for _, a := range rep.Acked {
		body, _ := json.Marshal(map[string]any{"query": a.Ref, "top_k": 1})
		data, err := cl.call(ctx, http.MethodPost, "/v1/recall", body)
		if err == nil && bytes.Contains(data, []byte(a.Ref)) {
			rep.Verified++
		} else {
			rep.Missing = append(rep.Missing, a.Ref)
		}
	}
	return rep, nil
}

// client sends requests to the servers of a load, moving on to the next
// server when one fails.
type client struct {
	// pref is the server that answered last, for [client.call].
	pref     int
	http     *http.Client
	urls     []string
	token    string
	attempts int
}

func newClient(o Options) *client {
	n := max(o.Clients, 4)
	return &client{
		http:     &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: n}, Timeout: time.Minute},
		urls:     o.urls(),
		token:    o.Token,
		attempts: max(o.Attempts, 3, 3*len(o.urls())),
	}
}

// retryable is an answer on which the request is sent to the next
// server: the server could not be reached, dropped the connection, or
// failed (5xx).
type retryable struct{ err error }

func (r retryable) Error() string { return r.err.Error() }
func (r retryable) Unwrap() error { return r.err }

// do sends one request, starting on server, and tries the next servers
// on a retryable failure, pausing a little longer each round. It returns
// the server that answered (to start from next time), the number of
// retries and the body of a 2xx answer.
func (c *client) do(ctx context.Context, server int, method, path string, body []byte) (int, int, []byte, error) {
	var err error
	for try := range c.attempts {
		if try > 0 {
			server = (server + 1) % len(c.urls)
			if try%len(c.urls) == 0 {
				select {
				case <-ctx.Done():
					return server, try, nil, errors.Join(err, ctx.Err())
				case <-time.After(time.Duration(try) * 20 * time.Millisecond):
				}
			}
		}
		var data []byte
		data, err = c.once(ctx, c.urls[server], method, path, body)
		if err == nil {
			return server, try, data, nil
		}
		if _, ok := err.(retryable); !ok || ctx.Err() != nil {
			return server, try, data, err
		}
	}
	return server, c.attempts - 1, nil, fmt.Errorf("after %d tries: %w", c.attempts, err)
}

// call is do from the server that answered last, for one caller at a
// time.
func (c *client) call(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	var data []byte
	var err error
	c.pref, _, data, err = c.do(ctx, c.pref, method, path, body)
	return data, err
}

func (c *client) once(ctx context.Context, base, method, path string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// Refused, reset, cut short or timed out: the server may be gone.
		return nil, retryable{fmt.Errorf("%s: %w", base, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, retryable{fmt.Errorf("%s: reading the answer: %w", base, err)}
	}
	if resp.StatusCode/100 == 5 {
		return data, retryable{fmt.Errorf("%s: status %d: %s", base, resp.StatusCode, bytes.TrimSpace(data))}
	}
	if resp.StatusCode/100 != 2 {
		return data, fmt.Errorf("%s: status %d: %s", base, resp.StatusCode, bytes.TrimSpace(data))
	}
	return data, nil
}

type statsResponse struct {
	Chunks   int `json:"chunks"`
	Messages int `json:"messages"`
}

func (c *client) stats(ctx context.Context) (statsResponse, error) {
	var st statsResponse
	data, err := c.call(ctx, http.MethodGet, "/v1/stats", nil)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("reading /v1/stats: %w", err)
	}
	return st, nil
}
