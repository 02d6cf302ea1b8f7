// Package shared holds what the three plugin kinds (plugins/embedder,
// plugins/chunker, plugins/extractor) and the host (plugins/host) must
// agree on: the go-plugin handshake and protocol version, the gRPC message
// limits, the mapping between Go errors and gRPC status codes, and the
// converters for the messages that more than one kind sends.
//
// It also holds the machinery the kinds have in common, written once with
// generics: on the plugin side the [Factory], [Static], the optional
// [Configurer] and [Versioner] interfaces, and [Impl], the lazily built
// implementation behind the Configure and Info calls with its name and
// version fallbacks; on the host side [CallConfigure] and [CallInfo]. Each
// kind keeps only its own interface, its gRPC service adapter with its
// converters, its go-plugin glue and its public API, and re-exports
// Factory, Configurer and Versioner as aliases.
//
// Nothing here is public API: a plugin author calls a kind's Serve, and a
// host uses plugins/host.
package shared
