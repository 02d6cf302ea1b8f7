package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/render"
)

type recallFlags struct {
	q             core.Query
	since, before string
	now           string
	context       int
	asJSON        bool
}

func (a *app) recallCmd() *cobra.Command {
	var f recallFlags
	cmd := &cobra.Command{
		Use:   "recall [flags] QUERY",
		Short: "Find the turns that best match a query, by keyword, meaning and time",
		Args:  minimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, cfg, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			q, err := f.query(cmd, cfg, joinArgs(args))
			if err != nil {
				return err
			}
			res, err := e.Recall(cmd.Context(), q)
			if err != nil {
				return err
			}
			if f.asJSON {
				return render.JSON(a.stdout, render.NewJSONResults(res))
			}
			if len(res.Hits) == 0 {
				fmt.Fprintln(a.stdout, "no memories found")
				return nil
			}
			return render.Hits(a.stdout, res.Hits)
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&f.q.TopK, "top-k", "k", 0, "number of hits (default retriever.top_k)")
	fl.StringVar(&f.since, "since", "", "only chunks at or after this time (2026-04-06, 2026-04-06 15:04 or RFC 3339)")
	fl.StringVar(&f.before, "before", "", "only chunks before this time")
	fl.IntVarP(&f.context, "context", "c", -1, "neighbouring chunks to show on each side of a hit (default retriever.context_window)")
	fl.StringVarP(&f.q.Namespace, "namespace", "n", "", "namespace to search")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	return cmd
}

// query turns the flags into a core.Query.
func (f *recallFlags) query(cmd *cobra.Command, cfg core.Config, text string) (core.Query, error) {
	q := f.q
	q.Text = text
	loc := time.Local
	var err error
	if f.since != "" {
		if q.Since, err = parseTimeFlag("--since", f.since, loc); err != nil {
			return q, err
		}
	}
	if f.before != "" {
		if q.Before, err = parseTimeFlag("--before", f.before, loc); err != nil {
			return q, err
		}
	}
	q.Context = f.context
	if q.Context < 0 {
		q.Context = cfg.Retriever.ContextWindow
	}
	return q, nil
}

func joinArgs(args []string) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += " "
		}
		s += a
	}
	return s
}
