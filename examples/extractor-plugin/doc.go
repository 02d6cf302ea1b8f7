// Command extractor-plugin is a complete external HuiMemory extractor: a
// keyword extractor that runs as its own process. HuiMemory starts it,
// sends it each new chunk, and stores the memory it returns with the chunk,
// where `huimem recall --json` shows it.
//
// Build it, point an extractors entry of config.yaml at the binary, and
// ingest; README.md in this folder walks through it. The whole plugin side
// is one call in main: extractor.Serve(impl).
package main
