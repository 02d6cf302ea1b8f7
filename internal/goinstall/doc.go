// Package goinstall holds the tests that HuiMemory installs as a user
// installs it: go.mod names upstream modules only (no replace directive),
// and `go install github.com/huimemory/huimemory/cmd/huimem@VERSION`
// builds from a module proxy that serves this tree as VERSION. It has no
// code of its own.
package goinstall
