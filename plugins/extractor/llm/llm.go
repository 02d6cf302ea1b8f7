package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/oaihttp"
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
	maxBody    = 4 << 20 // a successful answer
	maxMessage = 300     // runes of a server message kept in an error
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
	return oaihttp.Endpoint("llm extractor", base, "chat/completions")
}

// redactURL hides a password in a URL, for messages.
func redactURL(s string) string { return oaihttp.RedactURL(s) }

// Extractor distils memories from chunks with a chat model. It is safe
// for concurrent use.
type Extractor struct {
	cfg Config
	api *oaihttp.Client
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
	x := &Extractor{cfg: cfg, sleep: oaihttp.Sleep}
	// A timeout of the extractor's own wraps no context.DeadlineExceeded
	// (Opaque), so that a plugin host does not take it for a hung plugin.
	x.api = oaihttp.New(u, oaihttp.Options{
		APIKey: cfg.APIKey, HTTPClient: cfg.HTTPClient,
		Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, RetryDelay: cfg.RetryDelay, MaxRetryDelay: cfg.MaxRetryDelay,
		DeadlineMargin: deadlineMargin, RetryRequestTimeout: true, Opaque: true,
		MaxBody: maxBody, MaxMessage: maxMessage, QuoteMessage: true,
		Sleep: func(ctx context.Context, d time.Duration) error { return x.sleep(ctx, d) },
	})
	return x, nil
}

// Endpoint returns the URL requests go to, with any password hidden.
func (x *Extractor) Endpoint() string { return x.api.Endpoint() }

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
