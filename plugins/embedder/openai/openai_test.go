package openai

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/oaihttp"
)

const testKey = "sk-test-0123456789"

// fakeAPI is an httptest handler that speaks the OpenAI embeddings API.
// Each answer's vector for a text is vec(text, dim). respond, when set,
// may answer request n (0-based) itself and return true.
type fakeAPI struct {
	dim     int
	respond func(w http.ResponseWriter, r *http.Request, n int, req request) bool

	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	path, auth string
	req        request
	raw        map[string]any
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var raw map[string]any
	var req request
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	b, _ := json.Marshal(raw)
	json.Unmarshal(b, &req)
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, recorded{path: r.URL.Path, auth: r.Header.Get("Authorization"), req: req, raw: raw})
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if f.respond != nil && f.respond(w, r, n, req) {
		return
	}
	writeData(w, req, f.dim, nil)
}

// writeData answers req; order, when set, gives the order of the data items.
func writeData(w http.ResponseWriter, req request, dim int, order []int) {
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	if order == nil {
		for i := range req.Input {
			order = append(order, i)
		}
	}
	var data []item
	for _, i := range order {
		data = append(data, item{"embedding", i, vec(req.Input[i], dim)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 3, "total_tokens": 3},
	})
}

// vec is the fake model: a vector that tells texts apart.
func vec(text string, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(len(text)) + float32(i)/8
	}
	if len(text) > 0 {
		v[0] = float32(text[0])
	}
	return v
}

