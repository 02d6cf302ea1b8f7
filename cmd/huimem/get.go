package main

import (
	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *app) getCmd() *cobra.Command {
	var ns string
	var window int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get [--context N] [--json] ID",
		Short: "Show one chunk by id (recall_by_id), with N neighbours on each side",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, _, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			hits, err := e.RecallByID(cmd.Context(), ns, args[0], window)
			if err != nil {
				return err
			}
			if asJSON {
				return render.JSON(a.stdout, render.JSONResults{Query: args[0], Results: render.NewJSONHits(hits)})
			}
			return render.Chunks(a.stdout, hits)
		},
	}
	cmd.Flags().IntVarP(&window, "context", "c", 0, "neighbouring chunks to show on each side")
	cmd.Flags().StringVarP(&ns, "namespace", "n", "", "namespace the chunk belongs to")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}
