// Package mcpserver serves HuiMemory's tools over the Model Context
// Protocol, on the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// [New] builds an MCP server whose tools are exactly those of a
// [tools.Dispatcher] (recall_memory, recall_by_id, and remember when the
// dispatcher allows it), advertised with the JSON Schemas of
// [tools.Definitions] and run through [tools.Dispatcher.Call], so MCP hosts,
// the HTTP API and Go callers share one vocabulary and one set of checks. A
// failed call (bad arguments, an unknown id, even an unknown tool name) comes
// back as an MCP tool error, a result with isError set whose text starts
// with the stable error code ("invalid_arguments: …"), never as a protocol
// error: the LLM reads it and can correct itself.
//
// Two transports sit on top: `huimem mcp` runs a server over stdin and
// stdout, and [HTTPHandler] serves the streamable HTTP transport (mounted by
// `huimem serve` at /mcp), building a server per request from the dispatcher
// its callback returns, which is how a bearer token is bound to a namespace.
//
// The package imports core/tools, internal/render and the SDK; only
// cmd/huimem and the HTTP server import it.
package mcpserver
