package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/huimemory/huimemory/internal/oaihttp"
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

// HTTPError is an answer with a status other than 2xx. Its URL is the
// endpoint with any password hidden, Status the status line (such as
// "401 Unauthorized") and Message the server's error message or the start
// of its answer. Temporary reports whether the request may succeed when
// retried: 429 and 5xx statuses.
type HTTPError = oaihttp.HTTPError

// embedBatch sends one batch, retrying as configured.
func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, attempts, err := e.postBatch(ctx, texts)
	if err != nil && attempts > 1 {
		err = fmt.Errorf("%w (gave up after %d attempts)", err, attempts)
	}
	if err != nil {
		return nil, fmt.Errorf("openai embedder: %w", err)
	}
	return vecs, nil
}

// postBatch sends one batch and reads its vectors, saying how many
// attempts it took.
func (e *Embedder) postBatch(ctx context.Context, texts []string) ([][]float32, int, error) {
	req := request{Model: e.cfg.Model, Input: texts, EncodingFormat: "float"}
	if e.cfg.SendDimensions {
		req.Dimensions = e.cfg.Dim
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, 0, fmt.Errorf("encoding request: %w", err)
	}
	raw, attempts, err := e.api.Post(ctx, body)
	if err != nil {
		return nil, attempts, err
	}
	vecs, err := e.decode(raw, len(texts))
	if err != nil {
		return nil, attempts, fmt.Errorf("POST %s: %w", e.api.Endpoint(), err)
	}
	return vecs, attempts, nil
}

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
