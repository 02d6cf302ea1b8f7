package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/extractor/general"
)

// Limits on an answer, checked by [ParseAnswer], and on the chunk text
// sent.
const (
	MaxMemories    = 8
	MaxFacts       = 5
	MaxFactRunes   = 300
	MaxEntities    = 8
	MaxEntityRunes = 80
	MaxTopicRunes  = 60
	// MaxInputRunes is how much of a chunk's text is sent; the rest is
	// cut off with a marker.
	MaxInputRunes = 24000
)

// Types are the memory types the model may answer: the vocabulary of the
// general extractor.
var Types = general.Types

// SystemPrompt is the system message of every request.
var SystemPrompt = `You extract long-term memories from one turn of a conversation, for a memory system that an AI assistant searches later.

Answer with one JSON object and nothing else:
{"memories": [{"type": "...", "facts": ["..."], "entities": ["..."], "topic": "..."}]}

Each memory has:
- type: exactly one of ` + strings.Join(Types, ", ") + `.
  decision: something chosen, settled or planned ("we'll use PostgreSQL", "决定五月去京都").
  preference: a like, dislike, habit or wish of a person ("I prefer tea", "不喜欢开会").
  milestone: something finished, launched, reached or fixed ("shipped v2", "面试通过了").
  problem: an error, failure or difficulty that is still open ("the build fails with OOM").
  emotional: a feeling a person expresses ("I'm worried about the demo", "好开心").
- facts: 1 to ` + fmt.Sprint(MaxFacts) + ` short statements that stand on their own, with who and what, in the language of the conversation, each under ` + fmt.Sprint(MaxFactRunes) + ` characters.
- entities: up to ` + fmt.Sprint(MaxEntities) + ` names of people, places, projects, products or organisations involved, as written in the conversation; [] if none.
- topic: a label of a few words for what the turn is about, in the language of the conversation; "" if unclear.

Give at most one memory per type and at most ` + fmt.Sprint(MaxMemories) + ` in all. Small talk, greetings and general knowledge with nothing personal are not memories: answer {"memories": []} when the turn holds nothing worth remembering. Do not invent anything the turn does not say.`

// Schema is the JSON schema of an answer, sent as the response format's
// schema. It uses only the keywords that OpenAI's strict structured
// outputs accept; [ParseAnswer] checks the string lengths it cannot
// express.
var Schema = json.RawMessage(mustJSON(map[string]any{
	"type":                 "object",
	"additionalProperties": false,
	"required":             []string{"memories"},
	"properties": map[string]any{
		"memories": map[string]any{
			"type":     "array",
			"maxItems": MaxMemories,
			"items": map[string]any{
				"type":                 "object",
				"additionalProperties": false,
				"required":             []string{"type", "facts", "entities", "topic"},
				"properties": map[string]any{
					"type":     map[string]any{"type": "string", "enum": Types},
					"facts":    map[string]any{"type": "array", "minItems": 1, "maxItems": MaxFacts, "items": map[string]any{"type": "string"}},
					"entities": map[string]any{"type": "array", "maxItems": MaxEntities, "items": map[string]any{"type": "string"}},
					"topic":    map[string]any{"type": "string"},
				},
			},
		},
	},
}))

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// UserPrompt is the user message for chunk c: its session, time and text.
func UserPrompt(c *core.Chunk) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Session: %s\n", c.Session)
	if !c.Time.IsZero() {
		fmt.Fprintf(&b, "Time: %s\n", c.Time.Format(time.RFC3339))
	}
	if c.Section != "" {
		fmt.Fprintf(&b, "Section: %s\n", c.Section)
	}
	text := c.Content()
	if utf8.RuneCountInString(text) > MaxInputRunes {
		text = string([]rune(text)[:MaxInputRunes]) + "\n[… the rest of the turn is cut off]"
	}
	b.WriteString("\nTurn:\n")
	b.WriteString(text)
	return b.String()
}

// answer is the JSON an answer must be.
type answer struct {
	Memories *[]answerMemory `json:"memories"`
}

type answerMemory struct {
	Type     *string  `json:"type"`
	Facts    []string `json:"facts"`
	Entities []string `json:"entities"`
	Topic    string   `json:"topic"`
}

