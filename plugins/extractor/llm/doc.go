// Package llm is HuiMemory's distilling extractor (LLM 提炼): it asks a
// language model behind any OpenAI-compatible chat endpoint,
// POST /v1/chat/completions (OpenAI, Ollama, vLLM, llama.cpp's server,
// LM Studio and the like), which memories a turn chunk holds. [Extractor]
// satisfies core.Extractor; it is registered as the built-in extractor
// "llm" in plugins/builtin and served as a plugin process like general and
// topic.
//
// # The request
//
// One request per chunk: a system message that describes the memory types
// and the answer's shape, and a user message with the chunk's session,
// time and text (at most [MaxInputRunes] runes of it, the rest cut off
// with a marker). The answer is constrained with
//
//	"response_format": {"type": "json_schema", "json_schema": {"name": "memories", "strict": true, "schema": ...}}
//
// ([Schema] is the schema), or with {"type": "json_object"} when
// Config.ResponseFormat is "json_object", for servers without structured
// outputs. The temperature is 0 unless configured otherwise, so that the
// same chunk gives the same memories as far as the server allows.
//
// # The answer
//
// The message content must be exactly one JSON object
//
//	{"memories": [{"type": "decision", "facts": ["..."], "entities": ["..."], "topic": "..."}]}
//
// and it is checked whatever the server promised: no unknown fields, at
// most [MaxMemories] memories, each of a known type ([Types]: decision,
// preference, milestone, problem, emotional, the vocabulary of the general
// extractor), with 1 to [MaxFacts] non-empty facts of at most
// [MaxFactRunes] runes, at most [MaxEntities] entities of at most
// [MaxEntityRunes] runes and a topic of at most [MaxTopicRunes] runes.
// Surrounding white space is trimmed and repeated entities dropped; nothing
// else is repaired. An empty list is a valid answer: the turn holds nothing
// worth remembering.
//
// # Failures
//
// A failure is an error on that chunk, never a silent skip: [Extractor.Extract]
// returns an [*Error] that names the chunk (session, time, transcript
// lines) and says what went wrong. A request that fails with 429, a 5xx
// status or a transport error (including one attempt running over
// Config.Timeout) is retried up to Config.MaxRetries times after an
// exponential backoff with jitter, or after the server's Retry-After. A
// retry that could not finish before the caller's deadline is not started,
// and no attempt runs past that deadline, so the plugin host sees the
// extractor's own error rather than a hung plugin. An answer that is not
// valid JSON or breaks the schema is not retried in the same call (at
// temperature 0 it would most likely come back the same); it wraps
// [ErrBadAnswer]. [Temporary] tells the errors worth trying again later
// from the others.
//
// The package never logs, and the API key appears in no error and in no
// formatted [Config]. An [Extractor] is safe for concurrent use.
package llm
