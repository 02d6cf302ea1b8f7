// Package core holds HuiMemory's vocabulary: the types every other package
// speaks in, and nothing that does work on disk.
//
// A [Message] is one verbatim utterance. A [Chunk] (a turn chunk) is what
// gets indexed and recalled: by default one user message plus the assistant
// replies that follow it. Every chunk has a short, stable [Anchor] id and
// links to its neighbours in the same session, so that an LLM can walk a
// conversation with recall_by_id. A [Query] goes in, a [Results] comes out.
//
// The interfaces [Embedder], [Chunker] and [Extractor] are implemented by the
// built-in plugins under plugins/ and chunkers/, and by external plugin
// processes. [Config] is the plain configuration struct the engine takes;
// only cmd/huimem knows about files, flags and environment variables.
//
// The import graph runs one way:
//
//	timeparse, core/filter          leaves: import nothing of ours
//	core                            vocabulary (this package)
//	archive, chunkers, plugins/...  machinery beside core
//	core/store, core/index, core/vector
//	core/engine                     ties them together
//	cmd/huimem                      thin CLI on top
package core
