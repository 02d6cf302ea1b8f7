// Package builtin is the registry of HuiMemory's built-in plugins: it maps
// each built-in name to a constructor that takes the plugin's options as a
// string map, the same map a plugin process receives in its Configure call.
//
//	embedders   hash, openai, use-lite   (plugins/embedder/...)
//	chunkers    turn, message, window, markdown   (package chunkers)
//	extractors  general, llm, topic   (plugins/extractor/...)
//
// plugins/host uses it to build the built-ins in process, and
// `huimem plugin serve KIND NAME` uses it to serve one as a plugin process,
// so that a built-in behaves the same either way.
package builtin
