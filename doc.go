// Package huimemory is HuiMemory in one import: [Open] a memory in a
// folder, then [Memory.Append] messages or [Memory.Ingest] a chat export,
// [Memory.Recall] them by keyword, meaning and time, walk a conversation
// with [Memory.Get], and hand an LLM the memory tools with [Memory.Tools].
//
//	mem, err := huimemory.Open("memory", nil) // nil: the built-in defaults, no network
//	if err != nil { ... }
//	defer mem.Close()
//	mem.Append(ctx, huimemory.Message{Session: "s1", Time: time.Now(), Role: huimemory.RoleUser, Text: "..."})
//	res, err := mem.Recall(ctx, huimemory.Query{Text: "what did we decide about deploying?"})
//
// The package is a thin front door over the packages that do the work, and
// adds no behaviour of its own: [Open] builds the parts a configuration
// names and opens the engine with plugins/host's Open, each method of
// [Memory] calls one method of core/engine's Engine, and [Memory.Tools] is
// the core/tools dispatcher that `huimem mcp` serves. The
// folder it opens is an ordinary HuiMemory home, in the same formats:
// the huimem command reads it (`huimem --home DIR recall ...`), and a
// memory opens any home huimem made.
//
// The types a caller needs ([Message], [Query], [Results], [Hit],
// [Anchor], [Config], the options and results of each method) are aliases
// of the types in core and core/engine, and the errors are the same
// values, so errors.Is works across both. [Memory.Engine] reaches
// everything else the engine offers (sessions, stats, sealing, reindexing).
//
// A [Memory] is safe for concurrent use by several goroutines: writes are
// serialised, and recalls run in parallel with each other and with writes.
// By default it holds its folder exclusively, from Open to Close; with
// [Options.Shared] it shares the folder with huimem commands and servers
// running beside it.
//
// Nothing inside the module imports this package but the programs (cmd/,
// examples/); internal/importgraph checks it.
package huimemory
