package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/formats"
	"github.com/huimemory/huimemory/internal/render"
)

// ingestSummary is what `huimem ingest` prints at the end (--json: as is).
type ingestSummary struct {
	New       int     `json:"new"`
	Changed   int     `json:"changed"`
	Unchanged int     `json:"unchanged"`
	Failed    int     `json:"failed"`
	Ignored   int     `json:"ignored"`
	Deleted   int     `json:"deleted"`
	Pruned    int     `json:"pruned"`
	Messages  int     `json:"messages"`
	Added     int     `json:"added"`
	Dropped   int     `json:"dropped"`
	Chunks    int     `json:"chunks"`
	Removed   int     `json:"removed_chunks"`
	Seconds   float64 `json:"seconds"`
	// Compaction and IndexMerge are set when the ingest ended by
	// compacting the store or merging the index (engine.Tidy).
	Compaction *engine.Compaction `json:"compaction,omitempty"`
	IndexMerge *engine.IndexMerge `json:"index_merge,omitempty"`
	// Files lists what happened to each file, in order.
	Files []ingestFile `json:"files"`
}

type ingestFile struct {
	Path   string `json:"path"`
	Status string `json:"status"` // new, changed, unchanged, failed, ignored, deleted, pruned
	Format string `json:"format,omitempty"`
	engine.IngestResult
	Dropped int    `json:"dropped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// candidate is a file found by the walk. explicit files were named on the
// command line: an unknown format is an error for them, and only a reason
// to pass by for files found in a folder.
type candidate struct {
	path     string
	explicit bool
}

func (a *App) ingestCmd() *cobra.Command {
	var ns, format string
	var asJSON, prune, quiet bool
	var batch int
	var cpuprofile string
	cmd := &cobra.Command{
		Use:   "ingest PATH...",
		Short: "Ingest chat exports and transcripts; a folder is walked, respecting .gitignore",
		Long: `Ingest chat exports: ChatGPT conversations.json, Claude.ai exports, Claude
Code and Codex CLI session files, Slack exports, plain-text transcripts,
HuiMemory's own markdown transcripts and HuiMemory's JSONL:

  {"session":"s1","time":"2026-03-05T10:00:07+08:00","role":"user","speaker":"Alice","text":"...","ref":"D1:3","namespace":"alice"}

The format is detected from each file's content and name; --format forces
one (` + strings.Join(formats.Names(), ", ") + `). A folder is walked recursively:
files ending in .json, .jsonl, .md, .markdown or .txt are read, paths matched by
.gitignore files are skipped, the metadata files of export bundles (users.json,
channels.json, ...) are passed by, and so are files whose format is not
recognised (reported as ignored).

Every file is tracked by path and content hash. Ingesting it again skips it
when unchanged, and replaces its messages in one transaction when it changed.
A file that was deleted is reported, and its messages removed with --prune.
Each file is all or nothing: a bad file is reported with path:line and
skipped, the store keeps what it had, and the exit code is non-zero.

Files are streamed. A new file with more than --batch messages is read,
embedded and stored a batch at a time under a stage that readers do not
see, and published in one small transaction at the end; a bad line, an
interrupt or a crash leaves the store as it was, and running the same
ingest again finishes the job. Small new files that come one after the
other (a folder of sessions) go in together, each still tracked and all
or nothing on its own: up to --batch messages of them in one
transaction, more under one stage, as a large file goes in.`,
		Args: minimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := core.ValidateNamespace(ns); err != nil {
				return UsageError{err}
			}
			if format != "" {
				if _, err := formats.Lookup(format); err != nil {
					return UsageError{err}
				}
			}
			if batch < 0 || batch > 1<<20 {
				return Usagef("ingest: --batch %d is not between 1 and 1048576", batch)
			}
			if cpuprofile != "" {
				f, err := os.Create(cpuprofile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			start := time.Now()
			files, dirs, err := collectFiles(args)
			if err != nil {
				return err
			}
			e, cfg, err := a.open(cmd.Context(), engine.Options{})
			if err != nil {
				return err
			}
			defer e.Close()

			var bar *progressbar.ProgressBar
			if !quiet && !asJSON && a.stderrIsTerminal() {
				bar = progressbar.NewOptions(len(files),
					progressbar.OptionSetWriter(a.Stderr),
					progressbar.OptionSetDescription("ingesting"),
					progressbar.OptionSetItsString("files"),
					progressbar.OptionShowCount(),
					progressbar.OptionShowIts(),
					progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionClearOnFinish(),
				)
			}
			// say prints a line about one file, unless a progress bar is
			// showing or the output is JSON.
			say := func(format string, args ...any) {
				if bar == nil && !asJSON {
					fmt.Fprintf(a.Stdout, format+"\n", args...)
				}
			}
			warn := func(msg string) {
				if bar != nil {
					bar.Clear()
				}
				fmt.Fprintln(a.Stderr, "huimem: "+oneLine(msg))
			}
			var sum ingestSummary
			var failed []error
			// report says what happened to one file. The files go in
			// through e.IngestSources, which groups small new files into
			// one transaction, and reports in order.
			report := func(f candidate, row ingestRow) {
				if row.Error != "" {
					failed = append(failed, row.err)
					if len(files) > 1 {
						warn(row.Error)
					}
				}
				sum.add(row.ingestFile)
				switch row.Status {
				case engine.SourceUnchanged:
					say("%s: unchanged since it was last ingested", f.path)
				case engine.SourceNew, engine.SourceChanged:
					say("%s: %s (%s), %d messages, %d new, %d already stored, %d removed; %d chunks written in %d sessions",
						f.path, row.Status, row.Format, row.Messages, row.Added, row.Duplicates, row.Dropped, row.Chunks, row.Sessions)
				case "ignored":
					say("%s: ignored, not a chat export HuiMemory recognises", f.path)
				}
				if bar != nil {
					el := time.Since(start).Seconds()
					bar.Describe(fmt.Sprintf("%d messages, %.0f msg/s", sum.Messages, float64(sum.Messages)/max(el, 1e-3)))
					bar.Add(1)
				}
			}
			// The store's compaction and the index merge run once, after
			// the last file (see core/engine/merge.go).
			base := e.TidyBase()
			opts := engine.SourceOptions{Namespace: ns, Format: format, Location: cfg.Time.Location(), BatchMessages: batch, DeferTidy: true}
			if err := a.ingestFiles(cmd, e, files, opts, report); err != nil {
				return err
			}
			if len(files) == 1 && len(failed) == 1 {
				return failed[0]
			}
			if bar != nil {
				bar.Finish()
			}
			for _, dir := range dirs {
				missing, err := e.MissingSources(cmd.Context(), dir)
				if err != nil {
					return err
				}
				for _, s := range missing {
					if !prune {
						sum.add(ingestFile{Path: s.Path, Status: "deleted"})
						say("%s: deleted; its messages stay until you ingest with --prune", s.Path)
						continue
					}
					res, err := e.PruneSource(cmd.Context(), s.Path)
					if err != nil {
						failed = append(failed, err)
						warn(fmt.Sprintf("pruning %s: %v", s.Path, err))
						sum.add(ingestFile{Path: s.Path, Status: "failed", Error: err.Error()})
						continue
					}
					sum.add(ingestFile{Path: s.Path, Status: engine.SourcePruned, IngestResult: res.IngestResult, Dropped: res.Dropped})
					say("%s: deleted and pruned, %d messages and %d chunks removed", s.Path, res.Dropped, res.Removed)
				}
			}
			var tidyErr error
			if sum.Compaction, sum.IndexMerge, tidyErr = e.Tidy(cmd.Context(), base); tidyErr != nil {
				warn(fmt.Sprintf("tidying after the ingest: %v (everything ingested is stored)", tidyErr))
			}
			sum.Seconds = time.Since(start).Seconds()
			if asJSON {
				render.JSON(a.Stdout, sum)
			} else {
				sum.print(a.Stdout)
			}
			if len(failed) > 0 {
				err := fmt.Errorf("%d of %d files failed and were not ingested", len(failed), len(files))
				if allInvalid(failed) {
					return UsageError{err}
				}
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&ns, "namespace", "n", "", "namespace for messages that name none")
	cmd.Flags().StringVar(&format, "format", "", "read every file in this format instead of detecting it: "+strings.Join(formats.Names(), ", "))
	cmd.Flags().BoolVar(&prune, "prune", false, "remove the messages of tracked files that were deleted from the folders given")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	cmd.Flags().StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of the ingest to this file")
	cmd.Flags().MarkHidden("cpuprofile")
	cmd.Flags().IntVar(&batch, "batch", engine.DefaultBatchMessages, "messages read and stored at a time in a large new file (memory grows with it)")
	return cmd
}

type ingestRow struct {
	ingestFile
	err error
}

// ingestFiles ingests files through [engine.Engine.IngestSources] and
// calls report for each, in order; files whose format is not recognised
// are reported as ignored in their turn.
func (a *App) ingestFiles(cmd *cobra.Command, e *engine.Engine, files []candidate, opts engine.SourceOptions, report func(candidate, ingestRow)) error {
	rows := make([]*ingestRow, len(files))
	var paths []string
	var at []int // at[j] is the index in files of paths[j]
	for i, f := range files {
		if !f.explicit && opts.Format == "" && !recognised(f.path) {
			rows[i] = &ingestRow{ingestFile: ingestFile{Path: f.path, Status: "ignored"}}
			continue
		}
		paths = append(paths, f.path)
		at = append(at, i)
	}
	next := 0
	flush := func() {
		for ; next < len(rows) && rows[next] != nil; next++ {
			report(files[next], *rows[next])
			rows[next] = nil
		}
	}
	flush()
	err := e.IngestSources(cmd.Context(), paths, opts, func(j int, res engine.SourceResult, err error) {
		i := at[j]
		row := &ingestRow{ingestFile: ingestFile{Path: files[i].path, Format: res.Format, IngestResult: res.IngestResult, Dropped: res.Dropped, Status: res.Status}}
		if err != nil {
			row.Status, row.Error, row.err = "failed", err.Error(), err
		}
		rows[i] = row
		flush()
	})
	if err != nil {
		return err
	}
	flush()
	return nil
}

// recognised reports whether a file's format can be detected (or the file
// is empty), reading at most formats.SniffLen bytes.
func recognised(path string) bool {
	fh, err := os.Open(path)
	if err != nil {
		return true // let the ingest report it
	}
	defer fh.Close()
	head := make([]byte, formats.SniffLen)
	n, _ := io.ReadFull(fh, head)
	if len(strings.TrimSpace(string(head[:n]))) == 0 {
		return true
	}
	_, err = formats.Detect(path, head[:n])
	return err == nil
}

func (s *ingestSummary) add(f ingestFile) {
	switch f.Status {
	case engine.SourceNew:
		s.New++
	case engine.SourceChanged:
		s.Changed++
	case engine.SourceUnchanged:
		s.Unchanged++
	case engine.SourcePruned:
		s.Pruned++
		s.Deleted++
	case "deleted":
		s.Deleted++
	case "ignored":
		s.Ignored++
	case "failed":
		s.Failed++
	}
	s.Messages += f.Messages
	s.Added += f.Added
	s.Dropped += f.Dropped
	s.Chunks += f.Chunks
	s.Removed += f.IngestResult.Removed
	s.Files = append(s.Files, f)
}

func (s *ingestSummary) print(w io.Writer) {
	fmt.Fprintf(w, "files: %d new, %d changed, %d skipped (unchanged), %d failed", s.New, s.Changed, s.Unchanged, s.Failed)
	if s.Ignored > 0 {
		fmt.Fprintf(w, ", %d ignored", s.Ignored)
	}
	if s.Deleted > 0 {
		fmt.Fprintf(w, ", %d deleted (%d pruned)", s.Deleted, s.Pruned)
	}
	rate := float64(s.Messages) / max(s.Seconds, 1e-3)
	fmt.Fprintf(w, "\nmessages: %d read, %d new, %d removed; chunks: %d written, %d removed; %.2fs (%.0f messages/s)\n",
		s.Messages, s.Added, s.Dropped, s.Chunks, s.Removed, s.Seconds, rate)
}

func allInvalid(errs []error) bool {
	for _, e := range errs {
		if !errors.Is(e, core.ErrInvalid) {
			return false
		}
	}
	return true
}

// ingestExts are the file name endings a folder walk reads.
var ingestExts = []string{".json", ".jsonl", ".md", ".markdown", ".txt"}

// collectFiles turns the arguments into files: a file stands for itself, a
// folder for the files under it (see walkFolder). It also returns the
// folders, for the deleted-file check.
func collectFiles(args []string) ([]candidate, []string, error) {
	var out []candidate
	var dirs []string
	for _, p := range args {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, nil, UsageError{fmt.Errorf("ingest: %w", err)}
		}
		if !fi.IsDir() {
			out = append(out, candidate{path: p, explicit: true})
			continue
		}
		found, err := walkFolder(p)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", p, err)
		}
		dirs = append(dirs, p)
		out = append(out, found...)
	}
	return out, dirs, nil
}

// walkFolder lists the files under root that an ingest reads, sorted: those
// ending in one of ingestExts, not matched by a .gitignore file in root or
// below (git's rules, through go-git's gitignore matcher), not inside .git,
// and not an export's metadata file (formats.IsMetadata).
func walkFolder(root string) ([]candidate, error) {
	var patterns []gitignore.Pattern
	var out []candidate
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		var parts []string
		if rel != "." {
			parts = strings.Split(filepath.ToSlash(rel), "/")
		}
		if d.IsDir() {
			if d.Name() == ".git" && rel != "." {
				return filepath.SkipDir
			}
			if len(parts) > 0 && gitignore.NewMatcher(patterns).Match(parts, true) {
				return filepath.SkipDir
			}
			ps, err := readGitignore(filepath.Join(path, ".gitignore"), parts)
			if err != nil {
				return err
			}
			patterns = append(patterns, ps...)
			return nil
		}
		if !d.Type().IsRegular() || gitignore.NewMatcher(patterns).Match(parts, false) || formats.IsMetadata(path) {
			return nil
		}
		name := strings.ToLower(d.Name())
		for _, ext := range ingestExts {
			if strings.HasSuffix(name, ext) {
				out = append(out, candidate{path: path})
				break
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, err
}

// readGitignore reads the patterns of one .gitignore file; domain is its
// folder's path below the walk's root. A missing file has no patterns.
func readGitignore(path string, domain []string) ([]gitignore.Pattern, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps, nil
}
