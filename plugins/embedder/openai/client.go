package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/huimemory/huimemory/plugins/internal/oaihttp"
)

// request is the body of POST /v1/embeddings.
type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

// response is the part of the answer the embedder reads.
type response struct {
	Data []struct {
		Index     *int            `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
}

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
	s := "openai embedder: POST " + e.URL + ": " + e.Status
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Temporary reports whether the request may succeed when retried: 429 and
// 5xx statuses.
func (e *HTTPError) Temporary() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// embedBatch sends one batch, retrying as configured.
func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	req := request{Model: e.cfg.Model, Input: texts, EncodingFormat: "float"}
	if e.cfg.SendDimensions {
		req.Dimensions = e.cfg.Dim
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("openai embedder: encoding request: %w", err)
	}
	for attempt := 0; ; attempt++ {
		vecs, wait, err := e.post(ctx, body, len(texts))
		if err == nil {
			return vecs, nil
		}
		if wait < 0 || attempt >= e.cfg.MaxRetries {
			if attempt > 0 {
				err = fmt.Errorf("%w (gave up after %d attempts)", err, attempt+1)
			}
			return nil, err
		}
		if wait == 0 {
			wait = e.backoff(attempt)
		}
		if serr := e.sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("%w; not retried: %w", err, serr)
		}
	}
}

// backoff returns the jittered wait before retry attempt+1.
func (e *Embedder) backoff(attempt int) time.Duration {
	return oaihttp.Backoff(attempt, e.cfg.RetryDelay, e.cfg.MaxRetryDelay)
}

// post makes one attempt. On failure, wait says what to do: negative for
// no retry, 0 for the usual backoff, or how long the server asked to wait.
func (e *Embedder) post(ctx context.Context, body []byte, n int) (vecs [][]float32, wait time.Duration, err error) {
	if err := ctx.Err(); err != nil {
		return nil, -1, fmt.Errorf("openai embedder: POST %s: %w", e.display, err)
	}
	actx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, -1, fmt.Errorf("openai embedder: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if e.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.cfg.APIKey)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, e.transportWait(ctx), e.transportError(ctx, err)
	}
	defer func() {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
	}()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		herr := &HTTPError{URL: e.display, StatusCode: resp.StatusCode, Status: resp.Status, Message: serverMessage(raw)}
		if !strings.Contains(strings.TrimSpace(herr.Status), " ") {
			// A status line without a reason phrase.
			herr.Status = strings.TrimSpace(strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode))
		}
		if !herr.Temporary() {
			return nil, -1, herr
		}
		return nil, e.retryAfter(resp.Header.Get("Retry-After")), herr
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, e.transportWait(ctx), e.transportError(ctx, fmt.Errorf("reading the answer: %w", err))
	}
	if len(raw) > maxBody {
		return nil, -1, fmt.Errorf("openai embedder: POST %s: the answer is larger than %d MiB", e.display, maxBody>>20)
	}
	vecs, err = e.decode(raw, n)
	if err != nil {
		return nil, -1, fmt.Errorf("openai embedder: POST %s: %w", e.display, err)
	}
	return vecs, 0, nil
}

// transportWait is -1 (no retry) when the caller's context is done, else 0.
func (e *Embedder) transportWait(ctx context.Context) time.Duration {
	if ctx.Err() != nil {
		return -1
	}
	return 0
}

// transportError words an error from sending or reading, preferring the
// caller's context error and dropping net/http's repetition of the URL.
func (e *Embedder) transportError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("openai embedder: POST %s: %w", e.display, cerr)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("openai embedder: POST %s: no answer within %s: %w", e.display, e.cfg.Timeout, err)
	}
	return fmt.Errorf("openai embedder: POST %s: %w", e.display, err)
}

// retryAfter returns the wait a Retry-After header asks for.
func (e *Embedder) retryAfter(h string) time.Duration {
	return oaihttp.RetryAfter(h, e.cfg.MaxRetryDelay)
}

// serverMessage finds the message in an error answer.
func serverMessage(raw []byte) string { return oaihttp.ServerMessage(raw, maxMessage) }

// decode reads an answer for n texts and checks its vectors.
func (e *Embedder) decode(raw []byte, n int) ([][]float32, error) {
	var resp response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if len(resp.Data) != n {
		return nil, fmt.Errorf("the answer has %d embeddings for %d texts", len(resp.Data), n)
	}
	out := make([][]float32, n)
	for i, d := range resp.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= n {
			return nil, fmt.Errorf("embedding %d has index %d, outside 0-%d", i, idx, n-1)
		}
		if out[idx] != nil {
			return nil, fmt.Errorf("two embeddings have index %d", idx)
		}
		v, err := parseEmbedding(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("embedding %d %w", idx, err)
		}
		out[idx] = v
	}
	// Check the dimension after ordering, so that errors name input order.
	for i, v := range out {
		if err := e.checkDim(len(v)); err != nil {
			return nil, fmt.Errorf("embedding %d %w", i, err)
		}
	}
	return out, nil
}

// checkDim compares a vector's length with the dimension, learning the
// dimension from the first vector when none is configured.
func (e *Embedder) checkDim(got int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dim == 0 {
		e.dim = got
	}
	if got != e.dim {
		if e.cfg.Dim == 0 {
			return fmt.Errorf("has %d dimensions, want %d (the dimension of the first answer)", got, e.dim)
		}
		return fmt.Errorf("has %d dimensions, want %d", got, e.dim)
	}
	return nil
}

// parseEmbedding reads one embedding: a JSON array of numbers, or a
// base64 string of little-endian float32s. Every value must be finite.
func parseEmbedding(raw json.RawMessage) ([]float32, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("is missing")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, errors.New("is not a valid JSON string")
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b)%4 != 0 {
			return nil, errors.New("is not base64 of float32s")
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			if math.IsNaN(float64(v[i])) || math.IsInf(float64(v[i]), 0) {
				return nil, fmt.Errorf("has value %v at position %d, not a finite number", v[i], i)
			}
		}
		return checkEmpty(v)
	}
	if raw[0] != '[' {
		return nil, fmt.Errorf("is not an array of numbers: %.60s", raw)
	}
	return parseFloats(raw)
}

// parseFloats reads a JSON array of numbers as float32s: each must be a
// number (not a string) that fits a float32.
func parseFloats(raw []byte) ([]float32, error) {
	var fs []float64
	if err := json.Unmarshal(raw, &fs); err == nil {
		v := make([]float32, len(fs))
		ok := true
		for i, f := range fs {
			if math.Abs(f) > math.MaxFloat32 {
				ok = false // the slow path below names the value as written
				break
			}
			v[i] = float32(f)
		}
		if ok {
			return checkEmpty(v)
		}
	}
	// Say which element is wrong.
	var nums []json.RawMessage
	if err := json.Unmarshal(raw, &nums); err != nil {
		return nil, fmt.Errorf("is not an array of numbers: %.60s", raw)
	}
	v := make([]float32, len(nums))
	for i, n := range nums {
		var f float64
		if err := json.Unmarshal(n, &f); err != nil {
			if len(n) > 0 && (n[0] == '-' || n[0] >= '0' && n[0] <= '9') {
				return nil, fmt.Errorf("has value %.40s at position %d, not a finite float32", n, i)
			}
			return nil, fmt.Errorf("is not an array of numbers: %.60s", raw)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxFloat32 {
			return nil, fmt.Errorf("has value %.40s at position %d, not a finite float32", n, i)
		}
		v[i] = float32(f)
	}
	return checkEmpty(v)
}

func checkEmpty(v []float32) ([]float32, error) {
	if len(v) == 0 {
		return nil, errors.New("is empty")
	}
	return v, nil
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error { return oaihttp.Sleep(ctx, d) }