func (f *fakeAPI) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// start serves f and returns an embedder for it whose waits are recorded
// instead of slept.
func start(t *testing.T, f *fakeAPI, cfg Config) (*Embedder, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	if cfg.BaseURL == "" {
		cfg.BaseURL = srv.URL
	}
	if cfg.Model == "" {
		cfg.Model = "nomic-embed-text"
	}
	if cfg.RetryDelay == 0 {
		cfg.RetryDelay = time.Millisecond
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	waits := &[]time.Duration{}
	var mu sync.Mutex
	e.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*waits = append(*waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return e, waits
}

func words(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("text %d %s", i, strings.Repeat("x", i%7))
	}
	return out
}

func TestEmbedBatches(t *testing.T) {
	f := &fakeAPI{dim: 4}
	e, _ := start(t, f, Config{APIKey: testKey, Dim: 4, BatchSize: 64})
	in := words(150)
	got, err := e.Embed(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]float32, len(in))
	for i, s := range in {
		want[i] = vec(s, 4)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	var sizes []int
	for _, r := range f.requests() {
		sizes = append(sizes, len(r.req.Input))
		if r.path != "/v1/embeddings" || r.auth != "Bearer "+testKey || r.req.Model != "nomic-embed-text" ||
			r.raw["encoding_format"] != "float" || r.raw["dimensions"] != nil {
			t.Errorf("request: path %q, auth %q, body %v", r.path, r.auth, r.raw)
		}
	}
	if diff := cmp.Diff([]int{64, 64, 22}, sizes); diff != "" {
		t.Errorf("batch sizes (-want +got):\n%s", diff)
	}
	if got, err := e.Embed(t.Context(), nil); err != nil || len(got) != 0 || len(f.requests()) != 3 {
		t.Errorf("Embed(nil) = %v, %v after %d requests", got, err, len(f.requests()))
	}
}

func TestNoKeyNoAuthorization(t *testing.T) {
	f := &fakeAPI{dim: 2}
	e, _ := start(t, f, Config{Dim: 2, SendDimensions: true})
	if _, err := e.Embed(t.Context(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if r.auth != "" || r.raw["dimensions"] != float64(2) {
		t.Errorf("auth %q, dimensions %v", r.auth, r.raw["dimensions"])
	}
}

func TestEndpoint(t *testing.T) {
	for _, tt := range []struct{ base, want string }{
		{"http://localhost:11434", "http://localhost:11434/v1/embeddings"},
		{"http://localhost:11434/", "http://localhost:11434/v1/embeddings"},
		{"http://localhost:8000/v1", "http://localhost:8000/v1/embeddings"},
		{" https://api.openai.com/v1/ ", "https://api.openai.com/v1/embeddings"},
		{"http://h/v1/embeddings", "http://h/v1/embeddings"},
		{"https://h/openai/v1?api-version=2", "https://h/openai/v1/embeddings?api-version=2"},
		{"http://h/proxy", "http://h/proxy/v1/embeddings"},
	} {
		if got, err := endpoint(tt.base); err != nil || got != tt.want {
			t.Errorf("endpoint(%q) = %q, %v; want %q", tt.base, got, err, tt.want)
		}
	}
	for _, base := range []string{"", "localhost:11434", "ftp://h/v1", "http://", "::"} {
		if got, err := endpoint(base); err == nil {
			t.Errorf("endpoint(%q) = %q, want an error", base, got)
		}
	}
}

func TestRetries(t *testing.T) {
	fail := func(statuses ...int) func(http.ResponseWriter, *http.Request, int, request) bool {
		return func(w http.ResponseWriter, _ *http.Request, n int, _ request) bool {
			if n >= len(statuses) {
				return false
			}
			if statuses[n] == http.StatusTooManyRequests && n == 0 {
				w.Header().Set("Retry-After", "2")
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(statuses[n])
			fmt.Fprintf(w, `{"error":{"message":"try later %d","type":"server_error"}}`, n)
			return true
		}
	}
	tests := []struct {
		name     string
		statuses []int
		requests int
		waits    []time.Duration // -1: any backoff
	}{
		// The first 429 asks for 2s with Retry-After.
		{"429 then success", []int{429}, 2, []time.Duration{2 * time.Second}},
		{"500 then success", []int{500}, 2, []time.Duration{-1}},
		{"429 429 503 then success", []int{429, 429, 503}, 4, []time.Duration{2 * time.Second, -1, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeAPI{dim: 3, respond: fail(tt.statuses...)}
			e, waits := start(t, f, Config{Dim: 3, RetryDelay: 100 * time.Millisecond})
			got, err := e.Embed(t.Context(), []string{"a", "b"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([][]float32{vec("a", 3), vec("b", 3)}, got); diff != "" {
				t.Errorf("vectors (-want +got):\n%s", diff)
			}
			if n := len(f.requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if len(*waits) != len(tt.waits) {
				t.Fatalf("waits %v, want %v", *waits, tt.waits)
			}
			for i, w := range tt.waits {
				got := (*waits)[i]
				if w >= 0 && got != w {
					t.Errorf("wait %d = %s, want %s", i, got, w)
				}
				// Backoff i (0-based) is between half and all of 100ms·2^i.
				if hi := 100 * time.Millisecond << i; w < 0 && (got < hi/2 || got > hi) {
					t.Errorf("wait %d = %s, want %s to %s", i, got, hi/2, hi)
				}
			}
		})
	}
}

func TestGiveUp(t *testing.T) {
	f := &fakeAPI{dim: 3, respond: func(w http.ResponseWriter, _ *http.Request, _ int, _ request) bool {
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, "<html>upstream down</html>")
		return true
	}}
	e, waits := start(t, f, Config{Dim: 3, MaxRetries: 2})
	_, err := e.Embed(t.Context(), []string{"a"})
	want := fmt.Sprintf("openai embedder: POST %s: 502 Bad Gateway: <html>upstream down</html> (gave up after 3 attempts)", e.Endpoint())
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if len(f.requests()) != 3 || len(*waits) != 2 {
		t.Errorf("%d requests and %d waits, want 3 and 2", len(f.requests()), len(*waits))
	}
	var herr *HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != 502 {
		t.Errorf("errors.As: %#v", herr)
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		msg    string
	}{
		{"openai 401", 401, `{"error":{"message":"Incorrect API key provided: sk-te***789.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			"401 Unauthorized: Incorrect API key provided: sk-te***789."},
		{"ollama 404", 404, `{"error":"model \"nomic\" not found, try pulling it first"}`,
			`404 Not Found: model "nomic" not found, try pulling it first`},
		{"vllm 400", 400, `{"object":"error","message":"This model's maximum context length is 512 tokens.","type":"BadRequestError","code":400}`,
			"400 Bad Request: This model's maximum context length is 512 tokens."},
		{"fastapi 422", 422, `{"detail":[{"loc":["body","input"],"msg":"field required"}]}`,
			`422 Unprocessable Entity: [{"loc":["body","input"],"msg":"field required"}]`},
		{"plain text", 413, "payload\n  too large\n", "413 Request Entity Too Large: payload too large"},
		{"empty", 403, "", "403 Forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeAPI{dim: 3, respond: func(w http.ResponseWriter, _ *http.Request, _ int, _ request) bool {
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
				return true
			}}
			e, waits := start(t, f, Config{Dim: 3, APIKey: testKey})
			_, err := e.Embed(t.Context(), []string{"a"})
			want := "openai embedder: POST " + e.Endpoint() + ": " + tt.msg
			if err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant %s", err, want)
			}
			if len(f.requests()) != 1 || len(*waits) != 0 {
				t.Errorf("%d requests and %d waits, want 1 and 0", len(f.requests()), len(*waits))
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("the error shows the API key: %v", err)
			}
		})
	}
}

func TestTransportErrorIsRetried(t *testing.T) {
	f := &fakeAPI{dim: 2, respond: func(w http.ResponseWriter, _ *http.Request, n int, _ request) bool {
		if n > 0 {
			return false
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		conn.Close() // no answer at all
		return true
	}}
	e, waits := start(t, f, Config{Dim: 2})
	got, err := e.Embed(t.Context(), []string{"hello"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float32{vec("hello", 2)}, got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	if len(f.requests()) != 2 || len(*waits) != 1 {
		t.Errorf("%d requests and %d waits, want 2 and 1", len(f.requests()), len(*waits))
	}
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	f := &fakeAPI{dim: 2, respond: func(w http.ResponseWriter, r *http.Request, n int, _ request) bool {
		if n > 0 {
			return false
		}
		<-r.Context().Done() // never answers the first attempt
		return true
	}}
	e, _ := start(t, f, Config{Dim: 2, Timeout: 20 * time.Millisecond})
	if _, err := e.Embed(t.Context(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if len(f.requests()) != 2 {
		t.Errorf("%d requests, want 2", len(f.requests()))
	}

	// Every attempt times out: the error says so.
	f2 := &fakeAPI{dim: 2, respond: func(w http.ResponseWriter, r *http.Request, _ int, _ request) bool {
		<-r.Context().Done()
		return true
	}}
	e2, _ := start(t, f2, Config{Dim: 2, Timeout: 20 * time.Millisecond, MaxRetries: 1})
	_, err := e2.Embed(t.Context(), []string{"a"})
	if err == nil || !strings.Contains(err.Error(), "no answer within 20ms") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
}

func TestBadAnswers(t *testing.T) {
	answer := func(body string) func(http.ResponseWriter, *http.Request, int, request) bool {
		return func(w http.ResponseWriter, _ *http.Request, _ int, _ request) bool {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body)
			return true
		}
	}
	tests := []struct {
		name string
		dim  int
		body string
		want string
	}{
		{"wrong dimension", 4, `{"data":[{"index":0,"embedding":[1,2,3,4]},{"index":1,"embedding":[1,2,3]}]}`,
			"embedding 1 has 3 dimensions, want 4"},
		{"dimensions differ", 0, `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2,3]}]}`,
			"embedding 1 has 3 dimensions, want 2 (the dimension of the first answer)"},
		{"infinite", 3, `{"data":[{"index":0,"embedding":[1,2,3]},{"index":1,"embedding":[0.5,-0.25,1e999]}]}`,
			"embedding 1 has value 1e999 at position 2, not a finite float32"},
		{"beyond float32", 2, `{"data":[{"index":0,"embedding":[1e39,1]},{"index":1,"embedding":[1,1]}]}`,
			"embedding 0 has value 1e39 at position 0, not a finite float32"},
		{"missing embedding", 2, `{"data":[{"index":0},{"index":1,"embedding":[1,1]}]}`, "embedding 0 is missing"},
		{"null embedding", 2, `{"data":[{"index":0,"embedding":[1,1]},{"index":1,"embedding":null}]}`, "embedding 1 is missing"},
		{"empty embedding", 0, `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1]}]}`, "embedding 0 is empty"},
		{"strings", 2, `{"data":[{"index":0,"embedding":["a","b"]},{"index":1,"embedding":[1,1]}]}`,
			`embedding 0 is not an array of numbers: ["a","b"]`},
		{"bad base64", 2, `{"data":[{"index":0,"embedding":"!!"},{"index":1,"embedding":[1,1]}]}`,
			"embedding 0 is not base64 of float32s"},
		{"too few", 2, `{"data":[{"index":0,"embedding":[1,1]}]}`, "the answer has 1 embeddings for 2 texts"},
		{"index twice", 2, `{"data":[{"index":1,"embedding":[1,1]},{"index":1,"embedding":[1,1]}]}`, "two embeddings have index 1"},
		{"index out of range", 2, `{"data":[{"index":0,"embedding":[1,1]},{"index":2,"embedding":[1,1]}]}`,
			"embedding 1 has index 2, outside 0-1"},
		{"not json", 2, `<html>`, "reading the answer: invalid character '<' looking for beginning of value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeAPI{respond: answer(tt.body)}
			e, waits := start(t, f, Config{Dim: tt.dim})
			_, err := e.Embed(t.Context(), []string{"a", "b"})
			want := "openai embedder: POST " + e.Endpoint() + ": " + tt.want
			if err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant %s", err, want)
			}
			if len(f.requests()) != 1 || len(*waits) != 0 {
				t.Errorf("%d requests and %d waits, want 1 and 0: bad answers are not retried", len(f.requests()), len(*waits))
			}
		})
	}
}

func TestIndexOrder(t *testing.T) {
	f := &fakeAPI{dim: 2, respond: func(w http.ResponseWriter, _ *http.Request, _ int, req request) bool {
		writeData(w, req, 2, []int{2, 0, 3, 1})
		return true
	}}
	e, _ := start(t, f, Config{Dim: 2})
	in := []string{"a", "bb", "ccc", "dddd"}
	got, err := e.Embed(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{vec("a", 2), vec("bb", 2), vec("ccc", 2), vec("dddd", 2)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
}

func TestBase64Answer(t *testing.T) {
	f := &fakeAPI{respond: func(w http.ResponseWriter, _ *http.Request, _ int, req request) bool {
		var data []map[string]any
		for i, s := range req.Input {
			v := vec(s, 3)
			b := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			data = append(data, map[string]any{"index": i, "embedding": base64.StdEncoding.EncodeToString(b)})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
		return true
	}}
	e, _ := start(t, f, Config{Dim: 3})
	got, err := e.Embed(t.Context(), []string{"x", "yy"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float32{vec("x", 3), vec("yy", 3)}, got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
}

func TestCancel(t *testing.T) {
	// Cancelled while the server holds the request.
	arrived := make(chan struct{})
	f := &fakeAPI{dim: 2, respond: func(w http.ResponseWriter, r *http.Request, _ int, _ request) bool {
		close(arrived)
		<-r.Context().Done()
		return true
	}}
	e, waits := start(t, f, Config{Dim: 2})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-arrived; cancel() }()
	_, err := e.Embed(ctx, []string{"a"})
	if !errors.Is(err, context.Canceled) || len(f.requests()) != 1 || len(*waits) != 0 {
		t.Errorf("err = %v after %d requests and %d waits", err, len(f.requests()), len(*waits))
	}

	// Cancelled while waiting to retry, with the real sleep and a long delay.
	f2 := &fakeAPI{dim: 2, respond: func(w http.ResponseWriter, _ *http.Request, _ int, _ request) bool {
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	}}
	e2, _ := start(t, f2, Config{Dim: 2, RetryDelay: time.Hour})
	ctx2, cancel2 := context.WithCancel(t.Context())
	e2.sleep = func(ctx context.Context, d time.Duration) error {
		cancel2()
		return oaihttp.Sleep(ctx, d)
	}
	_, err = e2.Embed(ctx2, []string{"a"})
	want := "openai embedder: POST " + e2.Endpoint() + ": 503 Service Unavailable; not retried: context canceled"
	if !errors.Is(err, context.Canceled) || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}

	// Already cancelled: no request at all.
	f3 := &fakeAPI{dim: 2}
	e3, _ := start(t, f3, Config{Dim: 2})
	done, cancel3 := context.WithCancel(t.Context())
	cancel3()
	if _, err := e3.Embed(done, []string{"a"}); !errors.Is(err, context.Canceled) || len(f3.requests()) != 0 {
		t.Errorf("err = %v after %d requests", err, len(f3.requests()))
	}
}

func TestInfo(t *testing.T) {
	// A configured dimension needs no request.
	f := &fakeAPI{dim: 5}
	e, _ := start(t, f, Config{Dim: 5, Model: "bge-m3"})
	info, err := e.Info(t.Context())
	if diff := cmp.Diff(core.EmbedderInfo{Name: "openai", Model: "bge-m3", Dim: 5}, info); diff != "" || err != nil || len(f.requests()) != 0 {
		t.Errorf("Info (-want +got):\n%s err %v, %d requests", diff, err, len(f.requests()))
	}

	// Otherwise one probe, then none.
	f = &fakeAPI{dim: 7}
	e, _ = start(t, f, Config{})
	for range 3 {
		info, err := e.Info(t.Context())
		if err != nil || info.Dim != 7 {
			t.Fatalf("Info = %+v, %v", info, err)
		}
	}
	if reqs := f.requests(); len(reqs) != 1 || !cmp.Equal(reqs[0].req.Input, []string{ProbeText}) {
		t.Errorf("requests: %+v", reqs)
	}

	// Embed first: the dimension comes from its answer.
	f = &fakeAPI{dim: 6}
	e, _ = start(t, f, Config{})
	if _, err := e.Embed(t.Context(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if info, err := e.Info(t.Context()); err != nil || info.Dim != 6 || len(f.requests()) != 1 {
		t.Errorf("Info = %+v, %v after %d requests", info, err, len(f.requests()))
	}

	// A failed probe is an error, and is tried again.
	fails := true
	f = &fakeAPI{dim: 3, respond: func(w http.ResponseWriter, _ *http.Request, _ int, _ request) bool {
		if fails {
			w.WriteHeader(http.StatusUnauthorized)
			return true
		}
		return false
	}}
	e, _ = start(t, f, Config{})
	if _, err := e.Info(t.Context()); err == nil || !strings.HasPrefix(err.Error(), "probing the dimension: openai embedder: POST") {
		t.Errorf("err = %v", err)
	}
	fails = false
	if info, err := e.Info(t.Context()); err != nil || info.Dim != 3 {
		t.Errorf("Info = %+v, %v", info, err)
	}
}

func TestConfig(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{Model: "m"}, "openai embedder: missing base URL"},
		{Config{BaseURL: "localhost:11434", Model: "m"}, `openai embedder: base URL "localhost:11434" is not an http(s) URL`},
		{Config{BaseURL: "http://h"}, "openai embedder: missing model"},
		{Config{BaseURL: "http://h", Model: "m", Dim: -1}, "openai embedder: dimension -1 is negative"},
		{Config{BaseURL: "http://h", Model: "m", SendDimensions: true}, "openai embedder: SendDimensions needs a dimension"},
		{Config{BaseURL: "http://h", Model: "m", BatchSize: -2}, "openai embedder: batch size -2 is negative"},
		{Config{BaseURL: "http://h", Model: "m", Timeout: -time.Second}, "openai embedder: timeouts and delays must not be negative"},
	} {
		if _, err := New(tt.cfg); err == nil || err.Error() != tt.want {
			t.Errorf("New(%v) = %v, want %s", tt.cfg, err, tt.want)
		}
	}
	cfg := Config{BaseURL: "http://user:pw@h", Model: "m", APIKey: testKey}
	for _, s := range []string{cfg.String(), fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg)} {
		if strings.Contains(s, testKey) || strings.Contains(s, "pw") || !strings.Contains(s, "[redacted]") {
			t.Errorf("formatted config shows a secret: %s", s)
		}
	}
	e, err := New(Config{BaseURL: "http://h", Model: "m", MaxRetries: -1})
	if err != nil || e.cfg.MaxRetries != 0 || e.cfg.BatchSize != DefaultBatchSize || e.cfg.Timeout != DefaultTimeout {
		t.Errorf("defaults: %v, %v", e.cfg, err)
	}
}

// BenchmarkDecode measures reading an answer of 64 vectors of 1024
// dimensions, the usual batch.
func BenchmarkDecode(b *testing.B) {
	req := request{Input: words(64)}
	rec := httptest.NewRecorder()
	writeData(rec, req, 1024, nil)
	raw := rec.Body.Bytes()
	e, err := New(Config{BaseURL: "http://h", Model: "m", Dim: 1024})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := e.decode(raw, 64); err != nil {
			b.Fatal(err)
		}
	}
}
