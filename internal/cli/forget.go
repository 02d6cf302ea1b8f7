package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/engine"
)

func (a *App) forgetCmd() *cobra.Command {
	var opts engine.ForgetOptions
	var yes, asJSON bool
	cmd := &cobra.Command{
		Use:   "forget (--id ID | --session S | --all-namespace | --filter EXPR) [-n NS] [--dry-run] [--yes]",
		Short: "Remove messages for good: store, index, vectors, transcripts and sealed archives",
		Long: `Remove messages from the home for good. Choose them by chunk id (that
chunk's messages), by session, the whole namespace (-n), or a filter
expression (the chunks of the namespace that match it). A forget never
leaves the namespace given with -n.

Afterwards the text is nowhere in the home: the store (whose file is
compacted), the search index (rebuilt), the vectors, the transcripts, the
decompressed-week cache and the sealed week archives (re-sealed without
it). The remaining chunks of each touched session are re-cut and their
prev/next links re-made.

--dry-run lists what would go and changes nothing. Without --dry-run,
forget asks for confirmation on a terminal, and needs --yes otherwise.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			n := 0
			for _, set := range []bool{opts.ID != "", opts.Session != "", opts.AllNamespace, opts.Filter != ""} {
				if set {
					n++
				}
			}
			if n != 1 {
				return Usagef("forget: give exactly one of --id, --session, --all-namespace and --filter")
			}
			if !opts.DryRun && !yes && !a.stdinIsTerminal() {
				return Usagef("forget removes messages for good: pass --yes to confirm, or --dry-run to see what would go")
			}
			e, cfg, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			opts.Location = cfg.Time.Location()
			if !opts.DryRun && !yes {
				// On a terminal: show what would go and ask.
				dry := opts
				dry.DryRun = true
				plan, err := e.Forget(cmd.Context(), dry)
				if err != nil {
					return err
				}
				a.printForget(plan, opts.Location)
				if len(plan.Messages) == 0 {
					return nil
				}
				fmt.Fprintf(a.Stderr, "forget these %d messages for good? [y/N] ", len(plan.Messages))
				answer, _ := bufio.NewReader(a.Stdin).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					return Usagef("forget: not confirmed; nothing was removed")
				}
			}
			res, err := e.Forget(cmd.Context(), opts)
			if asJSON && (err == nil || len(res.Messages) > 0) {
				enc := json.NewEncoder(a.Stdout)
				enc.SetIndent("", "  ")
				if jerr := enc.Encode(res); jerr != nil && err == nil {
					err = jerr
				}
				return err
			}
			if err == nil || res.Store.After > 0 {
				a.printForget(res, opts.Location)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.ID, "id", "", "forget the messages of this chunk")
	f.StringVar(&opts.Session, "session", "", "forget every message of this session")
	f.BoolVar(&opts.AllNamespace, "all-namespace", false, "forget every message of the namespace")
	f.StringVar(&opts.Filter, "filter", "", "forget the messages of the chunks that match this filter expression")
	f.StringVarP(&opts.Namespace, "namespace", "n", "", "namespace to forget in")
	f.BoolVar(&opts.DryRun, "dry-run", false, "list what would be forgotten; change nothing")
	f.BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	a.tzFlag(cmd)
	return cmd
}

// printForget prints what a forget removed, or would remove.
func (a *App) printForget(res engine.ForgetResult, loc *time.Location) {
	w := a.Stdout
	verb := "forgot"
	if res.DryRun {
		verb = "would forget"
	}
	if len(res.Messages) == 0 {
		fmt.Fprintln(w, "nothing to forget")
		return
	}
	fmt.Fprintf(w, "%s %d messages in %d sessions (chunks %s)\n", verb, len(res.Messages), len(res.Sessions), strings.Join(res.Chunks, ", "))
	for _, m := range res.Messages {
		who := m.Speaker
		if who == "" {
			who = m.Role
		}
		chunk := m.Chunk
		if chunk == "" {
			chunk = "-"
		}
		fmt.Fprintf(w, "  %s  %s  %s  %s: %s\n", m.Session, chunk, m.Time.In(loc).Format("2006-01-02 15:04:05"), who, m.Preview)
	}
	if res.DryRun {
		return
	}
	fmt.Fprintf(w, "%d chunks re-cut or re-linked, %d removed, %d sessions emptied and removed\n", res.ChunksChanged, res.ChunksRemoved, res.SessionsRemoved)
	if len(res.Resealed) > 0 {
		fmt.Fprintf(w, "re-sealed weeks %s\n", strings.Join(res.Resealed, ", "))
	}
	fmt.Fprintf(w, "index rebuilt; store compacted from %s to %s\n", mib(res.Store.Before), mib(res.Store.After))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// stdinIsTerminal reports whether stdin is a terminal, to ask questions.
func (a *App) stdinIsTerminal() bool {
	f, ok := a.Stdin.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
