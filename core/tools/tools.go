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

	// The tools that look after memory ([Options.Manage], [Options.Forget]).
	ListSessions  = "list_sessions"
	MemoryStats   = "memory_stats"
	ResolveTime   = "resolve_time"
	ExportSession = "export_session"
	ForgetMemory  = "forget_memory"
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

const sessionsDescription = `List the conversations (sessions) HuiMemory holds, newest first, with when each began and ended and how many messages it has. Use it to see what is in memory, or to find a session to read with export_session.`

const statsDescription = `Count what HuiMemory holds: sessions, messages and turns, and the time of the oldest and newest message.`

const timeDescription = `Resolve a time phrase, Chinese or English ("上周三下午", "last week", "前段时间", "2026-04-06"), to the exact range recall_memory would search, in the memory's time zone. Vague phrases are marked fuzzy: recall searches them one week at a time, newest first. recall_memory understands time phrases by itself; use this to check or show what a phrase means.`

const exportDescription = `Read one whole conversation (session) from HuiMemory, verbatim and in order: format "turns" (the default) gives each turn under its anchor [id:… | prev: … | next: …]; format "jsonl" gives the generic JSON Lines that "huimem ingest" reads. Session ids come from list_sessions or from the session of a recall_memory hit.`

const forgetDescription = `Forget messages from HuiMemory for good: their text leaves every file of the memory and cannot be recalled again. Select exactly one of: id (the messages of one turn), session (a whole conversation), filter_expr (every turn matching a filter, such as "speaker = 'Bob' AND timestamp < '2026-01-01'"), or all_namespace. Only forget what the user asked to forget. Call it first with "dry_run": true, show the user what would go, and forget only once they confirm.`

// Definitions returns the tools a dispatcher with these options serves:
// recall_memory and recall_by_id; remember when opts.Remember is set;
// list_sessions, memory_stats, resolve_time and export_session when
// opts.Manage is; forget_memory when opts.Forget is. The tools that read
// or write a namespace take a "namespace" argument only with
// opts.AllowNamespace.
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
	ns := func(props map[string]any) map[string]any {
		if opts.AllowNamespace {
			props["namespace"] = map[string]any{"type": "string", "description": "The memory namespace (default: the caller's own)."}
		}
		return props
	}
	if opts.Manage {
		out = append(out,
			Tool{Name: ListSessions, Description: sessionsDescription, Parameters: object(ns(map[string]any{
				"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": MaxSessions, "description": fmt.Sprintf("How many sessions to list, newest first (default %d).", DefaultSessions)},
				"since":  map[string]any{"type": "string", "description": "Only sessions with messages at or after this time: a date, a date and time, or a phrase such as \"last week\"."},
				"before": map[string]any{"type": "string", "description": "Only sessions with messages before this time, in the same forms as since."},
			}))},
			Tool{Name: MemoryStats, Description: statsDescription, Parameters: object(ns(map[string]any{}))},
			Tool{Name: ResolveTime, Description: timeDescription, Parameters: object(map[string]any{
				"phrase": map[string]any{"type": "string", "description": "The time phrase, alone or inside a question."},
				"now":    map[string]any{"type": "string", "description": "The reference time, RFC 3339 (default now)."},
			}, "phrase")},
			Tool{Name: ExportSession, Description: exportDescription, Parameters: object(ns(map[string]any{
				"session": map[string]any{"type": "string", "description": "The session id."},
				"format":  map[string]any{"type": "string", "enum": []string{ExportTurns, ExportJSONL}, "description": "turns (default) or jsonl."},
			}), "session")})
	}
	if opts.Forget {
		out = append(out, Tool{Name: ForgetMemory, Description: forgetDescription, Parameters: object(ns(map[string]any{
			"id":            map[string]any{"type": "string", "description": "Forget the messages of this turn (an anchor's id)."},
			"session":       map[string]any{"type": "string", "description": "Forget every message of this session."},
			"filter_expr":   map[string]any{"type": "string", "description": "Forget the turns that match this filter, in recall_memory's filter syntax."},
			"all_namespace": map[string]any{"type": "boolean", "description": "Forget everything in the namespace."},
			"dry_run":       map[string]any{"type": "boolean", "description": "List what would be forgotten and change nothing (default false)."},
		}))})
	}
	return out
}

func object(props map[string]any, required ...string) map[string]any {
	if required == nil {
		required = []string{} // never null: schema validators reject it
	}
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
