// Package host runs the plugins a configuration names and hands the engine
// ordinary core.Embedder, core.Chunker and core.Extractor values that talk
// to them.
//
// Each plugin in core.Config (the embedder, the chunker, each extractor) is
// either a built-in, named by name alone (`name: hash`), or an external
// program (`command: /path/to/bin`, with args, an optional sha256 and
// options). External programs always run as subprocesses through
// hashicorp/go-plugin. Built-ins run inside the calling process, built
// from package builtin, so that a one-shot command starts no second
// process; with cfg.Plugins.Subprocess (and an [Options.Executable]) they
// run as subprocesses too, served by the huimem binary itself (`huimem
// plugin serve KIND NAME`), through the same path as anyone's plugin.
//
// A plugin process starts at its first call, gets its options in a
// Configure call and reports its name, version (and, for an embedder, model
// and dimension) in an Info call. Every call is bounded by
// cfg.Plugins.Timeout. A plugin that dies, hangs past the timeout, or fails
// to start gives an [*Error] naming the plugin and its program; a dead or
// stopped plugin is started again at the next call. Because ingest is all
// or nothing, a plugin failing mid-ingest leaves nothing half-written.
//
// [Host.Close] ends every plugin process; go-plugin's CleanupClients does
// too, since the clients are managed.
//
// [Open] is the one way from a configuration to an engine: it builds the
// parts the caller did not hand it, opens core/engine with them, and ends
// the plugin processes when the engine closes.
package host
