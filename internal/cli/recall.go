package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/batch"
	"github.com/huimemory/huimemory/internal/render"
	"github.com/huimemory/huimemory/internal/startheap"
)

type recallFlags struct {
	q             core.Query
	since, before string
	now           string
	context       int
	asJSON        bool
	batch         string
}

func (a *App) recallCmd() *cobra.Command {
	var f recallFlags
	cmd := &cobra.Command{
		Use:   "recall [flags] QUERY",
		Short: "Find the turns that best match a query, by keyword, meaning and time",
		Long: `Find the turns that best match a query, by keyword, meaning and time.

With --batch FILE (- for stdin), read JSON Lines queries such as
  {"query":"...","top_k":10,"namespace":"...","since":"...","before":"...","now":"..."}
and write one JSON line of results per query (the --json shape, plus "line",
an echoed "id", and "error" for a query that failed). The home is opened once;
the command exits with status 1 when any query failed.

An empty QUERY lists what --filter or --since/--before match; without them
it is an error. Time phrases ("上周三下午", "last week") are read in the zone
of time.zone or --tz (default: the machine's), and the text output says
which range or weeks were searched.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.batch != "" {
				return noArgs(cmd, args)
			}
			if f.q.Filter != "" || f.since != "" || f.before != "" {
				return nil
			}
			return minimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			startheap.Raise(oneShotHeap)
			if f.batch != "" && !f.asJSON {
				return Usagef("recall: --batch writes JSON; add --json")
			}
			text := joinArgs(args)
			if f.batch == "" && strings.TrimSpace(text) == "" && f.q.Filter == "" && f.since == "" && f.before == "" {
				return Usagef("recall: the query is empty; give a QUERY, or --filter or --since/--before to list what they match")
			}
			e, cfg, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			if f.batch != "" {
				return a.recallBatch(cmd, e, cfg, &f)
			}
			q, err := f.query(cmd, cfg, text)
			if err != nil {
				return err
			}
			if a.stderrIsTerminal() {
				q.OnRound = func(r core.Round) { fmt.Fprintln(a.Stderr, progressLine(r)) }
			}
			res, err := e.Recall(cmd.Context(), q)
			if err != nil {
				return err
			}
			inZone(res.Hits, cfg)
			if f.asJSON {
				return render.JSON(a.Stdout, render.NewJSONResults(res))
			}
			if res.ResolvedTime != nil || len(res.ScannedWeeks) > 0 {
				fmt.Fprintf(a.Stdout, "searched %s\n\n", tools.Scope(res))
			}
			if len(res.Hits) == 0 {
				fmt.Fprintln(a.Stdout, "no memories found")
				return nil
			}
			return render.Hits(a.Stdout, res.Hits)
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&f.q.TopK, "top-k", "k", 0, "number of hits (default retriever.top_k)")
	fl.StringVar(&f.since, "since", "", "only chunks at or after this time (2026-04-06, 2026-04-06 15:04 or RFC 3339)")
	fl.StringVar(&f.before, "before", "", "only chunks before this time")
	fl.IntVarP(&f.context, "context", "c", -1, "neighbouring chunks to show on each side of a hit; -1 means retriever.context_window")
	fl.StringVarP(&f.q.Namespace, "namespace", "n", "", "namespace to search")
	fl.StringVar(&f.q.Filter, "filter", "", "filter expression, such as \"timestamp >= '2026-04-06' AND role = 'user'\"")
	fl.StringVar(&f.now, "now", "", "reference time for time phrases, RFC 3339 or 2026-11-29 15:04 (default: now)")
	fl.BoolVar(&f.q.NoTime, "no-time", false, "keep time phrases in the query as plain text")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fl.StringVar(&f.batch, "batch", "", "run the JSONL queries in FILE (- for stdin), one JSON line out per query")
	a.tzFlag(cmd)
	return cmd
}

// query turns the flags into a core.Query.
func (f *recallFlags) query(cmd *cobra.Command, cfg core.Config, text string) (core.Query, error) {
	q := f.q
	q.Text = text
	loc := cfg.Time.Location()
	var err error
	if q.Now, err = nowFlag(f.now, cfg); err != nil {
		return q, err
	}
	if f.since != "" {
		if q.Since, err = parseTimeFlag("--since", f.since, loc, q.Now); err != nil {
			return q, err
		}
	}
	if f.before != "" {
		if q.Before, err = parseTimeFlag("--before", f.before, loc, q.Now); err != nil {
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

func (a *App) recallBatch(cmd *cobra.Command, e *engine.Engine, cfg core.Config, f *recallFlags) error {
	in := a.Stdin
	if f.batch != "-" {
		file, err := os.Open(f.batch)
		if err != nil {
			return Usagef("recall --batch: %v", err)
		}
		defer file.Close()
		in = file
	}
	ctx := f.context
	if ctx < 0 {
		ctx = cfg.Retriever.ContextWindow
	}
	st, err := batch.Run(cmd.Context(), e, in, a.Stdout, batch.Options{
		Location: cfg.Time.Location(),
		Defaults: core.Query{TopK: f.q.TopK, Context: ctx},
	})
	if err != nil {
		return err
	}
	if st.Errors > 0 {
		// Exit status 1, with this one line on stderr.
		return fmt.Errorf("%d of %d queries failed; see their \"error\" fields", st.Errors, st.Queries)
	}
	return nil
}

// progressLine describes one round of a progressive scan:
// "scanning 2026-W47 (2026-11-16 .. 2026-11-22): 3 hits".
func progressLine(r core.Round) string {
	return fmt.Sprintf("scanning %s (%s .. %s): %d hits", r.Week,
		r.Start.Format("2006-01-02"), r.End.Add(-time.Nanosecond).Format("2006-01-02"), len(r.Hits))
}
