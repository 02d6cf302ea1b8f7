// Package chunkers holds HuiMemory's built-in chunkers, which cut a
// session's messages into the turn chunks that get indexed and recalled.
//
//   - [Turn], the default: a user message plus the assistant replies that
//     follow it (an exchange pair). A session without user/assistant roles,
//     such as two people chatting, gets one chunk per message.
//   - [Message]: one chunk per message.
//   - [Window]: about 800 characters of transcript with 100 of overlap,
//     breaking at paragraph or line boundaries, in one pass over the text.
//   - [Markdown]: one chunk per heading section of the messages, with its
//     section path ("Install > Linux").
//
// Each implements core.Chunker. They are deterministic: the same messages
// always give the same spans, so chunk ids stay stable on re-ingest.
package chunkers
