// Package shared holds what the three plugin kinds (plugins/embedder,
// plugins/chunker, plugins/extractor) and the host (plugins/host) must
// agree on: the go-plugin handshake and protocol version, the gRPC message
// limits, the mapping between Go errors and gRPC status codes, and the
// converters for the messages that more than one kind sends.
//
// It also holds the go-plugin glue, written once with generics over the
// kind. [Plugin] is the plugin.GRPCPlugin of every kind
// (NetRPCUnsupportedPlugin, GRPCServer, GRPCClient) and [Plugin.Serve]
// serves it with the shared handshake; a kind describes itself to it with
// a [Kind]: its name, the registration of its gRPC service and its
// client's constructor. On the plugin side [ServeConfig], [Factory],
// [Static], the optional [Configurer] and [Versioner] interfaces, and
// [Impl], the lazily built implementation with its name and version
// fallbacks, behind [Service], which serves the Configure and Info calls.
// On the host side [Conn], which makes them, and [PluginInfo].
//
// Each kind keeps only its own interface, its Kind, the calls of its own
// service on both sides with their converters, and its public API: Serve,
// ServeWith, Static, Client, and aliases for Plugin, ServeConfig, Factory,
// Configurer and Versioner.
//
// Nothing here is public API: a plugin author calls a kind's Serve, and a
// host uses plugins/host.
package shared
