package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/plugins/host"
)

func main() {
	home := flag.String("home", "", "HuiMemory home (default: a scratch directory, removed afterwards)")
	file := flag.String("file", "conversation.jsonl", "conversation to ingest, JSONL")
	flag.Parse()
	if err := run(context.Background(), *home, *file); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, home, file string) error {
	if home == "" {
		dir, err := os.MkdirTemp("", "huimem-quickstart-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		home = dir
	}
	// Open (or create) a home; the zero config means the built-in defaults.
	mem, err := host.Open(ctx, core.Config{Storage: core.StorageConfig{Home: home}}, engine.Options{}, host.Options{})
	if err != nil {
		return err
	}
	defer mem.Close()

	// Ingest: messages are stored verbatim and cut into turn chunks.
	in, err := mem.IngestFile(ctx, file, engine.FileOptions{})
	if err != nil {
		return err
	}
	if in.Unchanged {
		fmt.Println("already ingested:", file)
	} else {
		fmt.Printf("ingested %d messages (%d new) into %d chunks\n", in.Messages, in.Added, in.Chunks)
	}

	// Recall by keyword and meaning; each hit carries an anchor with prev/next ids.
	res, err := mem.Recall(ctx, core.Query{Text: "ryokan near Gion", TopK: 1})
	if err != nil || len(res.Hits) == 0 {
		return fmt.Errorf("recall found nothing (%v)", err)
	}
	hit := res.Hits[0]
	fmt.Printf("recall: %s %s\n", hit.Anchor, hit.Messages[0].Text)

	// recall_by_id: walk to the turn before it.
	prev, err := mem.RecallByID(ctx, "", hit.Prev, 0)
	if err != nil {
		return err
	}
	fmt.Printf("prev:   %s %s\n", prev[0].Anchor, prev[0].Messages[0].Text)

	// One LLM tool call, as a chat loop would run it: the text is what the LLM reads.
	d := tools.New(mem, tools.Options{})
	text, err := d.Dispatch(ctx, tools.RecallMemory, `{"query":"Ollama 部署 决定","top_k":1}`)
	fmt.Print("tool recall_memory:\n", text)
	return err
}
