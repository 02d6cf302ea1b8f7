package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/engine"
)

func (a *app) reindexCmd() *cobra.Command {
	var embed bool
	cmd := &cobra.Command{
		Use:   "reindex [--embed]",
		Short: "Rebuild the search index from the store; re-embed when the embedder changed",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, _, err := a.open(cmd.Context(), engine.Options{AllowEmbedderChange: true})
			if err != nil {
				return err
			}
			defer e.Close()
			res, err := e.Reindex(cmd.Context(), engine.ReindexOptions{Embed: embed})
			if err != nil {
				return err
			}
			what := "indexed"
			if res.Embedded {
				what = "re-embedded and indexed"
			}
			fmt.Fprintf(a.stdout, "%s %d chunks\n", what, res.Chunks)
			return nil
		},
	}
	cmd.Flags().BoolVar(&embed, "embed", false, "re-embed every chunk even if the embedder has not changed")
	return cmd
}
