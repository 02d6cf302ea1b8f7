// Package server is HuiMemory's HTTP API, what `huimem serve` runs: recall,
// recall_by_id, appending messages, tool dispatch, stats and health, with
// an OpenAPI document generated from the same route table that registers
// the handlers (GET /openapi.json).
//
// Every request runs through one [tools.Dispatcher], so the HTTP API speaks
// the tools' vocabulary (query, filter_expr, top_k, turn_id,
// context_window) and returns their stable error codes:
//
//	{"error": {"code": "invalid_arguments", "message": "top_k must be an integer, not \"five\""}}
//
// Security: the server listens on loopback unless a token is configured,
// checks bearer tokens in constant time, and binds a request whose token
// names a namespace to that namespace: no argument, filter expression or
// id can reach another namespace's memory.
//
// Concurrency: recalls run in parallel with each other and with appends;
// appends are serialised by the engine and durable when the request
// returns, and the very next recall sees them. [Server.Serve] shuts down
// gracefully when its context ends: it stops accepting requests, lets
// those in flight finish, and returns.
//
// The package sits on top of core/tools and core/engine; cmd/huimem mounts
// the MCP handler (core/mcpserver) at /mcp with [Server.Handle].
package server
