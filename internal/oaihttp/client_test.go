package oaihttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// server answers request n (0-based) with answers[n], the last one for
// every request after, and records what it got.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	answers []answer
	got     []http.Header
}

type answer struct {
	status     int
	retryAfter string
	body       string
	hang       bool
}

func newServer(t *testing.T, answers ...answer) *server {
	t.Helper()
	s := &server{answers: answers}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.got = append(s.got, r.Header.Clone())
		a := s.answers[min(len(s.got), len(s.answers))-1]
		s.mu.Unlock()
		if a.hang {
			<-r.Context().Done()
			return
		}
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		if a.status != 0 {
			w.WriteHeader(a.status)
		}
		fmt.Fprint(w, a.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got
}

// client returns a client for s that records its waits instead of
// sleeping them.
func (s *server) client(opts Options) (*Client, *[]time.Duration) {
	var waits []time.Duration
	opts.Sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return New(s.URL+"/v1/chat/completions", opts), &waits
}

func TestSend(t *testing.T) {
	s := newServer(t, answer{body: "data: {}\n\n"}, answer{status: 404, body: `{"error":{"message":"no such model"}}`})
	c, _ := s.client(Options{APIKey: "sk-test"})
	resp, err := c.Send(t.Context(), []byte(`{}`), "text/event-stream")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "data: {}\n\n" {
		t.Errorf("body %q", body)
	}
	h := s.requests()[0]
	if h.Get("Authorization") != "Bearer sk-test" || h.Get("Accept") != "text/event-stream" || h.Get("Content-Type") != "application/json" {
		t.Errorf("request headers %v", h)
	}

	_, err = c.Send(t.Context(), []byte(`{}`), "application/json")
	var herr *HTTPError
	if !errors.As(err, &herr) {
		t.Fatalf("error %v, want an *HTTPError", err)
	}
	if herr.StatusCode != 404 || string(herr.Body) != `{"error":{"message":"no such model"}}` || herr.Temporary() {
		t.Errorf("HTTPError %+v", herr)
	}
	if want := "POST " + c.Endpoint() + ": 404 Not Found: no such model"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestHTTPErrorTemporary(t *testing.T) {
	for _, tc := range []struct {
		status  int
		opts    Options
		want    bool
		message string
	}{
		{429, Options{}, true, "x"},
		{500, Options{}, true, "x"},
		{503, Options{QuoteMessage: true}, true, `"x"`},
		{408, Options{}, false, "x"},
		{408, Options{RetryRequestTimeout: true}, true, "x"},
		{400, Options{RetryRequestTimeout: true}, false, "x"},
	} {
		s := newServer(t, answer{status: tc.status, body: `{"error":"x"}`})
		c, _ := s.client(tc.opts)
		_, err := c.Send(t.Context(), nil, "application/json")
		var herr *HTTPError
		if !errors.As(err, &herr) || herr.Temporary() != tc.want || herr.Message != tc.message {
			t.Errorf("%d with %+v: %#v, want Temporary %v and message %s", tc.status, tc.opts, err, tc.want, tc.message)
		}
	}
}

func TestPost(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answers  []answer
		opts     Options
		want     string // the answer, or the error
		attempts int
		waits    []time.Duration // -1: any backoff
	}{
		{"first time", []answer{{body: "ok"}}, Options{MaxRetries: 2}, "ok", 1, nil},
		{"Retry-After", []answer{{status: 429, retryAfter: "3"}, {body: "ok"}}, Options{MaxRetries: 2, MaxRetryDelay: time.Minute},
			"ok", 2, []time.Duration{3 * time.Second}},
		{"backoff", []answer{{status: 502}, {status: 500}, {body: "ok"}}, Options{MaxRetries: 2, RetryDelay: time.Second, MaxRetryDelay: time.Minute},
			"ok", 3, []time.Duration{-1, -1}},
		{"gives up", []answer{{status: 503, body: "down"}}, Options{MaxRetries: 1, RetryDelay: time.Millisecond, MaxRetryDelay: time.Second},
			"POST URL: 503 Service Unavailable: down", 2, []time.Duration{-1}},
		{"not temporary", []answer{{status: 401, body: `{"error":{"message":"bad key"}}`}}, Options{MaxRetries: 3},
			"POST URL: 401 Unauthorized: bad key", 1, nil},
		{"too large", []answer{{body: strings.Repeat("x", 2<<20+1)}}, Options{MaxRetries: 3, MaxBody: 2 << 20},
			"POST URL: the answer is larger than 2 MiB", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.answers...)
			c, waits := s.client(tc.opts)
			raw, attempts, err := c.Post(t.Context(), []byte(`{}`))
			got := string(raw)
			if err != nil {
				got = strings.ReplaceAll(err.Error(), c.Endpoint(), "URL")
			}
			if got != tc.want || attempts != tc.attempts {
				t.Errorf("Post = %q after %d attempts, want %q after %d", got, attempts, tc.want, tc.attempts)
			}
			if len(*waits) != len(tc.waits) {
				t.Fatalf("waits %v, want %v", *waits, tc.waits)
			}
			for i, w := range tc.waits {
				hi := tc.opts.RetryDelay << i
				if got := (*waits)[i]; w >= 0 && got != w || w < 0 && (got < hi/2 || got > hi) {
					t.Errorf("wait %d = %s, want %s", i, got, w)
				}
			}
		})
	}
}

