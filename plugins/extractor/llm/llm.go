package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/huimemory/huimemory/core"
)

// Name is the extractor's registered name.
const Name = "llm"

// Defaults that [Config.SetDefaults] fills in.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultMaxRetries    = 2
	DefaultRetryDelay    = time.Second
	DefaultMaxRetryDelay = 20 * time.Second
	DefaultAPIKeyEnv     = "OPENAI_API_KEY"
)

// The response formats a request can ask for.
const (
	FormatJSONSchema = "json_schema"
	FormatJSONObject = "json_object"
)

// Limits on what a server may send back.
const (
	maxBody      = 4 << 20  // a successful answer
	maxErrorBody = 64 << 10 // an error answer
	maxMessage   = 300      // runes of a server message kept in an error
	// deadlineMargin is kept free before the caller's deadline, so that an
	// attempt cut short by it ends with this package's error, not the
	// caller's.
	deadlineMargin = 250 * time.Millisecond
)

// Config configures an [Extractor]. Call [Config.SetDefaults] and
// [Config.Validate], or let [New] do it.
type Config struct {
	// BaseURL is the server, with or without the /v1 suffix, such as
	// "http://localhost:11434" (Ollama) or "https://api.openai.com/v1". A
	// URL that already ends in /chat/completions is used as it is.
	BaseURL string
	// Model is the chat model the server knows, such as "qwen2.5:7b" or
	// "gpt-4o-mini".
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// Temperature is sent with every request; nil leaves it out (for
	// models that accept only their default). The built-in registration
	// sends 0 unless configured otherwise.
	Temperature *float64
	// ResponseFormat is FormatJSONSchema (the default) or FormatJSONObject.
	ResponseFormat string
	// MaxRetries is how many times a failed request is retried; 0 means
	// 2 and a negative value means never.
	MaxRetries int
	// Timeout bounds one attempt; 0 means 30s.
	Timeout time.Duration
	// RetryDelay is the backoff before the first retry, doubled for each
	// one after; 0 means 1s. MaxRetryDelay bounds one wait, including one
	// the server asks for with Retry-After; 0 means 20s.
	RetryDelay    time.Duration
	MaxRetryDelay time.Duration
	// HTTPClient sends the requests; nil means a client of its own. It is
	// used as it is and never modified.
	HTTPClient *http.Client
}

// SetDefaults fills every unset field with its documented default.
func (c *Config) SetDefaults() {
	if c.ResponseFormat == "" {
		c.ResponseFormat = FormatJSONSchema
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = DefaultMaxRetries
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.RetryDelay == 0 {
		c.RetryDelay = DefaultRetryDelay
	}
	if c.MaxRetryDelay == 0 {
		c.MaxRetryDelay = DefaultMaxRetryDelay
	}
}

// Validate reports the first thing wrong with c.
func (c *Config) Validate() error {
	if _, err := endpoint(c.BaseURL); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(c.Model) == "":
		return errors.New("llm extractor: missing model")
	case c.ResponseFormat != FormatJSONSchema && c.ResponseFormat != FormatJSONObject:
		return fmt.Errorf("llm extractor: response format %q is not %s or %s", c.ResponseFormat, FormatJSONSchema, FormatJSONObject)
	case c.Temperature != nil && (*c.Temperature < 0 || *c.Temperature > 2 || *c.Temperature != *c.Temperature):
		return fmt.Errorf("llm extractor: temperature %v is not between 0 and 2", *c.Temperature)
	case c.Timeout < 0 || c.RetryDelay < 0 || c.MaxRetryDelay < 0:
		return errors.New("llm extractor: timeouts and delays must not be negative")
	}
	return nil
}

// String formats the configuration without the API key.
func (c Config) String() string {
	key, temp := "", "default"
	if c.APIKey != "" {
		key = "[redacted]"
	}
	if c.Temperature != nil {
		temp = strconv.FormatFloat(*c.Temperature, 'g', -1, 64)
	}
	return fmt.Sprintf("llm.Config{BaseURL: %q, Model: %q, APIKey: %q, Temperature: %s, ResponseFormat: %q, MaxRetries: %d, Timeout: %s}",
		redactURL(c.BaseURL), c.Model, key, temp, c.ResponseFormat, c.MaxRetries, c.Timeout)
}

