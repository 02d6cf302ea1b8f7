// Package chunker is the plugin kind that cuts a session's messages into
// chunks: the [Chunker] interface (an alias of core.Chunker, so there is
// one definition), the go-plugin glue that carries it over gRPC between
// processes, and [Serve], which is all a plugin's main has to call:
//
//	func main() { chunker.Serve(myChunker{}) }
//
// A chunker gets one session's messages in time order, each with the
// transcript lines it occupies, and returns spans: runs of messages with
// the lines they cover (line_start, line_end). The engine checks the spans
// it gets back, from a plugin or not.
//
// The host side is [Client], which HuiMemory's plugins/host starts for the
// configured chunker. The wire protocol is
// plugins/proto/huimem/plugin/v1/chunker.proto, so a plugin can also be
// written in any language go-plugin supports. The built-in chunkers live in
// package chunkers and are served through this package too
// (`huimem plugin serve chunker NAME`).
package chunker
