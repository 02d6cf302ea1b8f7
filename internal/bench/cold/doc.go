// Package cold measures HuiMemory as agents that call it as a command see
// it: whole processes. It ingests a corpus with one `huimem ingest`
// process and then times one-shot `huimem recall` and `huimem get`
// processes, each a cold start, recording wall time, CPU time and the
// peak RSS of each child (see Proc). The corpus is synthetic
// (internal/synth, one namespace) or real chat files given by path (the
// BEAM chats), read where they are. `huimem bench cold` runs it.
//
// A process's peak RSS includes the pages of the binary it maps, which
// depend on the page cache's state as well as on the program; Options.Evict
// measures a binary read back from disk (evict.go).
package cold
