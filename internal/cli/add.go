package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
)

func (a *App) addCmd() *cobra.Command {
	var m core.Message
	var role, at string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "add --session S --role R [--speaker NAME] [--time T] [--namespace NS] TEXT",
		Short: "Add one message (TEXT, or - to read it from stdin)",
		Args:  minimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m.Role = core.Role(strings.ToLower(role))
			m.Text = strings.Join(args, " ")
			if m.Text == "-" {
				b, err := io.ReadAll(a.Stdin)
				if err != nil {
					return fmt.Errorf("reading stdin: %w", err)
				}
				m.Text = strings.TrimSuffix(string(b), "\n")
			}
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			loc := cfg.Time.Location()
			m.Time = time.Now().In(loc)
			if at != "" {
				t, err := parseTimeFlag("--time", at, loc, m.Time)
				if err != nil {
					return err
				}
				m.Time = t
			}
			if err := m.Validate(); err != nil {
				return UsageError{fmt.Errorf("add: %w", err)}
			}
			return runQuery(a, cmd, query[engine.IngestResult]{
				JSON: asJSON,
				Ask: func(ctx context.Context, e *engine.Engine) (engine.IngestResult, error) {
					return e.Ingest(ctx, []core.Message{m})
				},
				Text: func(w io.Writer, res engine.IngestResult, _ error) error {
					if res.Added == 0 {
						fmt.Fprintln(w, "already stored")
						return nil
					}
					fmt.Fprintf(w, "added to session %s (%d chunks written)\n", m.Session, res.Chunks)
					return nil
				},
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&m.Session, "session", "", "session id (required)")
	f.StringVar(&role, "role", "", "user, assistant or system")
	f.StringVar(&m.Speaker, "speaker", "", "speaker name")
	f.StringVar(&at, "time", "", "time of the message, RFC 3339, 2006-01-02 15:04 (in time.zone or --tz) or a phrase (default now)")
	f.StringVarP(&m.Namespace, "namespace", "n", "", "namespace")
	f.StringVar(&m.Ref, "ref", "", "external reference kept with the message")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	a.tzFlag(cmd)
	cmd.MarkFlagRequired("session")
	return cmd
}
