package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/render"
)

func (a *app) ingestCmd() *cobra.Command {
	var ns string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ingest PATH...",
		Short: "Ingest JSONL files (one message per line); a folder means its *.jsonl files",
		Long: `Ingest JSONL files, one message per line:

  {"session":"s1","time":"2026-03-05T10:00:07+08:00","role":"user","speaker":"Alice","text":"...","ref":"D1:3","namespace":"alice"}

session, time and text are required, plus at least one of role and speaker.
Each file is all or nothing: a bad line fails the file with path:line and
the store is left as it was. Ingesting the same data again adds nothing.`,
		Args: minimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := core.ValidateNamespace(ns); err != nil {
				return usageError{err}
			}
			files, err := expandPaths(args)
			if err != nil {
				return err
			}
			e, _, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			var failed []error
			for _, f := range files {
				res, err := e.IngestFile(cmd.Context(), f, engine.FileOptions{Namespace: ns})
				if err != nil {
					if len(files) == 1 {
						return err
					}
					fmt.Fprintln(a.stderr, "huimem: "+oneLine(err.Error()))
					failed = append(failed, err)
					continue
				}
				if asJSON {
					render.JSON(a.stdout, res)
					continue
				}
				switch {
				case res.Unchanged:
					fmt.Fprintf(a.stdout, "%s: unchanged since it was last ingested\n", f)
				default:
					fmt.Fprintf(a.stdout, "%s: %d messages, %d new, %d already stored; %d chunks written in %d sessions\n",
						f, res.Messages, res.Added, res.Duplicates, res.Chunks, res.Sessions)
				}
			}
			if len(failed) > 0 {
				err := fmt.Errorf("%d of %d files failed and were not ingested", len(failed), len(files))
				if allInvalid(failed) {
					return usageError{err}
				}
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&ns, "namespace", "n", "", "namespace for messages that name none")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per file")
	return cmd
}

func allInvalid(errs []error) bool {
	for _, e := range errs {
		if !errors.Is(e, core.ErrInvalid) {
			return false
		}
	}
	return true
}

// expandPaths turns folders into their *.jsonl files, sorted.
func expandPaths(args []string) ([]string, error) {
	var out []string
	for _, p := range args {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, usageError{fmt.Errorf("ingest: %w", err)}
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		if len(found) == 0 {
			return nil, usageError{fmt.Errorf("ingest: no .jsonl files in %s", p)}
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}
