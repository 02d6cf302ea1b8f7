// Package contract is the test suite every plugin implementation must
// pass, whatever runs it: a built-in called directly, the same built-in
// over in-process gRPC, or a plugin process. Tests call [Embedder],
// [Chunker] or [Extractor] with the implementation under test.
//
// The suite checks what the engine relies on: an embedder returns one
// finite vector of its stated dimension per text, the same vector for the
// same text whatever the batch, and honours a cancelled context; a chunker
// returns ordered, in-range spans that cover every message, the same each
// time; an extractor returns typed memories, the same each time.
package contract
