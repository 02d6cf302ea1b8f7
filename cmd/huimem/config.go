package main

import (
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

func (a *app) configCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration (defaults, file, environment and flags merged)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			enc := yaml.NewEncoder(a.stdout)
			enc.SetIndent(2)
			return enc.Encode(cfg)
		},
	}
}
