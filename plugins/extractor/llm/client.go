package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/internal/oaihttp"
)

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

// backoff returns the jittered wait before retry attempt+1.
func (x *Extractor) backoff(attempt int) time.Duration {
	return oaihttp.Backoff(attempt, x.cfg.RetryDelay, x.cfg.MaxRetryDelay)
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

// retryAfter returns the wait a Retry-After header asks for.
func (x *Extractor) retryAfter(h string) time.Duration {
	return oaihttp.RetryAfter(h, x.cfg.MaxRetryDelay)
}

// serverMessage finds the message in an error answer, quoted.
func serverMessage(raw []byte) string { return strconv.Quote(oaihttp.ServerMessage(raw, maxMessage)) }

// snippet returns s on one line, cut to maxMessage runes, quoted, for
// errors.
func snippet(s string) string { return strconv.Quote(oaihttp.Fold(s, maxMessage)) }

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error { return oaihttp.Sleep(ctx, d) }
