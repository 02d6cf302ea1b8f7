package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/render"
	"github.com/huimemory/huimemory/timeparse"
)

func (a *App) timeCmd() *cobra.Command {
	var now string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "time [--now T] [--json] PHRASE",
		Short: "Resolve a time phrase (上周三下午, last week, 前段时间) to the range it means",
		Long: `Resolve a Chinese or English time phrase to an exact range [start, end),
in the time zone of time.zone or --tz (default: the machine's). Vague
phrases (最近, a while ago) give the span they plausibly mean and are marked
fuzzy. --now sets the reference time (default: now), which makes the answer
reproducible.`,
		Args: minimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			ref, err := nowFlag(now, cfg)
			if err != nil {
				return err
			}
			r, err := timeparse.Parse(joinArgs(args), ref)
			if err != nil {
				return UsageError{err}
			}
			out := tools.NewTimeRange(r)
			if asJSON {
				return render.JSON(a.Stdout, out)
			}
			fuzzy := ""
			if r.Fuzzy {
				fuzzy = " (fuzzy)"
			}
			start := out.Start
			if start == "" {
				start = "(open)"
			}
			fmt.Fprintf(a.Stdout, "%s .. %s  %s%s  %q\n", start, out.End, out.Granularity, fuzzy, r.Text)
			return nil
		},
	}
	cmd.Flags().StringVar(&now, "now", "", "reference time, RFC 3339 or 2026-11-29 15:04 (default: now)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	a.tzFlag(cmd)
	return cmd
}
