package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/migrate"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *App) migrateCmd() *cobra.Command {
	var from, to string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "migrate --from HOME|DSN --to HOME|DSN",
		Short: "Copy a memory between an embedded home and a PostgreSQL database, either way",
		Long: `Copy the whole memory of --from into --to, each a home folder or a
PostgreSQL connection string ("postgres://user@host/db", or "host=... dbname=..."):
every message, chunk id and prev/next anchor, session, source, sealed
week (with its archive, checked against its SHA-256) and namespace. Ids stay
the same, so links that an agent holds keep working. The destination must
hold no messages. Its search index is rebuilt and its transcripts written
before migrate returns.

The source stays readable meanwhile; writes to it wait until migrate is
done (its writer lock is held). The copy is one transaction: a failed or
killed migrate leaves the destination as it was.

The configuration (--config, HUIMEM_* variables) names the embedder and the
other parts of both sides; only where the memory lives changes.`,
		Example: `  huimem migrate --from ~/.huimem --to postgres://huimem@db.internal/huimem
  huimem migrate --from "host=db.internal dbname=huimem" --to ./restored`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return Usagef("migrate: give both --from and --to")
			}
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			src, dst := sideConfig(cfg, from), sideConfig(cfg, to)
			if src.Storage.Backend == dst.Storage.Backend && src.Storage.Home == dst.Storage.Home && src.Storage.Postgres.DSN == dst.Storage.Postgres.DSN {
				return Usagef("migrate: --from and --to are the same memory")
			}
			res, err := migrate.Run(cmd.Context(), src, dst, migrate.Options{Logf: a.logf, Host: a.hostOptions(dst)})
			if err != nil {
				return err
			}
			if asJSON {
				return render.JSON(a.Stdout, res)
			}
			fmt.Fprintf(a.Stdout, "copied %s into %s: %d messages, %d chunks, %d sessions, %d sealed weeks (%d keys) in %s\n",
				res.From, res.To, res.Messages, res.Chunks, res.Sessions, res.Archives, res.Keys, res.Took.Round(time.Millisecond))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "the memory to copy: a home folder or a PostgreSQL DSN")
	f.StringVar(&to, "to", "", "where to copy it: a home folder or a PostgreSQL DSN (empty)")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// isDSN reports whether s is a PostgreSQL connection string rather than a
// folder.
func isDSN(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") ||
		strings.Contains(s, "dbname=") || strings.Contains(s, "host=")
}

// sideConfig is cfg with its memory at where: a home, or a database (whose
// local folder, for transcripts' caches, is cfg's home).
func sideConfig(cfg core.Config, where string) core.Config {
	if isDSN(where) {
		cfg.Storage.Backend = core.BackendPostgres
		cfg.Storage.Postgres.DSN = where
		return cfg
	}
	cfg.Storage.Backend = core.BackendEmbedded
	cfg.Storage.Home, _ = filepath.Abs(where)
	return cfg
}
