package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/internal/bench/synth"
	"github.com/huimemory/huimemory/internal/render"
)

// sealNow is "now" for the tests that seal: every week of the corpora
// below has ended by then.
var sealNow = time.Date(2026, 11, 30, 12, 0, 0, 0, cst)

// sealStart is the Monday of 2026-W10, where the sealing corpora start.
var sealStart = time.Date(2026, 3, 2, 9, 0, 0, 0, cst)

// edgeTexts are message texts whose lines are easy to get wrong.
var edgeTexts = []string{
	"blank\n\nline inside",
	"trailing newline\n",
	"\nleading newline",
	"windows\r\nline endings\r\n",
	"### looks like a message header",
	"\n\n",
	"ends with a carriage return\r",
	"中文\n\n第二段",
	"  spaces  \t tab ",
}

// sealCorpus is a synthetic corpus over weeks of two namespaces, with an
// edge-case text every few messages.
func sealCorpus(seed uint64, pairs int, span time.Duration) []core.Message {
	msgs := synth.Corpus(synth.Options{Seed: seed, Pairs: pairs, PerSession: 6, Start: sealStart, Span: span, Namespaces: []string{"", "alice"}})
	for i := range msgs {
		if i%5 == 3 {
			msgs[i].Text = edgeTexts[(i/5)%len(edgeTexts)] + fmt.Sprint(i)
		}
	}
	return msgs
}

// snapshot renders every chunk the way `huimem get --context 1` shows it:
// anchors, file, virtual line numbers and text.
func snapshot(t testing.TB, e *Engine) map[string]string {
	t.Helper()
	type ref struct{ ns, id string }
	var refs []ref
	e.st.View(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error {
			refs = append(refs, ref{c.NS, c.ID})
			return nil
		})
	})
	out := map[string]string{}
	for _, r := range refs {
		hits, err := e.RecallByID(t.Context(), r.ns, r.id, 1)
		if err != nil {
			t.Fatalf("RecallByID(%q, %s): %v", r.ns, r.id, err)
		}
		var b bytes.Buffer
		render.Chunks(&b, hits)
		out[r.ns+"/"+r.id] = b.String()
	}
	return out
}

// recallSnapshot renders a few recalls with context.
func recallSnapshot(t testing.TB, e *Engine) string {
	t.Helper()
	var b bytes.Buffer
	for _, q := range []core.Query{
		{Text: synth.Word(200) + " " + synth.Word(260), Context: 1, TopK: 5},
		{Text: "blank line inside", Context: 2, TopK: 3},
		{Text: synth.ZhWord(30), Namespace: "alice", Context: 1, TopK: 3},
	} {
		res, err := e.Recall(t.Context(), q)
		if err != nil {
			t.Fatalf("Recall(%q): %v", q.Text, err)
		}
		render.Hits(&b, res.Hits)
	}
	return b.String()
}

// looseFiles returns the transcripts on disk, by path under sessions/.
func looseFiles(t testing.TB, e *Engine) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := e.sessionsRoot()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, archive.Ext) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	return out
}

// archivedFiles unpacks every archive on disk, independently of the
// engine, and returns the files by path under sessions/.
func archivedFiles(t testing.TB, e *Engine) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := e.sessionsRoot()
	archives, _ := filepath.Glob(filepath.Join(root, "*"+archive.Ext))
	more, _ := filepath.Glob(filepath.Join(root, "@*", "*"+archive.Ext))
	for _, a := range append(archives, more...) {
		rel, _ := filepath.Rel(root, strings.TrimSuffix(a, archive.Ext))
		dst := filepath.Join(t.TempDir(), "x")
		info, err := archive.Extract(a, dst, archive.ExtractOptions{MaxBytes: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range info.Manifest.Files {
			data, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(f.Path)))
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.ToSlash(rel)+"/"+f.Path] = string(data)
		}
	}
	return out
}

// transcripts returns every transcript, loose or archived.
func transcripts(t testing.TB, e *Engine) map[string]string {
	t.Helper()
	out := archivedFiles(t, e)
	for k, v := range looseFiles(t, e) {
		if _, ok := out[k]; ok {
			t.Errorf("%s is both loose and archived", k)
		}
		out[k] = v
	}
	return out
}

