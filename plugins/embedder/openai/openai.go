package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/oaihttp"
)

// Name is the embedder's registered name.
const Name = "openai"

// ProbeText is what [Embedder.Info] embeds to learn the dimension when
// none is configured.
const ProbeText = "dimension probe"

// Defaults that [Config.SetDefaults] fills in.
const (
	DefaultBatchSize     = 64
	DefaultMaxRetries    = 5
	DefaultTimeout       = 60 * time.Second
	DefaultRetryDelay    = 500 * time.Millisecond
	DefaultMaxRetryDelay = 30 * time.Second
)

// maxBody bounds a successful answer from the server.
const maxBody = 512 << 20

// Config configures an [Embedder]. Call [Config.SetDefaults] and
// [Config.Validate], or let [New] do it.
type Config struct {
	// BaseURL is the server, with or without the /v1 suffix, such as
	// "http://localhost:11434" (Ollama), "http://localhost:8000/v1" (vLLM)
	// or "https://api.openai.com/v1". A URL that already ends in
	// /embeddings is used as it is.
	BaseURL string
	// Model is the model name the server knows, such as
	// "nomic-embed-text" or "text-embedding-3-small".
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// Dim is the dimension every vector must have; 0 means whatever the
	// first answer has.
	Dim int
	// SendDimensions adds "dimensions": Dim to every request, for models
	// that can shorten their vectors (OpenAI text-embedding-3-*). Many
	// other servers reject the field, so it is off by default.
	SendDimensions bool
	// BatchSize is how many texts go in one request; 0 means 64.
	BatchSize int
	// MaxRetries is how many times a failed request is retried; 0 means
	// 5 and a negative value means never.
	MaxRetries int
	// Timeout bounds one attempt of one request; 0 means 60s.
	Timeout time.Duration
	// RetryDelay is the backoff before the first retry, doubled for each
	// one after; 0 means 500ms. MaxRetryDelay bounds one wait, including
	// one the server asks for with Retry-After; 0 means 30s.
	RetryDelay    time.Duration
	MaxRetryDelay time.Duration
	// HTTPClient sends the requests; nil means a client of its own. It is
	// used as it is and never modified.
	HTTPClient *http.Client
}

// SetDefaults fills every unset field with its documented default.
func (c *Config) SetDefaults() {
	if c.BatchSize == 0 {
		c.BatchSize = DefaultBatchSize
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
		return errors.New("openai embedder: missing model")
	case c.Dim < 0:
		return fmt.Errorf("openai embedder: dimension %d is negative", c.Dim)
	case c.SendDimensions && c.Dim == 0:
		return errors.New("openai embedder: SendDimensions needs a dimension")
	case c.BatchSize < 0:
		return fmt.Errorf("openai embedder: batch size %d is negative", c.BatchSize)
	case c.Timeout < 0 || c.RetryDelay < 0 || c.MaxRetryDelay < 0:
		return errors.New("openai embedder: timeouts and delays must not be negative")
	}
	return nil
}

// String formats the configuration without the API key.
func (c Config) String() string {
	key := ""
	if c.APIKey != "" {
		key = "[redacted]"
	}
	return fmt.Sprintf("openai.Config{BaseURL: %q, Model: %q, APIKey: %q, Dim: %d, BatchSize: %d, MaxRetries: %d, Timeout: %s}",
		redactURL(c.BaseURL), c.Model, key, c.Dim, c.BatchSize, c.MaxRetries, c.Timeout)
}

// GoString is String, so that %#v does not print the API key either.
func (c Config) GoString() string { return c.String() }

// endpoint returns the embeddings URL for a base URL.
func endpoint(base string) (string, error) {
	return oaihttp.Endpoint("openai embedder", base, "embeddings")
}

// redactURL hides a password in a URL, for messages.
func redactURL(s string) string { return oaihttp.RedactURL(s) }

// Embedder is a client for an OpenAI-compatible embeddings endpoint. It
// is safe for concurrent use.
type Embedder struct {
	cfg Config
	api *oaihttp.Client

	mu  sync.Mutex
	dim int // the dimension, once configured or learnt

	probeMu sync.Mutex // one probe at a time

	// sleep waits between attempts; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ core.Embedder = (*Embedder)(nil)

// New returns an embedder for cfg, after filling in its defaults and
// checking it. It does not contact the server.
func New(cfg Config) (*Embedder, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u, _ := endpoint(cfg.BaseURL)
	e := &Embedder{cfg: cfg, dim: cfg.Dim, sleep: oaihttp.Sleep}
	e.api = oaihttp.New(u, oaihttp.Options{
		APIKey: cfg.APIKey, HTTPClient: cfg.HTTPClient, MaxBody: maxBody,
		Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, RetryDelay: cfg.RetryDelay, MaxRetryDelay: cfg.MaxRetryDelay,
		Sleep: func(ctx context.Context, d time.Duration) error { return e.sleep(ctx, d) },
	})
	return e, nil
}

// Endpoint returns the URL requests go to, with any password hidden.
func (e *Embedder) Endpoint() string { return e.api.Endpoint() }

// Info reports Name, the model and the dimension. When no dimension was
// configured and nothing was embedded yet, it embeds [ProbeText] once to
// learn it; a failed probe is tried again on the next call.
func (e *Embedder) Info(ctx context.Context) (core.EmbedderInfo, error) {
	info := core.EmbedderInfo{Name: Name, Model: e.cfg.Model}
	if info.Dim = e.knownDim(); info.Dim > 0 {
		return info, nil
	}
	e.probeMu.Lock()
	defer e.probeMu.Unlock()
	if info.Dim = e.knownDim(); info.Dim > 0 {
		return info, nil
	}
	if _, err := e.Embed(ctx, []string{ProbeText}); err != nil {
		return info, fmt.Errorf("probing the dimension: %w", err)
	}
	info.Dim = e.knownDim()
	return info, nil
}

func (e *Embedder) knownDim() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dim
}

// Embed returns one vector per text, in order. Texts are sent in batches
// of Config.BatchSize, one batch at a time; see the package documentation
// for retries and checks.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += e.cfg.BatchSize {
		batch := texts[i:min(i+e.cfg.BatchSize, len(texts))]
		vecs, err := e.embedBatch(ctx, batch)
		if err != nil {
			if len(texts) > len(batch) {
				return nil, fmt.Errorf("%w (texts %d-%d of %d)", err, i+1, i+len(batch), len(texts))
			}
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}
