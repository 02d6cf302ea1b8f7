package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/huimemory/huimemory/timeparse"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/engine"
)

func (a *App) archiveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "archive seal|list|verify",
		Short: "Seal finished weeks of transcripts into zstd archives, list and verify them",
		Long: `Transcripts live under <home>/sessions/<ISO-week>/<date>/chat_<session>.md.
A finished week can be sealed into one archive, sessions/2026-W47.tar.zst
(sessions/@<namespace>/2026-W47.tar.zst for a namespace), which keeps years
of memory small. get and recall read sealed weeks as if they were open. A
late message for a sealed week re-opens it; seal it again afterwards, or set
archive.auto_seal to seal finished weeks at every ingest.

An archive is a tar stream compressed with zstd whose first entry,
MANIFEST.json, lists every file with its size and sha256:
tar --zstd -xf 2026-W47.tar.zst unpacks one by hand.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return Usagef("archive: want a subcommand: seal, list or verify")
		},
	}
	cmd.AddCommand(a.archiveSealCmd(), a.archiveListCmd(), a.archiveVerifyCmd())
	return cmd
}

func (a *App) archiveSealCmd() *cobra.Command {
	var week string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "seal [--week 2026-W47] [--json]",
		Short: "Seal finished weeks: every week before this one that has loose transcripts, or just --week",
		Long: `Seal finished weeks into archives. Without --week, every week before the
current ISO week that has loose transcripts is sealed, in every namespace.
Each week is sealed atomically: the archive is written to a temporary file,
flushed and renamed into place, read back and checked against its manifest,
and only then does the store drop the week's text and are the loose files
removed. Interrupted at any point, it leaves either the loose files or a
verified archive; running it again completes the work.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if week != "" {
				if _, err := timeparse.ParseWeek(week); err != nil {
					return UsageError{err}
				}
			}
			return runQuery(a, cmd, query[[]engine.WeekInfo]{
				JSON: asJSON, Partial: true,
				Ask: func(ctx context.Context, e *engine.Engine) ([]engine.WeekInfo, error) {
					weeks, err := e.Seal(ctx, engine.SealOptions{Week: week})
					if weeks == nil {
						weeks = []engine.WeekInfo{}
					}
					return weeks, err
				},
				Text: func(w io.Writer, weeks []engine.WeekInfo, err error) error {
					for _, wk := range weeks {
						fmt.Fprintf(w, "sealed %s%s: %d files, %s → %s (%.1fx), %s\n", wk.Week, nsLabel(wk.Namespace),
							wk.Files, bytesize(wk.RawBytes), bytesize(wk.ArchiveBytes), wk.Ratio, filepath.Join("sessions", wk.Archive))
					}
					if err == nil && len(weeks) == 0 {
						if week != "" {
							fmt.Fprintf(w, "nothing to seal: week %s has no loose transcripts\n", week)
						} else {
							fmt.Fprintln(w, "nothing to seal: every finished week is sealed")
						}
					}
					return nil
				},
			})
		},
	}
	cmd.Flags().StringVar(&week, "week", "", "the ISO week to seal, such as 2026-W47 (default: every finished week)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the sealed weeks as JSON")
	return cmd
}

func nsLabel(ns string) string {
	if ns == "" {
		return ""
	}
	return " (@" + ns + ")"
}

func (a *App) archiveListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the weeks of transcripts, sealed or open, with sizes and compression ratios",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runQuery(a, cmd, query[[]engine.WeekInfo]{
				JSON: asJSON,
				Ask:  func(ctx context.Context, e *engine.Engine) ([]engine.WeekInfo, error) { return e.Weeks(ctx) },
				Text: printWeeks,
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	return cmd
}

// printWeeks prints the weeks as a table, and the overall compression.
func printWeeks(out io.Writer, weeks []engine.WeekInfo, _ error) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tWEEK\tSTATE\tFILES\tSIZE\tARCHIVE\tRATIO")
	var raw, packed int64
	for _, w := range weeks {
		ns, arch, ratio := w.Namespace, "-", "-"
		if ns == "" {
			ns = "-"
		}
		if w.ArchiveBytes > 0 {
			arch = bytesize(w.ArchiveBytes)
		}
		if w.Ratio > 0 {
			ratio = fmt.Sprintf("%.1fx", w.Ratio)
			raw += w.RawBytes
			packed += w.ArchiveBytes
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", ns, w.Week, w.State, w.Files, bytesize(w.RawBytes), arch, ratio)
	}
	tw.Flush()
	if packed > 0 {
		fmt.Fprintf(out, "sealed: %s in %s (%.1fx)\n", bytesize(raw), bytesize(packed), float64(raw)/float64(packed))
	}
	return nil
}

func (a *App) archiveVerifyCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify [--json]",
		Short: "Check every archive against its manifest; exit non-zero naming any bad file",
		Long: `Read every week archive to its end and check each file's size and sha256
against the archive's manifest, and each sealed week's archive against the
checksum recorded when it was sealed. Any mismatch, truncation or missing
archive makes the command exit with status 1 and name the bad files.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runQuery(a, cmd, query[[]engine.ArchiveCheck]{
				JSON: asJSON, Partial: true,
				Ask: func(ctx context.Context, e *engine.Engine) ([]engine.ArchiveCheck, error) {
					checks, err := e.VerifyArchives(ctx)
					if checks == nil {
						checks = []engine.ArchiveCheck{}
					}
					return checks, err
				},
				Text: func(w io.Writer, checks []engine.ArchiveCheck, err error) error {
					for _, c := range checks {
						p := filepath.Join("sessions", c.Archive)
						if c.Err != nil {
							fmt.Fprintf(w, "BAD  %s: %s\n", p, oneLine(c.Error))
							continue
						}
						fmt.Fprintf(w, "ok   %s: %d files, %s\n", p, c.Files, bytesize(c.RawBytes))
					}
					if err == nil && len(checks) == 0 {
						fmt.Fprintln(w, "no archives")
					}
					return nil
				},
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	return cmd
}
