// Command huimem-bench measures HuiMemory: retrieval quality on the dev
// sets (LoCoMo, BEAM, the Chinese MemoryBank set) and performance (ingest,
// cold start, serving, many processes on one home). It is a separate
// binary so that huimem links none of the harnesses; the commands live in
// internal/bench.
package main

import (
	"os"

	"github.com/huimemory/huimemory/internal/bench"
	"github.com/huimemory/huimemory/internal/cli"
)

func main() { os.Exit(cli.Main(bench.Program)) }
