// Package tools gives an LLM loop HuiMemory's tools: recall_memory,
// recall_by_id and remember, list_sessions, memory_stats, resolve_time,
// export_session and forget_memory, their schemas in the OpenAI, Anthropic and MCP
// forms, a [Dispatcher] that runs a tool call and returns the text the LLM
// should read, and the memory-rules system prompt in Chinese and English.
//
// A host loop needs one line per tool call:
//
//	text, _ := d.Dispatch(ctx, call.Name, call.Arguments)
//
// Dispatch never returns an empty text: bad arguments, an unknown tool or an
// unknown id come back as a short message the LLM can act on (and as an
// [*Error] for the host). The HTTP server (core/server), the MCP server
// (core/mcpserver), `recall --json --batch` and the takeover kernel all
// parse arguments through this package, so one vocabulary (query,
// filter_expr, top_k, turn_id, context_window, since, before) runs through
// every interface.
//
// The package sits above core/engine: it imports core, core/engine (for the
// ingest result) and internal/render (the recall text format), and nothing
// imports it but the servers and cmd/huimem.
package tools
