// Package openai is HuiMemory's embedder for any server that speaks the
// OpenAI embeddings API, POST /v1/embeddings: OpenAI itself, Ollama, vLLM,
// Hugging Face text-embeddings-inference, llama.cpp's server and the like.
// [Embedder] satisfies core.Embedder; the engine calls it in-process, and
// the plugin host can serve it to other processes.
//
// A request is
//
//	{"model": "<model>", "input": ["text", ...], "encoding_format": "float"}
//
// with the API key, when there is one, as "Authorization: Bearer <key>".
// The answer's data[i].embedding vectors are put back in input order by
// their index. Base64 embeddings are accepted too, for servers that ignore
// encoding_format.
//
// [Embedder.Embed] sends texts in batches of Config.BatchSize (64), one
// batch at a time. A batch that fails with 429 Too Many Requests, a 5xx
// status or a transport error (including one attempt running over
// Config.Timeout) is retried up to Config.MaxRetries (5) times, after an
// exponential backoff with jitter, or after the server's Retry-After when
// it sends one. Other 4xx statuses fail at once. Errors read
//
//	openai embedder: POST http://localhost:11434/v1/embeddings: 401 Unauthorized: <server message>
//
// and a status error is an [*HTTPError]. Every vector is checked: it must
// have the configured dimension (or, when Config.Dim is 0, the dimension
// the first answer had) and hold only finite numbers.
//
// [Embedder.Info] reports Name, the model and the dimension. With
// Config.Dim 0 it learns the dimension once, from the first answer, by
// embedding [ProbeText] if nothing was embedded yet.
//
// The package never logs, and the API key appears in no error and in no
// formatted [Config]. An [Embedder] is safe for concurrent use.
package openai
