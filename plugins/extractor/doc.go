// Package extractor is the plugin kind that reads a chunk and returns the
// typed memories it holds (type, entities, topic, key facts): the
// [Extractor] interface (an alias of core.Extractor, so there is one
// definition), the go-plugin glue that carries it over gRPC between
// processes, and [Serve], which is all a plugin's main has to call:
//
//	func main() { extractor.Serve(myExtractor{}) }
//
// examples/extractor-plugin is a complete one.
//
// The host side is [Client], which HuiMemory's plugins/host starts for each
// configured extractor. The wire protocol is
// plugins/proto/huimem/plugin/v1/extractor.proto, so a plugin can also be
// written in any language go-plugin supports. The built-in extractors live
// in the sub-packages general and topic, and are served through this
// package too (`huimem plugin serve extractor NAME`).
package extractor
