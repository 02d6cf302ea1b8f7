package cli

import (
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/engine"
)

func (a *App) reindexCmd() *cobra.Command {
	var embed, quiet bool
	cmd := &cobra.Command{
		Use:   "reindex [--embed] [--quiet]",
		Short: "Rebuild the search index from the store; re-embed when the embedder changed",
		Long: `Rebuild the search index from the store. When the configured embedder is
not the one the stored vectors came from (say the home was embedded with
hash and use-lite is now installed), re-embed every chunk first, with a
progress bar on a terminal, then replace all vectors at once. Recall in
other processes goes on meanwhile, with the old vectors. Stopping it (or a
crash) before the end leaves the home as it was, and keeps the vectors
made so far in <home>/reembed.partial: run it again to finish from there.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, _, err := a.open(cmd.Context(), engine.Options{AllowEmbedderChange: true})
			if err != nil {
				return err
			}
			defer e.Close()
			// No progress lines off a terminal: the result line says it.
			opts := engine.ReindexOptions{Embed: embed, Progress: func(int, int) {}}
			var bar *progressbar.ProgressBar
			if !quiet && a.stderrIsTerminal() {
				info := e.EmbedderInfo()
				opts.Progress = func(done, total int) {
					if bar == nil {
						bar = progressbar.NewOptions(total,
							progressbar.OptionSetWriter(a.Stderr),
							progressbar.OptionSetDescription("embedding with "+info.Name),
							progressbar.OptionSetItsString("chunks"),
							progressbar.OptionShowCount(),
							progressbar.OptionShowIts(),
							progressbar.OptionSetPredictTime(true),
							progressbar.OptionThrottle(100*time.Millisecond),
							progressbar.OptionClearOnFinish(),
						)
					}
					bar.Set(done)
				}
			}
			res, err := e.Reindex(cmd.Context(), opts)
			if bar != nil {
				if err == nil {
					bar.Finish()
				} else {
					bar.Exit()
				}
			}
			if err != nil {
				return err
			}
			switch {
			case !res.Embedded:
				fmt.Fprintf(a.Stdout, "indexed %d chunks\n", res.Chunks)
			case res.Resumed > 0:
				fmt.Fprintf(a.Stdout, "re-embedded with %s and indexed %d chunks (%d embedded by an interrupted reindex)\n",
					e.EmbedderInfo().Name, res.Chunks, res.Resumed)
			default:
				fmt.Fprintf(a.Stdout, "re-embedded with %s and indexed %d chunks\n", e.EmbedderInfo().Name, res.Chunks)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&embed, "embed", false, "re-embed every chunk even if the embedder has not changed")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar and no progress lines")
	return cmd
}
