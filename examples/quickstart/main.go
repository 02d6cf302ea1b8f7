package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/huimemory/huimemory"
)

func main() {
	home := flag.String("home", "", "HuiMemory home (default: a scratch directory, removed afterwards)")
	file := flag.String("file", "conversation.jsonl", "conversation to ingest: JSONL, or any chat export huimem ingest reads")
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
	// Open (or create) a home; nil options mean the built-in defaults.
	mem, err := huimemory.Open(home, nil)
	if err != nil {
		return err
	}
	defer mem.Close()

	// Ingest: messages are stored verbatim and cut into turn chunks.
	in, err := mem.Ingest(ctx, file)
	if err != nil {
		return err
	}
	if in.Unchanged {
		fmt.Println("already ingested:", file)
	} else {
		fmt.Printf("ingested %d messages (%d new) into %d chunks\n", in.Messages, in.Added, in.Chunks)
	}

	// Recall by keyword and meaning; each hit carries an anchor with prev/next ids.
	res, err := mem.Recall(ctx, huimemory.Query{Text: "ryokan near Gion", TopK: 1})
	if err != nil || len(res.Hits) == 0 {
		return fmt.Errorf("recall found nothing (%v)", err)
	}
	hit := res.Hits[0]
	fmt.Printf("recall: %s %s\n", hit.Anchor, hit.Messages[0].Text)

	// recall_by_id: walk to the turn before it.
	prev, err := mem.Get(ctx, hit.Prev, 0)
	if err != nil {
		return err
	}
	fmt.Printf("prev:   %s %s\n", prev[0].Anchor, prev[0].Messages[0].Text)

	// One LLM tool call, as a chat loop would run it: the text is what the LLM reads.
	text, err := mem.Tools().Dispatch(ctx, "recall_memory", `{"query":"Ollama 部署 决定","top_k":1}`)
	fmt.Print("tool recall_memory:\n", text)
	return err
}
