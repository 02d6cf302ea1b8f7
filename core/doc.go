// Package core holds HuiMemory's vocabulary: the types every other package
// speaks in. The package itself does no work on disk; the machinery that
// does lives in its subpackages (core/store, core/index, core/vector,
// core/engine, the servers) and beside it (archive, chunkers, plugins).
//
// A [Message] is one verbatim utterance. A [Chunk] (a turn chunk) is what
// gets indexed and recalled: by default one user message plus the assistant
// replies that follow it, or one message when that exchange is long. Every chunk has a short, stable [Anchor] id and
// links to its neighbours in the same session, so that an LLM can walk a
// conversation with recall_by_id. A [Query] goes in, a [Results] comes out.
//
// The interfaces [Embedder], [Chunker] and [Extractor] are implemented by the
// built-ins under chunkers/ and plugins/, and by external plugin processes.
// The engine (core/engine) is handed them; plugins/host builds them from a
// [Config], the plain configuration struct. Only cmd/huimem knows about
// files, flags and environment variables.
//
// The import graph runs one way, lower layers first; a package imports only
// its own layer or lower ones (docs/architecture.md has the full table, and
// internal/importgraph's test checks it):
//
//	0 leaves       timeparse, core/filter, core/index, core/vector, configs
//	1 vocabulary   core (this package; imports nothing of ours)
//	2 machinery    core/jsonl, core/formats, core/store, archive/transcript,
//	               archive, chunkers, the built-in embedders and extractors,
//	               internal/render
//	3 engine       core/engine, handed its parts
//	4 plugins      the go-plugin transport, plugins/builtin, plugins/host
//	5 services     core/tools, core/kernel, core/server, core/mcpserver,
//	               core/proxy, the benchmark harnesses under internal/
//	6 programs     cmd/huimem, examples/
package core
