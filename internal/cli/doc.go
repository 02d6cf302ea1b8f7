// Package cli holds HuiMemory's command-line programs: [Huimem], the
// commands of cmd/huimem, and the shared [App] (configuration loading,
// opening a home, exit codes, one-line errors) that cmd/huimem-bench's
// commands (internal/bench) build on. Each subcommand lives in its own
// file; the work is done by the library (core/engine and friends).
package cli
