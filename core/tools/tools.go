package tools

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The tool names.
const (
	RecallMemory = "recall_memory"
	RecallByID   = "recall_by_id"
	Remember     = "remember"
)

// Tool is one tool: its name, a description that teaches an LLM how to use
// it, and the JSON Schema of its arguments.
type Tool struct {
	Name        string
	Description string
	// Parameters is a JSON Schema object.
	Parameters map[string]any
}

// Format names a schema dialect for [Schemas].
type Format string

// The schema formats.
const (
	FormatOpenAI    Format = "openai"
	FormatAnthropic Format = "anthropic"
	FormatMCP       Format = "mcp"
)

// Formats lists the schema formats.
var Formats = []Format{FormatOpenAI, FormatAnthropic, FormatMCP}

// Schemas returns the tools in the given dialect, ready to marshal:
//
//   - openai: [{"type":"function","function":{"name","description","parameters"}}]
//     (chat completions function calling);
//   - anthropic: [{"name","description","input_schema"}] (Messages API tools);
//   - mcp: [{"name","description","inputSchema"}] (tools/list).
func Schemas(tools []Tool, f Format) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(tools))
	for _, t := range tools {
		switch f {
		case FormatOpenAI:
			out = append(out, map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
		case FormatAnthropic:
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Parameters})
		case FormatMCP:
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.Parameters})
		default:
			return nil, fmt.Errorf("tools: unknown schema format %q (want %s)", f, joinFormats())
		}
	}
	return out, nil
}

func joinFormats() string {
	s := make([]string, len(Formats))
	for i, f := range Formats {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// SchemasJSON is [Schemas] marshalled with indentation.
func SchemasJSON(tools []Tool, f Format) ([]byte, error) {
	s, err := Schemas(tools, f)
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(s, "", "  ")
}

// Limits on arguments.
const (
	DefaultTopK       = 5
	DefaultMaxTopK    = 50
	DefaultMaxContext = 10
)

const recallDescription = `Search HuiMemory, the long-term memory of past conversations, by keyword, meaning and time. Returns verbatim conversation turns, each headed by an anchor [id:… | prev: … | next: …].

How to search:
- Put the distinctive words in "query": names, products, error messages, decisions. Chinese and English both work.
- A time phrase inside the query is understood and turned into a time filter: "上周三下午部署的问题", "what did we decide last week", "2026-04-06", "昨天", "in March". Vague phrases ("最近", "前段时间", "a while ago") search one week at a time, newest first.
- "filter_expr" narrows by fields: timestamp, session, role, speaker, topic, type (decision, preference, problem, milestone, emotional), id. Operators = != < <= > >=, AND, OR, NOT, parentheses, quoted strings. Example: "type = 'decision' AND timestamp >= '2026-04-06'".
- When the result says nothing was found, the memory holds nothing relevant: say so rather than guess.
- To read what was said just before or after a hit, call recall_by_id with its prev or next id. Cite the ids you used.`

const byIDDescription = `Fetch one conversation turn from HuiMemory by its id, verbatim, to walk a conversation. Use the prev or next id shown in an anchor [id:… | prev: … | next: …] returned by recall_memory or by an earlier recall_by_id. "context_window" also returns that many turns before and after it.`

const rememberDescription = `Store a message in HuiMemory's long-term memory, verbatim, so that recall_memory can find it later. Use it for facts, preferences and decisions the user wants remembered.`

// Definitions returns the tools a dispatcher with these options serves:
// recall_memory and recall_by_id, and remember when opts.Remember is set.
// recall_memory takes a "namespace" argument only with opts.AllowNamespace.
func Definitions(opts Options) []Tool {
	recallProps := map[string]any{
		"query":          map[string]any{"type": "string", "description": "What to look for: keywords or a question, optionally with a time phrase such as \"last week\" or \"上周三下午\"."},
		"filter_expr":    map[string]any{"type": "string", "description": "Optional filter, such as \"timestamp >= '2026-04-06' AND role = 'user'\" or \"type = 'decision'\"."},
		"top_k":          map[string]any{"type": "integer", "minimum": 1, "maximum": maxOr(opts.MaxTopK, DefaultMaxTopK), "description": fmt.Sprintf("How many turns to return (default %d).", defOr(opts.DefaultTopK, DefaultTopK))},
		"since":          map[string]any{"type": "string", "description": "Only turns at or after this time: a date (2026-04-06), a date and time, or a phrase such as \"last week\"."},
		"before":         map[string]any{"type": "string", "description": "Only turns before this time, in the same forms as since."},
		"context_window": map[string]any{"type": "integer", "minimum": 0, "maximum": maxOr(opts.MaxContext, DefaultMaxContext), "description": "Also return this many neighbouring turns before and after each hit (default 0)."},
	}
	if opts.AllowNamespace {
		recallProps["namespace"] = map[string]any{"type": "string", "description": "The memory namespace to search (default: the caller's own)."}
	}
	out := []Tool{
		{Name: RecallMemory, Description: recallDescription, Parameters: object(recallProps, "query")},
		{Name: RecallByID, Description: byIDDescription, Parameters: object(map[string]any{
			"turn_id":        map[string]any{"type": "string", "description": "The turn's id, such as \"a3f2c7\", from an anchor's id, prev or next."},
			"context_window": map[string]any{"type": "integer", "minimum": 0, "maximum": maxOr(opts.MaxContext, DefaultMaxContext), "description": "Also return this many turns before and after it (default 0)."},
		}, "turn_id")},
	}
	if opts.Remember {
		out = append(out, Tool{Name: Remember, Description: rememberDescription, Parameters: object(map[string]any{
			"text":    map[string]any{"type": "string", "description": "The message, verbatim."},
			"role":    map[string]any{"type": "string", "enum": []string{"user", "assistant", "system"}, "description": "Who said it (default user)."},
			"speaker": map[string]any{"type": "string", "description": "The speaker's name, optional."},
			"session": map[string]any{"type": "string", "description": "The conversation it belongs to (default \"" + rememberSession(opts) + "\")."},
			"time":    map[string]any{"type": "string", "description": "When it was said, RFC 3339 (default now)."},
		}, "text")})
	}
	return out
}

func object(props map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

func maxOr(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

func defOr(v, d int) int { return maxOr(v, d) }

func rememberSession(opts Options) string {
	if opts.RememberSession != "" {
		return opts.RememberSession
	}
	return "memory"
}
