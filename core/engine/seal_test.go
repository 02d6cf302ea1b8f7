package engine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core"
)

// The error paths of sealing a week. Each case breaks one step of
// sealWeek; the seal must fail with an error that says what went wrong,
// lose nothing, and succeed once the cause is gone.

// w10 is the archive of week 2026-W10 of the default namespace, the
// first week of lateCorpus.
func w10(e *Engine) string { return filepath.Join(e.sessionsRoot(), "2026-W10"+archive.Ext) }

// writeOtherArchive writes a valid archive of week 2026-W10 to p that
// holds other files than the engine's.
func writeOtherArchive(t *testing.T, p string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "2026-03-04"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "2026-03-04", "other.md"), []byte("# other\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := archive.Write(f, dir, archive.WriteOptions{Week: "2026-W10"}); err != nil {
		t.Fatal(err)
	}
}

// flipByte damages the middle byte of the file p.
func flipByte(t *testing.T, p string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// atStep makes sealFault run do at step, and go on.
func atStep(t *testing.T, step string, do func()) {
	t.Helper()
	sealFault = func(s string) error {
		if s == step {
			do()
		}
		return nil
	}
	t.Cleanup(func() { sealFault = nil })
}

func TestSealWeekErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		// break_ runs before the seal; undo removes the cause.
		break_, undo func(t *testing.T, e *Engine)
		wantErr      string
	}{{
		name: "the archive's place is taken by a folder",
		break_: func(t *testing.T, e *Engine) {
			if err := os.MkdirAll(filepath.Join(w10(e), "in-the-way"), 0o700); err != nil {
				t.Fatal(err)
			}
		},
		undo:    func(t *testing.T, e *Engine) { os.RemoveAll(w10(e)) },
		wantErr: "2026-W10" + archive.Ext,
	}, {
		name: "the archive is swapped after the rename",
		break_: func(t *testing.T, e *Engine) {
			atStep(t, stepRenamed, func() { writeOtherArchive(t, w10(e)) })
		},
		undo:    func(t *testing.T, e *Engine) { sealFault = nil },
		wantErr: "changed after it was written",
	}, {
		name: "the archive is damaged after the rename",
		break_: func(t *testing.T, e *Engine) {
			atStep(t, stepRenamed, func() { flipByte(t, w10(e)) })
		},
		undo:    func(t *testing.T, e *Engine) { sealFault = nil },
		wantErr: "2026-W10" + archive.Ext,
	}, {
		name: "the week is larger than archive.max_week_mb",
		break_: func(t *testing.T, e *Engine) {
			e.cfg.Archive.MaxWeekMB = 1
			big := strings.Repeat("long line of text ", 70_000)
			ingest(t, e, []core.Message{msg("big", lateCorpus()[0].Time.Add(3*60*60e9), core.RoleUser, big)})
		},
		undo:    func(t *testing.T, e *Engine) { e.cfg.Archive.MaxWeekMB = 64 },
		wantErr: "(archive.max_week_mb)",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			e := openTest(t)
			ingest(t, e, lateCorpus())
			tt.break_(t, e)
			want := snapshot(t, e)
			loose := looseFiles(t, e)
			_, err := e.Seal(t.Context(), SealOptions{Now: sealNow})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Seal = %v, want an error containing %q", err, tt.wantErr)
			}
			t.Logf("Seal: %v", err)
			if diff := cmp.Diff(want, snapshot(t, e)); diff != "" {
				t.Errorf("after the failed seal (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(loose, looseFiles(t, e)); diff != "" {
				t.Errorf("loose files after the failed seal (-before +after):\n%s", diff)
			}
			if wk, err := e.maint.storedWeek(weekRef{"", "2026-W10"}); err != nil || wk != nil {
				t.Errorf("after the failed seal the store records week 2026-W10 as %+v (%v)", wk, err)
			}
			if temps, _ := filepath.Glob(filepath.Join(e.sessionsRoot(), tmpPrefix+"*")); len(temps) > 0 {
				t.Errorf("temporary files left: %v", temps)
			}
			tt.undo(t, e)
			weeks := seal(t, e, SealOptions{})
			if !slices.ContainsFunc(weeks, func(w WeekInfo) bool { return w.Namespace == "" && w.Week == "2026-W10" }) {
				t.Errorf("the seal after the undo sealed %+v, not 2026-W10", weeks)
			}
			if diff := cmp.Diff(loose, archivedFiles(t, e)); diff != "" {
				t.Errorf("archives after the undo (-loose +archived):\n%s", diff)
			}
		})
	}
}

// TestSealRewritesStrayTranscripts: a loose transcript that differs from
// the store is rewritten from the store before it is packed, with a log
// line naming it.
func TestSealRewritesStrayTranscripts(t *testing.T) {
	var logs []string
	cfg := core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}
	e, err := openWith(t, cfg, Options{Logf: func(f string, a ...any) { logs = append(logs, f) }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ingest(t, e, lateCorpus())
	want := looseFiles(t, e)
	var stray string
	for rel := range want {
		if strings.HasPrefix(rel, "2026-W10/") {
			stray = rel
			break
		}
	}
	if err := os.WriteFile(filepath.Join(e.sessionsRoot(), filepath.FromSlash(stray)), []byte("edited by hand\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	seal(t, e, SealOptions{})
	if diff := cmp.Diff(want, archivedFiles(t, e)); diff != "" {
		t.Errorf("archives (-store's rendering +archived):\n%s", diff)
	}
	if !slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(l, "differed from the store") }) {
		t.Errorf("no log line about the stray transcript; logs: %q", logs)
	}
}

// TestFinishSealErrors: after a crash between the store's commit and the
// removal of the loose files, the next seal removes the leftovers only if
// they are copies of the archive's files, and the archive is the one the
// store recorded; otherwise it says what to do and removes nothing.
func TestFinishSealErrors(t *testing.T) {
	for _, tt := range []struct {
		name    string
		break_  func(t *testing.T, e *Engine, dir string)
		wantErr string
	}{
		{"a file the archive lacks", func(t *testing.T, e *Engine, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "stray.md"), []byte("stray"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "but not in its archive; move it away and seal again"},
		{"a leftover that differs", func(t *testing.T, e *Engine, dir string) {
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					os.WriteFile(p, []byte("changed"), 0o600)
				}
				return err
			})
		}, "differs from its copy in the archive of sealed week 2026-W10"},
		{"a damaged archive", func(t *testing.T, e *Engine, _ string) { flipByte(t, w10(e)) }, "2026-W10" + archive.Ext},
		{"another archive", func(t *testing.T, e *Engine, _ string) { writeOtherArchive(t, w10(e)) },
			"is not the one recorded when the week was sealed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := openTest(t)
			ingest(t, e, lateCorpus())
			crash := errors.New("crash")
			sealFault = func(s string) error {
				if s == stepCommitted {
					return crash
				}
				return nil
			}
			t.Cleanup(func() { sealFault = nil })
			if _, err := e.Seal(t.Context(), SealOptions{Now: sealNow}); !errors.Is(err, crash) {
				t.Fatalf("Seal: %v, want the crash", err)
			}
			sealFault = nil
			dir := filepath.Join(e.sessionsRoot(), "2026-W10")
			tt.break_(t, e, dir)
			before := looseFiles(t, e)
			_, err := e.Seal(t.Context(), SealOptions{Now: sealNow})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Seal = %v, want an error containing %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(before, looseFiles(t, e)); diff != "" {
				t.Errorf("the failed seal changed the loose files (-before +after):\n%s", diff)
			}
		})
	}
}
