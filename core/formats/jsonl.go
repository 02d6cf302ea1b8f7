package formats

import (
	"io"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/jsonl"
)

// readJSONL reads HuiMemory's generic JSONL with [jsonl.Read].
func readJSONL(r io.Reader, name string, opts Options) ([]core.Message, error) {
	return jsonl.Read(r, name, jsonl.Options{Location: opts.loc(), Namespace: opts.Namespace})
}
