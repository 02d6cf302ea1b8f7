package main

import (
	"strings"

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
		Long: `Show one chunk by id (recall_by_id), with N neighbours on each side.
Ids are matched whatever their case (they are printed in lower case). With
time.zone or --tz set, times are shown in that zone.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := strings.ToLower(strings.TrimSpace(args[0]))
			e, cfg, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			hits, err := e.RecallByID(cmd.Context(), ns, id, window)
			if err != nil {
				return err
			}
			inZone(hits, cfg)
			if asJSON {
				return render.JSON(a.stdout, render.JSONResults{Query: id, Results: render.NewJSONHits(hits)})
			}
			return render.Chunks(a.stdout, hits)
		},
	}
	cmd.Flags().IntVarP(&window, "context", "c", 0, "neighbouring chunks to show on each side")
	cmd.Flags().StringVarP(&ns, "namespace", "n", "", "namespace the chunk belongs to")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	a.tzFlag(cmd)
	return cmd
}
