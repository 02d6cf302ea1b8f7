// Package shared holds what the three plugin kinds (plugins/embedder,
// plugins/chunker, plugins/extractor) and the host (plugins/host) must
// agree on: the go-plugin handshake and protocol version, the gRPC message
// limits, the mapping between Go errors and gRPC status codes, and the
// converters for the messages that more than one kind sends.
//
// Nothing here is public API: a plugin author calls a kind's Serve, and a
// host uses plugins/host.
package shared