// GoString is String, so that %#v does not print the API key either.
func (c Config) GoString() string { return c.String() }

// endpoint returns the chat completions URL for a base URL.
func endpoint(base string) (string, error) {
	base = strings.TrimSpace(base)
	if base == "" {
		return "", errors.New("llm extractor: missing base URL")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("llm extractor: base URL %q is not an http(s) URL", redactURL(base))
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
	case strings.HasSuffix(p, "/v1"):
		p += "/chat/completions"
	default:
		p += "/v1/chat/completions"
	}
	u.Path, u.RawPath = p, ""
	return u.String(), nil
}

// redactURL hides a password in a URL, for messages.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}

// Extractor distils memories from chunks with a chat model. It is safe
// for concurrent use.
type Extractor struct {
	cfg     Config
	url     string // the endpoint, as requests use it
	display string // the endpoint, as errors show it
	client  *http.Client
	// sleep waits between attempts; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ core.Extractor = (*Extractor)(nil)

// New returns an extractor for cfg, after filling in its defaults and
// checking it. It does not contact the server.
func New(cfg Config) (*Extractor, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u, _ := endpoint(cfg.BaseURL)
	x := &Extractor{cfg: cfg, url: u, display: redactURL(u), client: cfg.HTTPClient, sleep: sleepCtx}
	if x.client == nil {
		x.client = &http.Client{}
	}
	return x, nil
}

// Endpoint returns the URL requests go to, with any password hidden.
func (x *Extractor) Endpoint() string { return x.display }

// Version reports the model the extractor asks, for `huimem plugins`.
func (x *Extractor) Version() string { return "model " + x.cfg.Model }

// Extract asks the model for the chunk's memories and returns them,
// checked, with Extractor set to [Name]. Any failure is an [*Error] that
// names the chunk; see the package documentation for retries.
func (x *Extractor) Extract(ctx context.Context, c *core.Chunk) ([]core.Memory, error) {
	body, err := json.Marshal(x.request(c))
	if err != nil {
		return nil, x.fail(c, 0, fmt.Errorf("encoding the request: %w", err))
	}
	content, attempts, err := x.complete(ctx, body)
	if err != nil {
		return nil, x.fail(c, attempts, err)
	}
	mems, err := ParseAnswer(content)
	if err != nil {
		return nil, x.fail(c, attempts, err)
	}
	return mems, nil
}

func (x *Extractor) fail(c *core.Chunk, attempts int, err error) error {
	return &Error{Chunk: Describe(c), Attempts: attempts, Err: err}
}

// Error is a failed extraction of one chunk.
type Error struct {
	// Chunk names the chunk, as [Describe] does.
	Chunk string
	// Attempts is how many requests were made.
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	s := "llm extractor: " + e.Chunk + ": " + e.Err.Error()
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (gave up after %d attempts)", e.Attempts)
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Describe names a chunk in errors: its id when it has one, its session,
// the time of its first message and its transcript lines. At extraction
// time a new chunk has no id yet.
func Describe(c *core.Chunk) string {
	var b strings.Builder
	b.WriteString("chunk")
	if c.ID != "" {
		b.WriteString(" " + c.ID)
	}
	fmt.Fprintf(&b, " of session %q", c.Session)
	if !c.Time.IsZero() {
		b.WriteString(" at " + c.Time.Format(time.RFC3339))
	}
	if c.File != "" {
		fmt.Fprintf(&b, " (%s:L%d-L%d)", c.File, c.LineStart, c.LineEnd)
	}
	return b.String()
}

// ErrBadAnswer is wrapped by every error about the content of the model's
// answer: not JSON, or JSON that breaks the schema.
var ErrBadAnswer = errors.New("bad answer from the model")

// HTTPError is an answer with a status other than 2xx.
type HTTPError struct {
	// URL is the endpoint, with any password hidden.
	URL        string
	StatusCode int
	// Status is the status line, such as "401 Unauthorized".
	Status string
	// Message is the server's error message, or the start of its answer.
	Message string
}

func (e *HTTPError) Error() string {
	s := "POST " + e.URL + ": " + e.Status
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Temporary reports whether the request may succeed when retried: 408,
// 429 and 5xx statuses.
func (e *HTTPError) Temporary() bool {
	return e.StatusCode == http.StatusRequestTimeout || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// transportError is a request that got no answer: the connection failed,
// or the attempt ran over its timeout. It does not wrap
// context.DeadlineExceeded for a timeout of its own, so that a plugin host
// does not take it for a hung plugin.
type transportError struct {
	msg string
}

func (e *transportError) Error() string   { return e.msg }
func (e *transportError) Temporary() bool { return true }

// Temporary reports whether err, from [Extractor.Extract], may go away
// when the chunk is extracted again later: the server was unreachable,
// slow, overloaded (429) or failing (5xx), or the caller's deadline ran
// out. Bad answers, refusals and other 4xx statuses are not temporary.
func Temporary(err error) bool {
	var t interface{ Temporary() bool }
	if errors.As(err, &t) {
		return t.Temporary()
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// chatRequest is the body of POST /v1/chat/completions.
type chatRequest struct {
	Model          string         `json:"model"`
	Messages       []chatMessage  `json:"messages"`
	Temperature    *float64       `json:"temperature,omitempty"`
	ResponseFormat responseFormat `json:"response_format"`
	Stream         bool           `json:"stream"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

// chatResponse is the part of the answer the extractor reads.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

func (x *Extractor) request(c *core.Chunk) chatRequest {
	req := chatRequest{
		Model: x.cfg.Model,
		Messages: []chatMessage{
			{Role: "system", Content: SystemPrompt},
			{Role: "user", Content: UserPrompt(c)},
		},
		Temperature:    x.cfg.Temperature,
		ResponseFormat: responseFormat{Type: x.cfg.ResponseFormat},
	}
	if x.cfg.ResponseFormat == FormatJSONSchema {
		req.ResponseFormat.JSONSchema = &jsonSchema{Name: "memories", Strict: true, Schema: Schema}
	}
	return req
}

// complete sends the request, retrying as configured, and returns the
// answer's message content and the number of attempts made.
func (x *Extractor) complete(ctx context.Context, body []byte) (string, int, error) {
	for attempt := 0; ; attempt++ {
		content, wait, err := x.post(ctx, body)
		if err == nil {
			return content, attempt + 1, nil
		}
		if wait < 0 || attempt >= x.cfg.MaxRetries {
			return "", attempt + 1, err
		}
		if wait == 0 {
			wait = x.backoff(attempt)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+deadlineMargin {
			return "", attempt + 1, fmt.Errorf("%w; not retried: the call's deadline is %s away", err, time.Until(dl).Round(time.Millisecond))
		}
		if serr := x.sleep(ctx, wait); serr != nil {
			return "", attempt + 1, fmt.Errorf("%w; not retried: %w", err, serr)
		}
	}
}

// backoff returns the jittered wait before retry attempt+1: between half
// and all of RetryDelay·2^attempt, and at most MaxRetryDelay.
func (x *Extractor) backoff(attempt int) time.Duration {
	d := x.cfg.MaxRetryDelay
	if attempt < 30 {
		d = min(x.cfg.RetryDelay<<attempt, d)
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// post makes one attempt. On failure, wait says what to do: negative for
// no retry, 0 for the usual backoff, or how long the server asked to wait.
func (x *Extractor) post(ctx context.Context, body []byte) (content string, wait time.Duration, err error) {
	if err := ctx.Err(); err != nil {
		return "", -1, fmt.Errorf("POST %s: %w", x.display, err)
	}
	limit := x.cfg.Timeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl) - deadlineMargin; left < limit {
			limit = max(left, time.Millisecond)
		}
	}
	actx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, x.url, bytes.NewReader(body))
	if err != nil {
		return "", -1, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if x.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+x.cfg.APIKey)
	}
	resp, err := x.client.Do(req)
	if err != nil {
		return "", x.transportWait(ctx), x.transportError(ctx, limit, err)
	}
	defer func() {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
	}()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		herr := &HTTPError{URL: x.display, StatusCode: resp.StatusCode, Status: resp.Status, Message: serverMessage(raw)}
		if !strings.Contains(strings.TrimSpace(herr.Status), " ") {
			herr.Status = strings.TrimSpace(strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode))
		}
		if !herr.Temporary() {
			return "", -1, herr
		}
		return "", x.retryAfter(resp.Header.Get("Retry-After")), herr
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return "", x.transportWait(ctx), x.transportError(ctx, limit, fmt.Errorf("reading the answer: %w", err))
	}
	if len(raw) > maxBody {
		return "", -1, fmt.Errorf("POST %s: the answer is larger than %d MiB", x.display, maxBody>>20)
	}
	content, err = messageContent(raw)
	if err != nil {
		return "", -1, err
	}
	return content, 0, nil
}

// messageContent reads the first choice's message content from a chat
// completion.
func messageContent(raw []byte) (string, error) {
	var resp chatResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return "", fmt.Errorf("%w: the answer is not a chat completion: %v: %s", ErrBadAnswer, err, snippet(string(raw)))
	}
	if len(resp.Choices) == 0 {
		return "", fmt.Errorf("%w: the answer has no choices: %s", ErrBadAnswer, snippet(string(raw)))
	}
	ch := resp.Choices[0]
	switch {
	case ch.Message.Refusal != nil && *ch.Message.Refusal != "":
		return "", fmt.Errorf("%w: the model refused: %s", ErrBadAnswer, snippet(*ch.Message.Refusal))
	case ch.FinishReason == "length":
		return "", fmt.Errorf("%w: the answer was cut off at the model's token limit (finish_reason \"length\")", ErrBadAnswer)
	case ch.FinishReason == "content_filter":
		return "", fmt.Errorf("%w: the answer was withheld by the server's content filter", ErrBadAnswer)
	case ch.Message.Content == nil:
		return "", fmt.Errorf("%w: the answer's message has no content", ErrBadAnswer)
	}
	return *ch.Message.Content, nil
}

// transportWait is -1 (no retry) when the caller's context is done, else 0.
func (x *Extractor) transportWait(ctx context.Context) time.Duration {
	if ctx.Err() != nil {
		return -1
	}
	return 0
}

// transportError words an error from sending or reading, preferring the
// caller's context error and dropping net/http's repetition of the URL.
func (x *Extractor) transportError(ctx context.Context, limit time.Duration, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("POST %s: %w", x.display, cerr)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var nerr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &nerr) && nerr.Timeout() {
		return &transportError{msg: fmt.Sprintf("POST %s: no answer within %s", x.display, limit.Round(time.Millisecond))}
	}
	return &transportError{msg: fmt.Sprintf("POST %s: %v", x.display, err)}
}

// retryAfter returns the wait a Retry-After header asks for, in seconds or
// as an HTTP date, at most MaxRetryDelay; 0 when there is none.
func (x *Extractor) retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if s, err := strconv.ParseInt(h, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		d = x.cfg.MaxRetryDelay
		if s < int64(d/time.Second)+1 {
			d = time.Duration(s) * time.Second
		}
	} else if t, err := http.ParseTime(h); err == nil {
		d = time.Until(t)
	}
	if d <= 0 {
		return 0
	}
	return min(d, x.cfg.MaxRetryDelay)
}

// serverMessage finds the message in an error answer: OpenAI's
// {"error": {"message": ...}}, Ollama's {"error": "..."}, vLLM's
// {"message": ...} or FastAPI's {"detail": ...}; else the start of the
// answer.
func serverMessage(raw []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(raw, &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case v.Message != "":
			msg = v.Message
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			msg = s
		case len(v.Detail) > 0:
			msg = string(v.Detail)
		}
	}
	if msg == "" {
		msg = string(raw)
	}
	return snippet(msg)
}

// snippet returns s on one line, cut to maxMessage runes, for errors.
func snippet(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if utf8.RuneCountInString(s) > maxMessage {
		s = string([]rune(s)[:maxMessage]) + "…"
	}
	return strconv.Quote(s)
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
