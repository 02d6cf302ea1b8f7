// Package importgraph holds no code: its test checks the module's import
// graph against the layer table in docs/architecture.md, so that imports
// run one way (a package imports only packages of its own layer or lower
// ones), every package has a place in the table, the engine links no gRPC,
// go-plugin, net/http or expvar (nor bleve's root package, which imports
// expvar), and the packages that need no cgo do not link zstd. The
// test also keeps the generated edge list in that document current; run
//
//	go test ./internal/importgraph -update
//
// after changing an import.
package importgraph
