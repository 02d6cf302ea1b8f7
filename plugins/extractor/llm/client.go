package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/oaihttp"
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
	raw, attempts, err := x.api.Post(ctx, body)
	if err != nil {
		return "", attempts, err
	}
	content, err := messageContent(raw)
	return content, attempts, err
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

// snippet returns s on one line, cut to maxMessage runes, quoted, for
// errors.
func snippet(s string) string { return strconv.Quote(oaihttp.Fold(s, maxMessage)) }
