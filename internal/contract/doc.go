// Package contract holds the engine's contract suite: one set of tests
// of the engine's public behaviour, run against every storage backend
// (the embedded home, and PostgreSQL), the way litestream runs its
// replica tests against every client (issue 17). The package has no
// code of its own; see contract_test.go.
package contract