func seal(t testing.TB, e *Engine, opts SealOptions) []WeekInfo {
	t.Helper()
	if opts.Now.IsZero() {
		opts.Now = sealNow
	}
	weeks, err := e.Seal(t.Context(), opts)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	return weeks
}

// checkChunkLines checks, for every chunk, that lines line_start to
// line_end of its transcript are exactly its messages: header, text, and a
// blank line between messages.
func checkChunkLines(t testing.TB, e *Engine, files map[string]string) int {
	t.Helper()
	n := 0
	err := e.st.View(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error {
			chunk, err := e.hydrate(tx, c)
			if err != nil {
				return err
			}
			data, ok := files[c.File]
			if !ok {
				return fmt.Errorf("chunk %s: no transcript %s", c.ID, c.File)
			}
			lines := strings.Split(data, "\n")
			if c.LineStart < 1 || c.LineEnd > len(lines) || c.LineStart > c.LineEnd {
				return fmt.Errorf("chunk %s: lines %d-%d of a %d-line file", c.ID, c.LineStart, c.LineEnd, len(lines))
			}
			var parts []string
			for i := range chunk.Messages {
				parts = append(parts, transcript.MessageHeader(&chunk.Messages[i])+"\n"+chunk.Messages[i].Text)
			}
			want := strings.Join(parts, "\n\n")
			if got := strings.Join(lines[c.LineStart-1:c.LineEnd], "\n"); got != want {
				return fmt.Errorf("chunk %s: %s:L%d-L%d is\n%q\nwant\n%q", c.ID, c.File, c.LineStart, c.LineEnd, got, want)
			}
			n++
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestChunkLinesPointAtTheirMessages ingests a large corpus in batches,
// with late messages that land inside sessions, and checks every chunk's
// lines against its transcript: on disk, then inside the sealed archives.
func TestChunkLinesPointAtTheirMessages(t *testing.T) {
	e := openTest(t)
	msgs := sealCorpus(7, 1500, 6*7*24*time.Hour)
	r := rand.New(rand.NewPCG(7, 8))
	// Hold back one message in ten; it arrives late.
	var now, late []core.Message
	for _, m := range msgs {
		if r.IntN(10) == 0 {
			late = append(late, m)
		} else {
			now = append(now, m)
		}
	}
	for i := 0; i < len(now); i += 1000 {
		ingest(t, e, now[i:min(i+1000, len(now))])
	}
	ingest(t, e, late)
	loose := looseFiles(t, e)
	n := checkChunkLines(t, e, loose)
	if n < 1500 {
		t.Fatalf("checked %d chunks, want at least 1500", n)
	}
	before := snapshot(t, e)
	seal(t, e, SealOptions{})
	if files := looseFiles(t, e); len(files) != 0 {
		t.Fatalf("loose files left after sealing: %d", len(files))
	}
	archived := archivedFiles(t, e)
	if diff := cmp.Diff(loose, archived); diff != "" {
		t.Fatalf("archives differ from the loose files they replaced (-loose +archived):\n%s", diff)
	}
	checkChunkLines(t, e, archived)
	if diff := cmp.Diff(before, snapshot(t, e)); diff != "" {
		t.Errorf("chunks read differently once sealed (-before +after):\n%s", diff)
	}
}

func TestSealRoundTrip(t *testing.T) {
	e := openTest(t)
	msgs := sealCorpus(1, 120, 3*7*24*time.Hour)
	ingest(t, e, msgs)
	loose := looseFiles(t, e)
	chunks, recalls := snapshot(t, e), recallSnapshot(t, e)

	weeks := seal(t, e, SealOptions{})
	var names []string
	for _, w := range weeks {
		names = append(names, w.Namespace+"/"+w.Week)
		if !w.Sealed || w.Files == 0 || w.Ratio <= 1 || w.ArchiveBytes == 0 {
			t.Errorf("week %+v", w)
		}
	}
	want := []string{"/2026-W10", "/2026-W11", "/2026-W12", "alice/2026-W10", "alice/2026-W11", "alice/2026-W12"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("sealed weeks (-want +got):\n%s", diff)
	}
	for _, p := range []string{"2026-W10.tar.zst", "@alice/2026-W10.tar.zst"} {
		if _, err := os.Stat(filepath.Join(e.sessionsRoot(), p)); err != nil {
			t.Errorf("archive %s: %v", p, err)
		}
	}
	// Byte-identical to the loose files, which are gone.
	if diff := cmp.Diff(loose, archivedFiles(t, e)); diff != "" {
		t.Errorf("archived files (-loose +archived):\n%s", diff)
	}
	if files := looseFiles(t, e); len(files) != 0 {
		t.Errorf("loose files left: %v", slices.Sorted(mapKeys(files)))
	}
	// The store no longer holds the text.
	e.st.View(func(tx *store.Tx) error {
		return tx.ForEachSession(func(s *store.Session) error {
			stored, _, _ := tx.SessionMessages(s.NS, s.Session)
			for _, m := range stored {
				if !m.Sealed || m.Text != "" {
					t.Fatalf("message %d of %q: sealed %v, text %q", m.Seq, s.Session, m.Sealed, m.Text)
				}
			}
			return nil
		})
	})
	check := func(when string) {
		t.Helper()
		if diff := cmp.Diff(chunks, snapshot(t, e)); diff != "" {
			t.Errorf("%s: get differs (-before +after):\n%s", when, diff)
		}
		if diff := cmp.Diff(recalls, recallSnapshot(t, e)); diff != "" {
			t.Errorf("%s: recall differs (-before +after):\n%s", when, diff)
		}
	}
	check("sealed")
	// Cold: nothing cached, on disk or in memory.
	e.dropArchiveCaches()
	check("sealed, cold cache")
	// Ingesting the same messages again adds nothing: their identity
	// survives the text moving out of the store.
	if res := ingest(t, e, msgs); res.Added != 0 {
		t.Errorf("re-ingest after sealing added %d messages", res.Added)
	}
	// Rebuilding the index and re-embedding read the sealed text too.
	if _, err := e.Reindex(t.Context(), ReindexOptions{Embed: true}); err != nil {
		t.Fatal(err)
	}
	check("reindexed")
	if checks, err := e.VerifyArchives(t.Context()); err != nil || len(checks) != 6 {
		t.Errorf("VerifyArchives: %d checks, %v", len(checks), err)
	}
	// Sealing again finds nothing to do.
	if again := seal(t, e, SealOptions{}); len(again) != 0 {
		t.Errorf("second seal sealed %v", again)
	}
	home := e.Home()
	e.Close()
	e = openHome(t, home)
	check("reopened")
	list, err := e.Weeks(t.Context())
	if err != nil || len(list) != 6 || list[0].State != "sealed" || list[0].Ratio <= 1 {
		t.Errorf("Weeks: %+v, %v", list, err)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestSealedTextRoundTripsExactly(t *testing.T) {
	e := openTest(t)
	var msgs []core.Message
	at := sealStart
	for i, text := range append(slices.Clone(edgeTexts), "x", "\n", "a\n\n\nb\n\n") {
		role := core.RoleUser
		if i%2 == 1 {
			role = core.RoleAssistant
		}
		msgs = append(msgs, msg("edge", at.Add(time.Duration(i)*time.Minute), role, text))
	}
	ingest(t, e, msgs)
	seal(t, e, SealOptions{})
	e.dropArchiveCaches()
	var got []string
	e.st.View(func(tx *store.Tx) error {
		stored, _, err := tx.SessionMessages("", "edge")
		for _, sm := range stored {
			text, err := e.sealedText(tx, sm)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, text)
		}
		return err
	})
	var want []string
	for _, m := range msgs {
		want = append(want, m.Text)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sealed texts (-want +got):\n%s", diff)
	}
}

// TestFilingRuleAcrossWeeks: a session that starts on Sunday night and
// runs into Monday, the next ISO week, is filed (and sealed) in the week
// and day of its first message.
func TestFilingRuleAcrossWeeks(t *testing.T) {
	e := openTest(t)
	sunday := time.Date(2026, 3, 8, 23, 50, 0, 0, cst) // 2026-W10
	ingest(t, e, []core.Message{
		msg("night", sunday, core.RoleUser, "still awake?"),
		msg("night", sunday.Add(20*time.Minute), core.RoleAssistant, "it is Monday now"),
		msg("monday", sunday.Add(time.Hour), core.RoleUser, "good morning"),
	})
	want := []string{"2026-W10/2026-03-08/chat_night.md", "2026-W11/2026-03-09/chat_monday.md"}
	if diff := cmp.Diff(want, slices.Sorted(mapKeys(looseFiles(t, e)))); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	seal(t, e, SealOptions{Week: "2026-W10"})
	if diff := cmp.Diff(want[:1], slices.Sorted(mapKeys(archivedFiles(t, e)))); diff != "" {
		t.Errorf("2026-W10's archive (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1:], slices.Sorted(mapKeys(looseFiles(t, e)))); diff != "" {
		t.Errorf("loose files (-want +got):\n%s", diff)
	}
}

func TestSealChoosesFinishedWeeks(t *testing.T) {
	e := openTest(t)
	ingest(t, e, sealCorpus(3, 60, 3*7*24*time.Hour)) // 2026-W10 to W12
	// On Wednesday of W11, only W10 has ended.
	wed := time.Date(2026, 3, 11, 12, 0, 0, 0, cst)
	weeks := seal(t, e, SealOptions{Now: wed})
	for _, w := range weeks {
		if w.Week != "2026-W10" {
			t.Errorf("sealed %s, which has not ended", w.Week)
		}
	}
	if len(weeks) != 2 {
		t.Errorf("sealed %d weeks, want 2026-W10 of both namespaces", len(weeks))
	}
	for _, tt := range []struct {
		week string
		now  time.Time
	}{
		{"2026-W11", wed},
		{"2026-W12", wed},
		{"2026-11", wed},
		{"2026-W54", wed},
	} {
		if _, err := e.Seal(t.Context(), SealOptions{Week: tt.week, Now: tt.now}); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Seal(week %s): %v, want ErrInvalid", tt.week, err)
		}
	}
	weeks = seal(t, e, SealOptions{Week: "2026-W12"})
	if len(weeks) != 2 || weeks[0].Week != "2026-W12" {
		t.Errorf("--week 2026-W12 sealed %+v", weeks)
	}
	list, _ := e.Weeks(t.Context())
	var states []string
	for _, w := range list {
		states = append(states, w.Namespace+"/"+w.Week+" "+w.State)
	}
	want := []string{"/2026-W10 sealed", "/2026-W11 open", "/2026-W12 sealed", "alice/2026-W10 sealed", "alice/2026-W11 open", "alice/2026-W12 sealed"}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("Weeks (-want +got):\n%s", diff)
	}
}

// TestSealCrashAtEachStep stops sealing at each step, as a crash would,
// then checks that nothing was lost, that the home opens and reads the
// same, and that sealing again completes.
func TestSealCrashAtEachStep(t *testing.T) {
	for _, step := range []string{stepWritten, stepRenamed, stepVerified, stepCommitted, stepRemoving} {
		t.Run(step, func(t *testing.T) {
			e := openTest(t)
			ingest(t, e, sealCorpus(5, 40, 2*7*24*time.Hour))
			loose := looseFiles(t, e)
			want := snapshot(t, e)
			crash := errors.New("crash")
			sealFault = func(s string) error {
				if s == step {
					return crash
				}
				return nil
			}
			t.Cleanup(func() { sealFault = nil })
			if _, err := e.Seal(t.Context(), SealOptions{Now: sealNow}); !errors.Is(err, crash) {
				t.Fatalf("Seal: %v, want the crash", err)
			}
			sealFault = nil
			if diff := cmp.Diff(want, snapshot(t, e)); diff != "" {
				t.Fatalf("after the crash (-before +after):\n%s", diff)
			}
			home := e.Home()
			e.Close()
			// Leftovers a real crash could leave beside the folders.
			os.WriteFile(filepath.Join(home, sessionsDir, tmpPrefix+"2026-W10"+archive.Ext+"-123"), []byte("half"), 0o600)
			os.MkdirAll(filepath.Join(home, sessionsDir, tmpPrefix+"reopen-2026-W10-123", "w"), 0o700)
			os.WriteFile(filepath.Join(home, sessionsDir, "2026-W10", "2026-03-02", tmpPrefix+"chat_x.md-9"), []byte("half"), 0o600)
			e = openHome(t, home)
			if diff := cmp.Diff(want, snapshot(t, e)); diff != "" {
				t.Fatalf("reopened after the crash (-before +after):\n%s", diff)
			}
			seal(t, e, SealOptions{})
			if diff := cmp.Diff(loose, archivedFiles(t, e)); diff != "" {
				t.Errorf("archives after the re-run (-loose +archived):\n%s", diff)
			}
			var left []string
			filepath.WalkDir(e.sessionsRoot(), func(p string, d fs.DirEntry, err error) error {
				if err == nil && p != e.sessionsRoot() && !strings.HasSuffix(p, archive.Ext) && !(d.IsDir() && strings.HasPrefix(d.Name(), "@")) {
					left = append(left, p)
				}
				return nil
			})
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			if _, err := e.VerifyArchives(t.Context()); err != nil {
				t.Error(err)
			}
			e.dropArchiveCaches()
			if diff := cmp.Diff(want, snapshot(t, e)); diff != "" {
				t.Errorf("after the re-run (-before +after):\n%s", diff)
			}
		})
	}
}

// lateCorpus is two weeks of one session each plus a few more.
func lateCorpus() []core.Message {
	w10 := time.Date(2026, 3, 4, 10, 0, 0, 0, cst) // Wednesday of W10
	w11 := w10.Add(7 * 24 * time.Hour)
	at := func(base time.Time, m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	return []core.Message{
		msg("s10", at(w10, 0), core.RoleUser, "plan the kyoto trip"),
		msg("s10", at(w10, 1), core.RoleAssistant, "temples first"),
		msg("s10", at(w10, 20), core.RoleUser, "and the budget?"),
		msg("s10", at(w10, 21), core.RoleAssistant, "forty thousand"),
		msg("o10", at(w10, 60), core.RoleUser, "another conversation\n\nwith a blank line"),
		msg("o10", at(w10, 61), core.RoleAssistant, "noted\n"),
		msg("s11", at(w11, 0), core.RoleUser, "renew the passport"),
		msg("s11", at(w11, 1), core.RoleAssistant, "done"),
	}
}

func sessionTexts(t testing.TB, e *Engine, ns, session string) []string {
	t.Helper()
	var out []string
	err := e.st.View(func(tx *store.Tx) error {
		for _, id := range tx.SessionChunkIDs(ns, session) {
			c, err := tx.Chunk(id)
			if err != nil {
				return err
			}
			chunk, err := e.hydrate(tx, c)
			if err != nil {
				return err
			}
			for _, m := range chunk.Messages {
				out = append(out, m.Text)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLateMessagesForSealedWeeks(t *testing.T) {
	w10 := time.Date(2026, 3, 4, 10, 0, 0, 0, cst)
	tests := []struct {
		name string
		seal []string // weeks sealed before the late messages
		late []core.Message
		// session → its texts afterwards, and its file
		want  map[string][]string
		files map[string]string
	}{
		{
			name: "inside a sealed session",
			seal: []string{"2026-W10", "2026-W11"},
			late: []core.Message{msg("s10", w10.Add(10*time.Minute), core.RoleUser, "what about food?\n\nand hotels")},
			want: map[string][]string{"s10": {"plan the kyoto trip", "temples first", "what about food?\n\nand hotels", "and the budget?", "forty thousand"}},
		},
		{
			name: "new session in a sealed week",
			seal: []string{"2026-W10"},
			late: []core.Message{msg("n10", w10.Add(3*time.Hour), core.RoleUser, "a new one, late")},
			want: map[string][]string{"n10": {"a new one, late"}, "o10": {"another conversation\n\nwith a blank line", "noted\n"}},
		},
		{
			name:  "session moves from a sealed week into an open one",
			seal:  []string{"2026-W11"},
			late:  []core.Message{msg("s11", w10.Add(2*time.Hour), core.RoleUser, "an earlier start")},
			want:  map[string][]string{"s11": {"an earlier start", "renew the passport", "done"}},
			files: map[string]string{"s11": "2026-W10/2026-03-04/chat_s11.md"},
		},
		{
			name:  "session moves from a sealed week into a sealed one",
			seal:  []string{"2026-W10", "2026-W11"},
			late:  []core.Message{msg("s11", w10.Add(2*time.Hour), core.RoleUser, "an earlier start")},
			want:  map[string][]string{"s11": {"an earlier start", "renew the passport", "done"}},
			files: map[string]string{"s11": "2026-W10/2026-03-04/chat_s11.md"},
		},
		{
			name:  "session moves from an open week into a sealed one",
			seal:  []string{"2026-W10"},
			late:  []core.Message{msg("s11", w10.Add(2*time.Hour), core.RoleUser, "an earlier start")},
			want:  map[string][]string{"s11": {"an earlier start", "renew the passport", "done"}},
			files: map[string]string{"s11": "2026-W10/2026-03-04/chat_s11.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := openTest(t)
			ingest(t, e, lateCorpus())
			for _, w := range tt.seal {
				seal(t, e, SealOptions{Week: w})
			}
			ingest(t, e, tt.late)
			for session, want := range tt.want {
				if diff := cmp.Diff(want, sessionTexts(t, e, "", session)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", session, diff)
				}
			}
			// Everything is on disk as loose files now, once each.
			loose := looseFiles(t, e)
			for session, file := range tt.files {
				if _, ok := loose[file]; !ok {
					t.Errorf("%s is not in %s; files: %v", session, file, slices.Sorted(mapKeys(loose)))
				}
			}
			all := transcripts(t, e)
			checkChunkLines(t, e, all)
			want := snapshot(t, e)
			// Seal everything again: the late messages are in the archives.
			seal(t, e, SealOptions{})
			if files := looseFiles(t, e); len(files) != 0 {
				t.Errorf("loose files after sealing again: %v", slices.Sorted(mapKeys(files)))
			}
			archived := archivedFiles(t, e)
			if diff := cmp.Diff(all, archived); diff != "" {
				t.Errorf("archives (-before +archived):\n%s", diff)
			}
			checkChunkLines(t, e, archived)
			e.dropArchiveCaches()
			if diff := cmp.Diff(want, snapshot(t, e)); diff != "" {
				t.Errorf("after sealing again (-before +after):\n%s", diff)
			}
		})
	}
}

// TestReopenCrashAtEachStep stops the re-opening of a sealed week, which a
// late message triggers, at each step; the next open completes it.
func TestReopenCrashAtEachStep(t *testing.T) {
	w10 := time.Date(2026, 3, 4, 10, 0, 0, 0, cst)
	late := msg("s10", w10.Add(10*time.Minute), core.RoleUser, "late\n\nbut here")
	for _, step := range []string{stepReExtracted, stepReCommitted} {
		t.Run(step, func(t *testing.T) {
			e := openTest(t)
			ingest(t, e, lateCorpus())
			seal(t, e, SealOptions{})
			crash := errors.New("crash")
			sealFault = func(s string) error {
				if s == step {
					return crash
				}
				return nil
			}
			t.Cleanup(func() { sealFault = nil })
			if _, err := e.Ingest(t.Context(), []core.Message{late}); !errors.Is(err, crash) {
				t.Fatalf("Ingest: %v, want the crash", err)
			}
			sealFault = nil
			want := []string{"plan the kyoto trip", "temples first", "late\n\nbut here", "and the budget?", "forty thousand"}
			if diff := cmp.Diff(want, sessionTexts(t, e, "", "s10")); diff != "" {
				t.Errorf("after the crash (-want +got):\n%s", diff)
			}
			home := e.Home()
			e.Close()
			e = openHome(t, home)
			if diff := cmp.Diff(want, sessionTexts(t, e, "", "s10")); diff != "" {
				t.Errorf("reopened (-want +got):\n%s", diff)
			}
			all := transcripts(t, e)
			checkChunkLines(t, e, all)
			if !strings.Contains(all["2026-W10/2026-03-04/chat_s10.md"], "late\n\nbut here") {
				t.Errorf("the transcript lacks the late message:\n%s", all["2026-W10/2026-03-04/chat_s10.md"])
			}
			seal(t, e, SealOptions{})
			if diff := cmp.Diff(all, archivedFiles(t, e)); diff != "" {
				t.Errorf("sealed again (-loose +archived):\n%s", diff)
			}
			if _, err := e.VerifyArchives(t.Context()); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestAutoSeal(t *testing.T) {
	e := openTest(t, func(c *core.Config) { c.Archive.AutoSeal = true })
	ingest(t, e, lateCorpus())
	list, _ := e.Weeks(t.Context())
	if len(list) != 2 || list[0].State != "sealed" || list[1].State != "sealed" {
		t.Fatalf("after ingest: %+v", list)
	}
	// A late message re-opens its week, and the same ingest seals it
	// again.
	w10 := time.Date(2026, 3, 4, 10, 0, 0, 0, cst)
	ingest(t, e, []core.Message{msg("s10", w10.Add(10*time.Minute), core.RoleUser, "late")})
	list, _ = e.Weeks(t.Context())
	if len(list) != 2 || list[0].State != "sealed" {
		t.Fatalf("after a late message: %+v", list)
	}
	if got := sessionTexts(t, e, "", "s10"); len(got) != 5 || got[2] != "late" {
		t.Errorf("s10: %q", got)
	}
	// This week is not over: it stays open.
	ingest(t, e, []core.Message{msg("today", time.Now(), core.RoleUser, "hello")})
	list, _ = e.Weeks(t.Context())
	if len(list) != 3 || list[2].State != "open" {
		t.Errorf("after a message of this week: %+v", list)
	}
}

func TestSealedReadDecompressesOneWeek(t *testing.T) {
	e := openTest(t)
	ingest(t, e, sealCorpus(9, 150, 5*7*24*time.Hour))
	seal(t, e, SealOptions{})
	e.dropArchiveCaches()
	c := e.weekCache()
	before := c.Extractions()
	// A recall scoped to one week, with context.
	since := time.Date(2026, 3, 16, 0, 0, 0, 0, cst) // Monday of W12
	res, err := e.Recall(t.Context(), core.Query{Text: synth.Word(10), Since: since, Before: since.Add(7 * 24 * time.Hour), Context: 2, TopK: 5, Namespace: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range res.Hits {
		if !strings.HasPrefix(h.File, "@alice/2026-W12/") {
			t.Errorf("hit in %s", h.File)
		}
	}
	if n := c.Extractions() - before; n != 1 {
		t.Errorf("the recall decompressed %d weeks, want 1", n)
	}
	ents, _ := os.ReadDir(c.Dir())
	weeks := 0
	for _, ent := range ents {
		if !strings.HasPrefix(ent.Name(), ".") { // the cache's lock file
			weeks++
		}
	}
	if weeks != 1 {
		t.Errorf("cache holds %d weeks, want 1", weeks)
	}
	// The same recall again reads the cache.
	if _, err := e.Recall(t.Context(), core.Query{Text: synth.Word(10), Since: since, Before: since.Add(7 * 24 * time.Hour), Context: 2, Namespace: "alice"}); err != nil {
		t.Fatal(err)
	}
	if n := c.Extractions() - before; n != 1 {
		t.Errorf("a second recall decompressed again (%d)", n)
	}
}

func TestCacheDirFromConfig(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "elsewhere")
	e := openTest(t, func(c *core.Config) { c.Storage.CacheDir = cache })
	ingest(t, e, lateCorpus())
	want := snapshot(t, e)
	seal(t, e, SealOptions{})
	e.dropArchiveCaches()
	if diff := cmp.Diff(want, snapshot(t, e)); diff != "" {
		t.Errorf("(-before +after):\n%s", diff)
	}
	if ents, _ := os.ReadDir(cache); len(ents) == 0 {
		t.Errorf("nothing cached in %s", cache)
	}
	if _, err := os.Stat(filepath.Join(e.Home(), "cache")); err == nil {
		t.Errorf("<home>/cache was used despite storage.cache_dir")
	}
}

func TestDamagedArchives(t *testing.T) {
	damage := map[string]func(p string) error{
		"corrupt byte": func(p string) error {
			data, err := os.ReadFile(p)
			data[len(data)/2] ^= 0xff
			if err == nil {
				err = os.WriteFile(p, data, 0o600)
			}
			return err
		},
		"truncated": func(p string) error {
			fi, err := os.Stat(p)
			if err == nil {
				err = os.Truncate(p, fi.Size()-7)
			}
			return err
		},
		"missing": os.Remove,
	}
	for name, fn := range damage {
		t.Run(name, func(t *testing.T) {
			e := openTest(t)
			ingest(t, e, lateCorpus())
			seal(t, e, SealOptions{})
			e.dropArchiveCaches()
			arch := filepath.Join(e.sessionsRoot(), "2026-W10"+archive.Ext)
			if err := fn(arch); err != nil {
				t.Fatal(err)
			}
			var id string
			e.st.View(func(tx *store.Tx) error { id = tx.SessionChunkIDs("", "s10")[0]; return nil })
			hits, err := e.RecallByID(t.Context(), "", id, 0)
			if err == nil || !strings.Contains(err.Error(), arch) {
				t.Errorf("RecallByID: %v (hits %v), want an error naming %s", err, hits, arch)
			}
			checks, err := e.VerifyArchives(t.Context())
			if err == nil || !strings.Contains(err.Error(), arch) {
				t.Errorf("VerifyArchives: %v, want an error naming %s", err, arch)
			}
			bad := 0
			for _, c := range checks {
				if c.Err != nil {
					bad++
				}
			}
			if bad != 1 || len(checks) != 2 {
				t.Errorf("%d of %d archives bad, want 1 of 2", bad, len(checks))
			}
			// The other week still reads.
			e.st.View(func(tx *store.Tx) error { id = tx.SessionChunkIDs("", "s11")[0]; return nil })
			if _, err := e.RecallByID(t.Context(), "", id, 0); err != nil {
				t.Errorf("the undamaged week: %v", err)
			}
		})
	}
}

// TestRecallWhileSealing runs recalls in several goroutines while weeks
// are sealed, re-opened by late messages and sealed again. Run with -race.
func TestRecallWhileSealing(t *testing.T) {
	e := openTest(t)
	ingest(t, e, sealCorpus(11, 80, 3*7*24*time.Hour))
	want := snapshot(t, e)
	ids := slices.Sorted(mapKeys(want))
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var reads sync.Map
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				key := ids[(g*31+i)%len(ids)]
				ns, id, _ := strings.Cut(key, "/")
				hits, err := e.RecallByID(ctx, ns, id, 1)
				if err != nil {
					if ctx.Err() == nil {
						t.Errorf("RecallByID(%s): %v", key, err)
					}
					return
				}
				var b bytes.Buffer
				render.Chunks(&b, hits)
				if b.String() != want[key] {
					t.Errorf("RecallByID(%s) read\n%s\nwant\n%s", key, b.String(), want[key])
					return
				}
				if i%10 == 0 {
					if _, err := e.Recall(ctx, core.Query{Text: synth.Word(i % 300), Namespace: ns, Context: 1}); err != nil && ctx.Err() == nil {
						t.Errorf("Recall: %v", err)
						return
					}
				}
				reads.Store(g, i)
			}
		})
	}
	w10 := sealStart.Add(48 * time.Hour)
	for round := range 3 {
		seal(t, e, SealOptions{})
		e.dropArchiveCaches()
		// A new late session re-opens 2026-W10.
		ingest(t, e, []core.Message{msg(fmt.Sprintf("late-%d", round), w10.Add(time.Duration(round)*time.Minute), core.RoleUser, "late")})
	}
	seal(t, e, SealOptions{})
	time.Sleep(50 * time.Millisecond)
	cancel()
	wg.Wait()
	n := 0
	reads.Range(func(_, v any) bool { n += v.(int); return true })
	t.Logf("%d reads during sealing", n)
}
