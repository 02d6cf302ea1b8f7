package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core/engine"
)

func (a *App) exportCmd() *cobra.Command {
	var opts engine.ExportOptions
	var out string
	cmd := &cobra.Command{
		Use:   "export [-n NS [--session S] | --all] [-o FILE]",
		Short: "Write a namespace's messages (or all) as generic JSONL",
		Long: `Write the messages of one namespace (-n, default the default namespace),
or of every namespace with --all, or one session of a namespace with
--session, as the generic JSONL that "huimem ingest"
reads: one message a line with its session, time (RFC 3339, nanoseconds,
original offset), role, speaker, text verbatim, ref and namespace.
Messages of sealed weeks are included. Ingesting the export into a fresh
home makes the same chunks, with the same ids and prev/next links.

The export goes to stdout, or with -o to FILE, written atomically (a
temporary file beside it, flushed, then renamed). A FILE that is a device
or a pipe (/dev/stdout, a FIFO) is written in place.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.All && opts.Namespace != "" {
				return Usagef("export: give -n or --all, not both")
			}
			if opts.All && opts.Session != "" {
				return Usagef("export: --session exports one session of one namespace; drop --all")
			}
			e, _, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			if out == "" || out == "-" {
				_, err := e.Export(cmd.Context(), a.Stdout, opts)
				return err
			}
			if fi, err := os.Stat(out); err == nil && !fi.Mode().IsRegular() {
				return a.exportInPlace(cmd.Context(), e, out, fi, opts)
			}
			dir := filepath.Dir(out)
			f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(out)+"-*")
			if err != nil {
				return Usagef("export: %v", err)
			}
			n, err := e.Export(cmd.Context(), f, opts)
			if err == nil {
				err = f.Sync()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Rename(f.Name(), out)
			}
			if err != nil {
				os.Remove(f.Name())
				return fmt.Errorf("exporting to %s: %w", out, err)
			}
			if err := archive.SyncDir(dir); err != nil {
				return fmt.Errorf("exporting to %s: %w", out, err)
			}
			fmt.Fprintf(a.Stderr, "exported %d messages to %s\n", n, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "", "namespace to export")
	cmd.Flags().BoolVar(&opts.All, "all", false, "export every namespace")
	cmd.Flags().StringVar(&opts.Session, "session", "", "export only this session of the namespace")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to FILE (atomically) instead of stdout")
	return cmd
}

// exportInPlace writes the export to out, which exists and is not a
// regular file: a device or a pipe is written as it is, since renaming a
// file over it would replace it (as root, "-o /dev/null" replaced the
// machine's /dev/null with a file); a folder is refused.
func (a *App) exportInPlace(ctx context.Context, e *engine.Engine, out string, fi os.FileInfo, opts engine.ExportOptions) error {
	if fi.IsDir() {
		return Usagef("export: -o %s is a folder; give a file name", out)
	}
	f, err := os.OpenFile(out, os.O_WRONLY, 0)
	if err != nil {
		return Usagef("export: %v", err)
	}
	n, err := e.Export(ctx, f, opts)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("exporting to %s: %w", out, err)
	}
	fmt.Fprintf(a.Stderr, "exported %d messages to %s\n", n, out)
	return nil
}
