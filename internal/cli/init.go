package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/configs"
	"github.com/huimemory/huimemory/core/engine"
)

func (a *App) initCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the home directory with its store, index and a config.yaml",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, cfg, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			p := filepath.Join(e.Home(), "config.yaml")
			wrote := false
			if !fileExists(p) {
				if err := os.WriteFile(p, configs.Default, 0o600); err != nil {
					return fmt.Errorf("writing %s: %w", p, err)
				}
				wrote = true
			}
			fmt.Fprintf(a.Stdout, "home: %s\n", e.Home())
			if wrote {
				fmt.Fprintf(a.Stdout, "config: %s (the documented defaults; edit to taste)\n", p)
			}
			fmt.Fprintf(a.Stdout, "embedder: %s, chunker: %s\n", e.EmbedderInfo().Name, cfg.Chunker.Name)
			return nil
		},
	}
}