func TestPostTimeout(t *testing.T) {
	s := newServer(t, answer{hang: true})
	c, _ := s.client(Options{Timeout: 20 * time.Millisecond})
	_, _, err := c.Post(t.Context(), nil)
	var terr *TransportError
	if !errors.As(err, &terr) || terr.Timeout != 20*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) ||
		err.Error() != "POST "+c.Endpoint()+": no answer within 20ms: context deadline exceeded" {
		t.Errorf("error %v, want a timeout that wraps context.DeadlineExceeded", err)
	}

	c, _ = s.client(Options{Timeout: 20 * time.Millisecond, Opaque: true})
	_, _, err = c.Post(t.Context(), nil)
	if errors.Is(err, context.DeadlineExceeded) || err.Error() != "POST "+c.Endpoint()+": no answer within 20ms" {
		t.Errorf("opaque: error %v, want a timeout that wraps nothing", err)
	}

	// The caller's deadline cuts the attempt short, and leaves no time to
	// retry.
	c, _ = s.client(Options{Timeout: time.Minute, MaxRetries: 3, RetryDelay: time.Second, DeadlineMargin: 50 * time.Millisecond, Opaque: true})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, attempts, err := c.Post(ctx, nil)
	if err == nil || attempts != 1 || !strings.Contains(err.Error(), "; not retried: the call's deadline is") {
		t.Errorf("error %v after %d attempts, want one attempt cut short and no retry", err, attempts)
	}
}

func TestPostCanceled(t *testing.T) {
	s := newServer(t, answer{body: "ok"})
	c, _ := s.client(Options{MaxRetries: 3})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := c.Post(ctx, nil); !errors.Is(err, context.Canceled) || len(s.requests()) != 0 {
		t.Errorf("error %v after %d requests, want context.Canceled and none", err, len(s.requests()))
	}
}

func TestRetryAfter(t *testing.T) {
	for h, want := range map[string]time.Duration{
		"": 0, "0": 0, "3": 3 * time.Second, " 7 ": 7 * time.Second, "11": 10 * time.Second,
		"99999999999999999": 10 * time.Second, "-1": 0, "soon": 0,
		time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat): 0,
		time.Now().Add(time.Hour).UTC().Format(http.TimeFormat):  10 * time.Second,
	} {
		if got := RetryAfter(h, 10*time.Second); got != want {
			t.Errorf("RetryAfter(%q) = %s, want %s", h, got, want)
		}
	}
}
