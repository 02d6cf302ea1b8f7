package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/internal/bench/synth"
)

// writeJSONL writes messages as HuiMemory JSONL and returns the path.
func writeJSONL(t testing.TB, dir, name string, msgs []core.Message, extra string) string {
	t.Helper()
	var b bytes.Buffer
	for _, m := range msgs {
		line, err := json.Marshal(map[string]string{
			"namespace": m.Namespace, "session": m.Session, "time": m.Time.Format(time.RFC3339Nano),
			"role": string(m.Role), "speaker": m.Speaker, "text": m.Text,
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString(extra)
	path := filepath.Join(dir, name)
	writeFile(t, path, b.String())
	return path
}

// stagedCorpus is a corpus whose sessions are interleaved in the file, so
// that batches cut sessions in several places.
func stagedCorpus() []core.Message {
	msgs := synth.Corpus(synth.Options{Seed: 7, Pairs: 120, PerSession: 12, Start: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), Span: 20 * 24 * time.Hour})
	var out []core.Message
	for i := 0; i < len(msgs); i += 6 { // interleave runs of six across sessions
		out = append(out, msgs[i:min(i+6, len(msgs))]...)
	}
	half := len(out) / 2
	var mixed []core.Message
	for i := 0; i < half; i++ {
		mixed = append(mixed, out[i], out[half+i])
	}
	return append(mixed, out[2*half:]...)
}

// logical describes a home as readers see it, without arrival sequence
// numbers (which a discarded stage advances): every session with its
// messages and chunks, the counts, the index size, a few recalls and the
// transcripts.
func logical(t testing.TB, e *Engine) string {
	t.Helper()
	var b strings.Builder
	err := e.st.View(func(tx *store.Tx) error {
		chunks, msgs := tx.Counts()
		fmt.Fprintf(&b, "counts %d chunks %d messages\n", chunks, msgs)
		stages, _ := tx.Stages()
		fmt.Fprintf(&b, "stages %d\n", len(stages))
		for p, h := range tx.Sources() {
			fmt.Fprintf(&b, "source %s %s %d claims\n", filepath.Base(p), h[:12], len(tx.SourceMessages(p)))
		}
		return tx.ForEachSession(func(s *store.Session) error {
			fmt.Fprintf(&b, "session %q/%q %s %s..%s %d msgs %d chunks\n", s.NS, s.Session, s.File, s.First, s.Last, s.Count, s.Chunks)
			ms, _, err := tx.SessionMessages(s.NS, s.Session)
			if err != nil {
				return err
			}
			for _, m := range ms {
				fmt.Fprintf(&b, "  msg %s %s %s %q\n", m.Time, m.Role, m.Speaker, m.Text)
			}
			for _, id := range tx.SessionChunkIDs(s.NS, s.Session) {
				c, err := tx.Chunk(id)
				if err != nil {
					return err
				}
				vec, _ := tx.Vector(id)
				fmt.Fprintf(&b, "  chunk %s prev=%s next=%s %s %d-%d %s vec=%d roles=%v\n", c.ID, c.Prev, c.Next, c.Time, c.LineStart, c.LineEnd, c.Hash[:12], len(vec), c.Roles)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.ix.Count()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "index %d\n", n)
	for _, q := range []string{synth.Word(3) + " " + synth.Word(40), synth.ZhWord(5), "deploy budget"} {
		res, err := e.Recall(t.Context(), core.Query{Text: q, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			fmt.Fprintf(&b, "recall %q %s %.4f\n", q, h.ID, h.Score)
		}
	}
	files := looseFiles(t, e)
	for _, k := range slices.Sorted(mapKeys(files)) {
		fmt.Fprintf(&b, "file %s %d bytes\n%s", k, len(files[k]), files[k])
	}
	return b.String()
}

func TestStagedIngestMatchesOneTransaction(t *testing.T) {
	msgs := stagedCorpus()
	// A session that exists before the file is read: its messages in the
	// file go in at publish, by the ordinary path.
	early := []core.Message{msgs[1], msgs[3]}
	dir := t.TempDir()
	path := writeJSONL(t, dir, "big.jsonl", append(msgs, msgs[10]), "") // one duplicate line
	var want string
	for _, batch := range []int{1 << 20, 7, 50} {
		e := openTest(t)
		ingest(t, e, early)
		res, err := e.IngestSource(t.Context(), path, SourceOptions{Location: time.UTC, BatchMessages: batch})
		if err != nil {
			t.Fatalf("batch %d: %v", batch, err)
		}
		if res.Messages != len(msgs)+1 || res.Added != len(msgs)-len(early) || res.Duplicates != len(early)+1 {
			t.Errorf("batch %d: %d messages, %d added, %d duplicates; want %d, %d, %d", batch, res.Messages, res.Added, res.Duplicates, len(msgs)+1, len(msgs)-len(early), len(early)+1)
		}
		got := logical(t, e)
		if want == "" {
			if strings.Count(got, "\n  chunk ") < 100 || strings.Count(got, "\nrecall ") < 10 || strings.Count(got, "\nfile ") < 5 {
				t.Fatalf("the description of the home lacks chunks, recalls or transcripts:\n%.2000s", got)
			}
			want = got
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("batch %d: home differs from a one-transaction ingest (-want +got):\n%s", batch, diff)
		}
		again, err := e.IngestSource(t.Context(), path, SourceOptions{Location: time.UTC, BatchMessages: batch})
		if err != nil || again.Status != SourceUnchanged {
			t.Errorf("batch %d: second ingest: status %q, error %v; want unchanged", batch, again.Status, err)
		}
	}
}

func TestStagedIngestBadLineLeavesStoreAsItWas(t *testing.T) {
	msgs := stagedCorpus()
	dir := t.TempDir()
	e := openTest(t)
	ingest(t, e, msgs[:5])
	before := logical(t, e)
	path := writeJSONL(t, dir, "bad.jsonl", msgs, `{"session":"x","time":"2026-03-05T10:00:07Z","role":"user","text":`+"\n")
	_, err := e.IngestSource(t.Context(), path, SourceOptions{Location: time.UTC, BatchMessages: 9})
	var ie *core.InputError
	if !errors.As(err, &ie) || ie.Line != len(msgs)+1 {
		t.Fatalf("error %v, want an input error at line %d", err, len(msgs)+1)
	}
	if diff := cmp.Diff(before, logical(t, e)); diff != "" {
		t.Errorf("a failed staged ingest changed the home (-before +after):\n%s", diff)
	}
	// The good file goes in afterwards, completely.
	good := writeJSONL(t, dir, "bad.jsonl", msgs, "")
	if _, err := e.IngestSource(t.Context(), good, SourceOptions{Location: time.UTC, BatchMessages: 9}); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.Stats(t.Context()); st.Messages != len(msgs) {
		t.Errorf("%d messages after the good ingest, want %d", st.Messages, len(msgs))
	}
}

// TestUnpublishedStageIsInvisible stops a staged ingest between batches,
// as a crash would, and checks that readers see the home as it was, that
// the next open removes the stage, and that the next ingest does the job.
// A stage indexed as it goes (stageindex.go) has its chunks in the index
// by then: the pinned index hides them, and the open removes them.
func TestUnpublishedStageIsInvisible(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		t.Run(fmt.Sprintf("indexed=%v", indexed), func(t *testing.T) {
			msgs := stagedCorpus()
			dir := t.TempDir()
			path := writeJSONL(t, dir, "big.jsonl", msgs, "")
			home := t.TempDir()
			e := openHome(t, home)
			other := []core.Message{msg("other", time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), core.RoleUser, "an earlier question about the deploy budget")}
			ingest(t, e, other)
			before := logical(t, e)

			// Write three batches under a stage and stop, as a crash would.
			run := &stageRun{src: path}
			if err := e.st.Update(func(tx *store.Tx) error {
				var err error
				run.info, err = tx.BeginStage(path, "digest")
				return err
			}); err != nil {
				t.Fatal(err)
			}
			run.info.Indexed = indexed
			for i := 2; i < 2+3*11; i += 11 {
				if err := e.write.stageBatch(t.Context(), run, msgs[i:i+11]); err != nil {
					t.Fatal(err)
				}
			}
			if run.info.Messages != 33 {
				t.Fatalf("the stage holds %d messages, want 33", run.info.Messages)
			}
			if indexed {
				// What the indexer was sent is in the index, on disk; the
				// index stays pinned, as when the process dies.
				if err := run.ix.send(t.Context(), &run.held); err != nil {
					t.Fatal(err)
				}
				if err := run.ix.finish(); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(strings.Replace(before, "stages 0", "stages 1", 1), logical(t, e)); diff != "" {
				t.Errorf("readers see an unpublished stage (-before +after):\n%s", diff)
			}
			e.Close()
			if indexed {
				ix, err := index.Open(filepath.Join(home, indexDir))
				if err != nil {
					t.Fatal(err)
				}
				if n, _ := ix.Count(); n <= 1 {
					t.Errorf("the index holds %d chunks; the test needs the stage's in it", n)
				}
				ix.Close()
			}
			e = openHome(t, home)
			if diff := cmp.Diff(before, logical(t, e)); diff != "" {
				t.Errorf("after reopening, the home is not as it was (-before +after):\n%s", diff)
			}
			if _, err := e.IngestSource(t.Context(), path, SourceOptions{Location: time.UTC, BatchMessages: 13}); err != nil {
				t.Fatal(err)
			}
			clean := openTest(t)
			ingest(t, clean, other)
			if _, err := clean.IngestSource(t.Context(), path, SourceOptions{Location: time.UTC}); err != nil {
				t.Fatal(err)
			}
			want, got := logical(t, clean), logical(t, e)
			if indexed {
				// The stage's removed chunks may stay in a segment's
				// BM25 statistics until a merge (stageindex.go), which
				// moves scores, and near-ties, a little: the index holds
				// the same chunks (its count), the recalls may differ.
				want, got = withoutRecalls(want), withoutRecalls(got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("re-running the ingest after a crash differs from a clean ingest (-clean +rerun):\n%s", diff)
			}
			_ = os.Remove(path)
		})
	}
}

// withoutRecalls removes the recall lines of a logical description.
func withoutRecalls(logical string) string {
	var b strings.Builder
	for line := range strings.Lines(logical) {
		if !strings.HasPrefix(line, "recall ") {
			b.WriteString(line)
		}
	}
	return b.String()
}
