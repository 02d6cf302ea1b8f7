// Package embedder is the plugin kind that turns texts into vectors: the
// [Embedder] interface (an alias of core.Embedder, so there is one
// definition), the go-plugin glue that carries it over gRPC between
// processes, and [Serve], which is all a plugin's main has to call:
//
//	func main() { embedder.Serve(myEmbedder{}) }
//
// The host side is [Client], which HuiMemory's plugins/host starts for each
// configured embedder plugin. It checks what comes back: one vector per
// text, each of the dimension the plugin's Info reports, with no NaN or
// infinity; anything else is an [ErrInvalidVector].
//
// The wire protocol is plugins/proto/huimem/plugin/v1/embedder.proto, so a
// plugin can also be written in any language go-plugin supports. The
// built-in embedders live in the sub-packages hash, openai and uselite, and
// are served through this package too (`huimem plugin serve embedder NAME`).
package embedder
