// Package pb is the Go code generated from HuiMemory's plugin protocol,
// plugins/proto/huimem/plugin/v1/*.proto. Do not edit the *.pb.go files:
// change the .proto files and run scripts/gen-proto.sh.
//
// The package is internal on purpose: the public API of the plugin kinds is
// the hand-written Go types in plugins/embedder, plugins/chunker and
// plugins/extractor, which convert to and from these messages.
package pb

//go:generate ../../../scripts/gen-proto.sh
