package cli

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/jsonl"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/examples"
	"github.com/huimemory/huimemory/internal/render"
)

// demoNow is the reference time of the demo, so that its output is the
// same on every machine.
var demoNow = time.Date(2026, 11, 29, 15, 0, 0, 0, time.FixedZone("CST", 8*3600))

// demoQueries are the recalls the demo runs.
var demoQueries = []core.Query{
	{Text: "AI 意识"},
	{Text: "上周三下午部署的时候出了什么问题？", Context: 1},
	{Text: "what does Alice prefer for the Kyoto trip?"},
	{Text: "type = 'decision'", Filter: "type = 'decision'"},
}

func (a *App) demoCmd() *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Ingest the embedded sample conversation into a scratch home and run a few recalls",
		Long: `Ingest the sample conversation of examples/quickstart (embedded in the
binary) into a scratch home, or into --home when given, and run a few
recalls with a fixed reference time (2026-11-29 15:00 +08:00).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if a.Home == "" {
				dir, err := os.MkdirTemp("", "huimem-demo-")
				if err != nil {
					return err
				}
				if !keep {
					defer os.RemoveAll(dir)
				}
				a.Home = dir
			}
			// The demo shows what the extractors add (话题, memories)
			// unless the configuration names its own.
			e, _, err := a.openWith(ctx, engine.Options{}, func(c *core.Config) {
				if len(c.Extractors) == 0 {
					c.Extractors = []core.PluginSpec{{Name: "general"}, {Name: "topic"}}
				}
			})
			if err != nil {
				return err
			}
			defer e.Close()
			msgs, err := jsonl.Read(bytes.NewReader(examples.Quickstart), "examples/quickstart/conversation.jsonl", jsonl.Options{})
			if err != nil {
				return err
			}
			res, err := e.Ingest(ctx, msgs)
			if err != nil {
				return err
			}
			w := a.Stdout
			fmt.Fprintf(w, "home: %s\n", e.Home())
			fmt.Fprintf(w, "ingested %d messages (%d new) into %d chunks\n", res.Messages, res.Added, res.Chunks)
			var lastHit *core.Hit // the first hit with a next chunk, to walk to
			for _, q := range demoQueries {
				q.Now, q.TopK = demoNow, 2
				if q.Filter != "" {
					q.Text = ""
				}
				r, err := e.Recall(ctx, q)
				if err != nil {
					return err
				}
				switch {
				case q.Filter != "":
					fmt.Fprintf(w, "\n=== recall --filter %q (top 2)\n\n", q.Filter)
				default:
					fmt.Fprintf(w, "\n=== recall %q (top 2, context %d)\n", q.Text, q.Context)
					if r.ResolvedTime != nil || len(r.ScannedWeeks) > 0 {
						fmt.Fprintf(w, "    searched %s for %q\n", tools.Scope(r), r.SearchText)
					}
					fmt.Fprintln(w)
				}
				if len(r.Hits) == 0 {
					fmt.Fprintln(w, "no memories found")
					continue
				}
				if err := render.Hits(w, r.Hits); err != nil {
					return err
				}
				if lastHit == nil && r.Hits[0].Next != "" {
					lastHit = &r.Hits[0]
				}
			}
			if lastHit != nil && lastHit.Next != "" {
				fmt.Fprintf(w, "\n=== recall_by_id %s (walking to the next turn)\n\n", lastHit.Next)
				hits, err := e.RecallByID(ctx, "", lastHit.Next, 0)
				if err != nil {
					return err
				}
				if err := render.Chunks(w, hits); err != nil {
					return err
				}
			}
			if keep {
				fmt.Fprintf(w, "\nkept the home; try: huimem --home %s recall \"本地模型部署\"\n", e.Home())
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the scratch home and print its path")
	return cmd
}
