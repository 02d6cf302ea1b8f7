// Package proxy is takeover mode's memory proxy: an OpenAI-compatible
// POST /v1/chat/completions that a host points its ordinary OpenAI client
// at, what `huimem serve --mode takeover --upstream URL` mounts.
//
// The host keeps no history. Each request carries only the new user
// message and a session id, in the X-Huimem-Session header or, failing
// that, the request's "user" field. For each request the [Handler]:
//
//  1. stores the user message durably in the session, through a
//     [kernel.Kernel] over the namespace of the request's bearer token
//     ([server.DispatcherFrom]); a retried request, whose message equals
//     the session's last stored message with no answer after it, is not
//     stored again;
//  2. assembles the context with [kernel.Kernel.Context]: the memory
//     block, the profile, the session's recent turns and the new message,
//     within the token budget, plus the memory tools' schemas;
//  3. calls the upstream model's /chat/completions with the host's other
//     request fields (model, temperature, its own tools, ...) untouched
//     and the memory tools added;
//  4. runs the recall_memory and recall_by_id calls the model makes
//     itself, appends the results and calls again, at most
//     MaxToolRounds times; a response that calls any of the host's own
//     tools goes back to the host unchanged;
//  5. stores the final answer in the session and returns the upstream's
//     response, or streams it as server-sent events when the request asks
//     for "stream": true.
//
// What the host sends in "messages": the last user message is the new
// message. System and developer messages before it are the host's own
// instructions and are sent first, before HuiMemory's memory message;
// their tokens count against the budget. Earlier user, assistant and tool
// messages are ignored: HuiMemory owns the history, and sending them
// again would repeat it. Messages after the last user message (the
// assistant's call of a host tool and the host's tool results) continue
// the host's own tool loop and are sent after it, untouched.
//
// Errors are OpenAI-shaped, {"error": {"message", "type", "code"}}:
// 400 for a bad request (missing_session, invalid_messages, ...), 502 for
// an upstream that fails or cannot be reached, 504 for one that times out.
// A 4xx from the upstream other than 401 and 403 (a bad model name, a rate
// limit) is the host's to see and comes back with its status and body.
// The user's message is stored before the upstream is called, so an
// upstream failure loses nothing and a retry finds it stored.
//
// The package sits on top of core/kernel and core/server; cmd/huimem
// mounts the handler with [server.Server.Handle]. A [Handler] is safe for
// concurrent use.
package proxy
