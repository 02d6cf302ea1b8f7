// Package oaihttp is HuiMemory's one client of OpenAI-compatible HTTP
// APIs, shared by its three callers: the embeddings client
// (plugins/embedder/openai), the chat client of the llm extractor
// (plugins/extractor/llm) and the memory proxy's upstream (core/proxy).
//
// A [Client] posts JSON to one endpoint with the API key as a bearer
// token. [Client.Send] makes one request and hands back the response of a
// 2xx answer unread, for the proxy to stream or pass on; any other status
// is an [*HTTPError] that keeps the start of the body. [Client.Post] is
// the embedder's and the extractor's call: it reads a whole answer within
// a size limit and retries 429, 5xx and transport failures after a
// jittered backoff or the server's Retry-After, each attempt within
// [Options.Timeout]; a failure to get an answer is a [*TransportError].
//
// Beside the client it resolves endpoints from base URLs ([Endpoint]),
// hides passwords in messages ([RedactURL]), and finds the message in an
// error answer of the servers people run: OpenAI, Ollama, vLLM, TEI,
// llama.cpp ([ServerMessage]).
//
// It is a leaf: it imports nothing of HuiMemory's, and it never logs.
package oaihttp
