package cli

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/render"
	"github.com/huimemory/huimemory/internal/startheap"
)

func (a *App) getCmd() *cobra.Command {
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
			startheap.Raise(oneShotHeap)
			id := strings.ToLower(strings.TrimSpace(args[0]))
			return runQuery(a, cmd, query[[]core.Hit]{
				JSON: asJSON,
				Ask: func(ctx context.Context, e *engine.Engine) ([]core.Hit, error) {
					hits, err := e.RecallByID(ctx, ns, id, window)
					inZone(hits, e.Config())
					return hits, err
				},
				Text: func(w io.Writer, hits []core.Hit, _ error) error { return render.Chunks(w, hits) },
				AsJSON: func(hits []core.Hit) any {
					return render.JSONResults{Query: id, Results: render.NewJSONHits(hits)}
				},
			})
		},
	}
	cmd.Flags().IntVarP(&window, "context", "c", 0, "neighbouring chunks to show on each side")
	cmd.Flags().StringVarP(&ns, "namespace", "n", "", "namespace the chunk belongs to")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	a.tzFlag(cmd)
	return cmd
}
