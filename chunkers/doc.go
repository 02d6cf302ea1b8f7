// Package chunkers holds HuiMemory's built-in chunkers, which cut a
// session's messages into the turn chunks that get indexed and recalled.
//
//   - [Turn], the default: a user message plus the assistant replies that
//     follow it (an exchange pair). A session without user/assistant roles,
//     such as two people chatting, gets one chunk per message.
//   - [Message]: one chunk per message.
//
// Each implements core.Chunker. They are deterministic: the same messages
// always give the same spans, so chunk ids stay stable on re-ingest.
package chunkers
