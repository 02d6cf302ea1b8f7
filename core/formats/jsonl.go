package formats

import (
	"io"
	"iter"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/jsonl"
)

// readJSONL reads HuiMemory's generic JSONL with [jsonl.Read].
func readJSONL(r io.Reader, name string, opts Options) ([]core.Message, error) {
	return jsonl.Read(r, name, jsonl.Options{Location: opts.loc(), Namespace: opts.Namespace})
}

// streamJSONL streams HuiMemory's generic JSONL with [jsonl.Stream].
func streamJSONL(r io.Reader, name string, opts Options) iter.Seq2[core.Message, error] {
	return jsonl.Stream(r, name, jsonl.Options{Location: opts.loc(), Namespace: opts.Namespace})
}
