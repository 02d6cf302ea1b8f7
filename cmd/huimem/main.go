// Command huimem is HuiMemory's command-line interface: it ingests
// conversations, recalls them by keyword, meaning and time, serves them to
// agents over MCP and HTTP, and maintains the home directory. The commands
// live in internal/cli; the work is done by the library (core/engine and
// friends).
package main

import (
	"os"

	"github.com/huimemory/huimemory/internal/cli"
)

func main() { os.Exit(cli.Main(cli.Huimem)) }