// ParseAnswer reads and checks the content of the model's answer (see the
// package documentation) and returns its memories, with Extractor set to
// [Name]. Errors wrap [ErrBadAnswer] and say what is wrong, quoting the
// start of the answer when it is not JSON.
func ParseAnswer(content string) ([]core.Memory, error) {
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	var a answer
	if err := dec.Decode(&a); err != nil {
		var serr *json.SyntaxError
		var terr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &serr):
			return nil, fmt.Errorf("%w: not valid JSON (%v at byte %d): %s", ErrBadAnswer, serr, serr.Offset, snippet(content))
		case errors.As(err, &terr):
			return nil, fmt.Errorf("%w: %s is %s, want %s", ErrBadAnswer, fieldName(terr.Field), terr.Value, terr.Type)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("%w: not valid JSON (it ends early): %s", ErrBadAnswer, snippet(content))
		}
		return nil, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	if rest, _ := io.ReadAll(dec.Buffered()); len(bytes.TrimSpace(rest)) > 0 || dec.More() {
		return nil, fmt.Errorf("%w: text after the JSON object: %s", ErrBadAnswer, snippet(content))
	}
	if a.Memories == nil {
		return nil, fmt.Errorf("%w: no \"memories\" array", ErrBadAnswer)
	}
	if n := len(*a.Memories); n > MaxMemories {
		return nil, fmt.Errorf("%w: %d memories, more than %d", ErrBadAnswer, n, MaxMemories)
	}
	out := make([]core.Memory, 0, len(*a.Memories))
	for i, m := range *a.Memories {
		mem, err := checkMemory(m)
		if err != nil {
			return nil, fmt.Errorf("%w: memory %d: %v", ErrBadAnswer, i+1, err)
		}
		out = append(out, mem)
	}
	return out, nil
}

func checkMemory(m answerMemory) (core.Memory, error) {
	if m.Type == nil {
		return core.Memory{}, errors.New("no type")
	}
	if !slices.Contains(Types, *m.Type) {
		return core.Memory{}, fmt.Errorf("type %q is not one of %s", *m.Type, strings.Join(Types, ", "))
	}
	mem := core.Memory{Type: *m.Type, Extractor: Name}
	switch n := len(m.Facts); {
	case n == 0:
		return mem, errors.New("no facts")
	case n > MaxFacts:
		return mem, fmt.Errorf("%d facts, more than %d", n, MaxFacts)
	}
	for j, f := range m.Facts {
		f = strings.TrimSpace(f)
		switch n := utf8.RuneCountInString(f); {
		case n == 0:
			return mem, fmt.Errorf("fact %d is empty", j+1)
		case n > MaxFactRunes:
			return mem, fmt.Errorf("fact %d has %d characters, more than %d", j+1, n, MaxFactRunes)
		}
		mem.Facts = append(mem.Facts, f)
	}
	if n := len(m.Entities); n > MaxEntities {
		return mem, fmt.Errorf("%d entities, more than %d", n, MaxEntities)
	}
	for j, e := range m.Entities {
		e = strings.TrimSpace(e)
		switch n := utf8.RuneCountInString(e); {
		case n == 0:
			return mem, fmt.Errorf("entity %d is empty", j+1)
		case n > MaxEntityRunes:
			return mem, fmt.Errorf("entity %d has %d characters, more than %d", j+1, n, MaxEntityRunes)
		}
		if !slices.Contains(mem.Entities, e) {
			mem.Entities = append(mem.Entities, e)
		}
	}
	mem.Topic = strings.TrimSpace(m.Topic)
	if n := utf8.RuneCountInString(mem.Topic); n > MaxTopicRunes {
		return mem, fmt.Errorf("topic has %d characters, more than %d", n, MaxTopicRunes)
	}
	if strings.ContainsAny(mem.Topic, "\r\n") {
		return mem, errors.New("topic spans several lines")
	}
	return mem, nil
}

// fieldName names a JSON field of an answer for errors.
func fieldName(f string) string {
	if f == "" {
		return "the answer"
	}
	return fmt.Sprintf("field %q", f)
}
