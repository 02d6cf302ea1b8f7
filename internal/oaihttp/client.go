package oaihttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults for the unset limits of [Options].
const (
	DefaultMaxBody      = 64 << 20 // a successful answer that Post reads
	DefaultMaxErrorBody = 64 << 10 // the part of an error answer kept
	DefaultMaxMessage   = 300      // runes of a server message kept in an error
)

// Options configure a [Client]. The zero value sends no key, makes one
// attempt with no timeout of its own, and keeps the default limits.
type Options struct {
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// HTTPClient sends the requests; nil means a client of its own. It is
	// used as it is and never modified.
	HTTPClient *http.Client

	// Timeout bounds one attempt of [Client.Post]; 0 means none.
	Timeout time.Duration
	// MaxRetries is how many times [Client.Post] retries a failed attempt.
	MaxRetries int
	// RetryDelay is the backoff before the first retry, doubled for each
	// one after; MaxRetryDelay bounds one wait, including one the server
	// asks for with Retry-After.
	RetryDelay, MaxRetryDelay time.Duration
	// DeadlineMargin, when positive, is kept free before the caller's
	// deadline: an attempt is cut short to end that long before it, and a
	// retry whose wait would not leave it is not started. Then an attempt
	// cut short by the deadline ends with the client's own error rather
	// than the caller's.
	DeadlineMargin time.Duration
	// RetryRequestTimeout makes a 408 Request Timeout temporary, like 429
	// and the 5xx statuses.
	RetryRequestTimeout bool
	// Opaque makes a [*TransportError] wrap nothing. In particular an
	// attempt's own timeout then does not wrap context.DeadlineExceeded,
	// which a plugin host takes for a plugin that hangs.
	Opaque bool

	// MaxBody bounds a successful answer that [Client.Post] reads; 0
	// means DefaultMaxBody.
	MaxBody int64
	// MaxErrorBody bounds the part of an error answer kept in
	// [HTTPError.Body]; 0 means DefaultMaxErrorBody.
	MaxErrorBody int64
	// MaxMessage bounds, in runes, the server message in
	// [HTTPError.Message]; 0 means DefaultMaxMessage. QuoteMessage puts it
	// in Go quotes.
	MaxMessage   int
	QuoteMessage bool

	// Sleep waits between attempts; nil means [Sleep]. Tests replace it to
	// record the waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client sends JSON requests to one endpoint of an OpenAI-compatible API.
// It is safe for concurrent use.
type Client struct {
	url     string // the endpoint, as requests use it
	display string // the endpoint, as errors show it
	http    *http.Client
	opts    Options
}

// New returns a client for the endpoint url (see [Endpoint]), with the
// unset limits of opts filled in. It does not contact the server.
func New(url string, opts Options) *Client {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxErrorBody <= 0 {
		opts.MaxErrorBody = DefaultMaxErrorBody
	}
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	if opts.Sleep == nil {
		opts.Sleep = Sleep
	}
	c := &Client{url: url, display: RedactURL(url), http: opts.HTTPClient, opts: opts}
	if c.http == nil {
		c.http = &http.Client{}
	}
	return c
}

// Endpoint returns the URL requests go to, with any password hidden.
func (c *Client) Endpoint() string { return c.display }

// HTTPError is an answer with a status other than 2xx.
type HTTPError struct {
	// URL is the endpoint, with any password hidden.
	URL        string
	StatusCode int
	// Status is the status line, such as "401 Unauthorized".
	Status string
	// Message is the server's error message, or the start of its answer,
	// on one line.
	Message string
	// Body is the start of the answer, as the server sent it.
	Body []byte

	retryAfter string // the Retry-After header
	temporary  bool
}

func (e *HTTPError) Error() string {
	s := "POST " + e.URL + ": " + e.Status
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Temporary reports whether the request may succeed when retried, as the
// client that got the answer judges: 429 and 5xx statuses, and 408 with
// [Options.RetryRequestTimeout].
func (e *HTTPError) Temporary() bool { return e.temporary }

// TransportError is an attempt of [Client.Post] that got no answer: the
// connection failed, the answer could not be read, or the attempt ran
// over its timeout.
type TransportError struct {
	// URL is the endpoint, with any password hidden.
	URL string
	Err error
	// Timeout, when positive, is the time the attempt had: it got no
	// answer within it.
	Timeout time.Duration

	opaque bool
}

func (e *TransportError) Error() string {
	if e.Timeout <= 0 {
		return "POST " + e.URL + ": " + e.Err.Error()
	}
	s := fmt.Sprintf("POST %s: no answer within %s", e.URL, e.Timeout.Round(time.Millisecond))
	if !e.opaque {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns Err, or nil for a client with [Options.Opaque].
func (e *TransportError) Unwrap() error {
	if e.opaque {
		return nil
	}
	return e.Err
}

// Temporary reports true: a request that got no answer may get one when
// retried.
func (e *TransportError) Temporary() bool { return true }

// Send makes one POST of body with the given Accept header. For a 2xx
// answer it returns the response, unread: the caller reads and closes its
// body. Any other status is an [*HTTPError], with the body read up to
// [Options.MaxErrorBody] and closed. An error of the HTTP client comes
// back as the HTTP client returned it. Send applies no timeout of its own:
// ctx bounds the request and the reading of the body.
func (c *Client) Send(ctx context.Context, body []byte, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if c.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return resp, nil
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxErrorBody))
	c.drain(resp.Body)
	return nil, c.statusError(resp, raw)
}

// drain reads what is left of an answer, up to MaxErrorBody, so that the
// connection can be used again, and closes it.
func (c *Client) drain(body io.ReadCloser) {
	io.Copy(io.Discard, io.LimitReader(body, c.opts.MaxErrorBody))
	body.Close()
}

func (c *Client) statusError(resp *http.Response, raw []byte) *HTTPError {
	msg := ServerMessage(raw, c.opts.MaxMessage)
	if c.opts.QuoteMessage {
		msg = strconv.Quote(msg)
	}
	e := &HTTPError{URL: c.display, StatusCode: resp.StatusCode, Status: resp.Status, Message: msg, Body: raw,
		retryAfter: resp.Header.Get("Retry-After")}
	if !strings.Contains(strings.TrimSpace(e.Status), " ") {
		// A status line without a reason phrase.
		e.Status = strings.TrimSpace(strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode))
	}
	e.temporary = resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 ||
		c.opts.RetryRequestTimeout && resp.StatusCode == http.StatusRequestTimeout
	return e
}

// Post sends body, retrying as [Options] say, and returns the whole
// answer of the first attempt that gets a 2xx status, with the number of
// attempts made. A temporary [*HTTPError] or a [*TransportError] is
// retried; other statuses, an answer over [Options.MaxBody] and the
// caller's context ending are not. The error of the last attempt is
// returned, followed by "; not retried: ..." when a retry was cut short.
func (c *Client) Post(ctx context.Context, body []byte) ([]byte, int, error) {
	for attempt := 0; ; attempt++ {
		raw, wait, err := c.attempt(ctx, body)
		if err == nil {
			return raw, attempt + 1, nil
		}
		if wait < 0 || attempt >= c.opts.MaxRetries {
			return nil, attempt + 1, err
		}
		if wait == 0 {
			wait = Backoff(attempt, c.opts.RetryDelay, c.opts.MaxRetryDelay)
		}
		if dl, ok := ctx.Deadline(); ok && c.opts.DeadlineMargin > 0 && time.Until(dl) < wait+c.opts.DeadlineMargin {
			return nil, attempt + 1, fmt.Errorf("%w; not retried: the call's deadline is %s away", err, time.Until(dl).Round(time.Millisecond))
		}
		if serr := c.opts.Sleep(ctx, wait); serr != nil {
			return nil, attempt + 1, fmt.Errorf("%w; not retried: %w", err, serr)
		}
	}
}

// attempt makes one attempt of Post. On failure, wait says what to do:
// negative for no retry, 0 for the usual backoff, or how long the server
// asked to wait.
func (c *Client) attempt(ctx context.Context, body []byte) (raw []byte, wait time.Duration, err error) {
	if err := ctx.Err(); err != nil {
		return nil, -1, fmt.Errorf("POST %s: %w", c.display, err)
	}
	limit := c.opts.Timeout
	if dl, ok := ctx.Deadline(); ok && c.opts.DeadlineMargin > 0 {
		if left := time.Until(dl) - c.opts.DeadlineMargin; limit <= 0 || left < limit {
			limit = max(left, time.Millisecond)
		}
	}
	actx, cancel := context.WithCancel(ctx)
	if limit > 0 {
		actx, cancel = context.WithTimeout(ctx, limit)
	}
	defer cancel()
	resp, err := c.Send(actx, body, "application/json")
	if err != nil {
		var herr *HTTPError
		switch {
		case !errors.As(err, &herr):
			return nil, c.transportWait(ctx), c.transportError(ctx, limit, err)
		case !herr.Temporary():
			return nil, -1, herr
		}
		return nil, RetryAfter(herr.retryAfter, c.opts.MaxRetryDelay), herr
	}
	defer c.drain(resp.Body)
	raw, err = io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBody+1))
	if err != nil {
		return nil, c.transportWait(ctx), c.transportError(ctx, limit, fmt.Errorf("reading the answer: %w", err))
	}
	if int64(len(raw)) > c.opts.MaxBody {
		return nil, -1, fmt.Errorf("POST %s: the answer is larger than %d MiB", c.display, c.opts.MaxBody>>20)
	}
	return raw, 0, nil
}

// transportWait is -1 (no retry) when the caller's context is done, else 0.
func (c *Client) transportWait(ctx context.Context) time.Duration {
	if ctx.Err() != nil {
		return -1
	}
	return 0
}

// transportError words an error from sending or reading, preferring the
// caller's context error and dropping net/http's repetition of the URL.
func (c *Client) transportError(ctx context.Context, limit time.Duration, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("POST %s: %w", c.display, cerr)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	te := &TransportError{URL: c.display, Err: err, opaque: c.opts.Opaque}
	var nerr net.Error
	if limit > 0 && (errors.Is(err, context.DeadlineExceeded) || errors.As(err, &nerr) && nerr.Timeout()) {
		te.Timeout = limit
	}
	return te
}
