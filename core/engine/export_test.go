package engine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/internal/bench/synth"
)

// chunkView is everything a chunk shows of itself.
type chunkView struct {
	ID, Prev, Next, NS, Session, File string
	LineStart, LineEnd                int
	Time, End                         string
	Messages                          []core.Message
}

// allChunks returns every chunk of a home, hydrated, by namespace and id.
func allChunks(t *testing.T, e *Engine) map[string]chunkView {
	t.Helper()
	out := map[string]chunkView{}
	err := e.st.View(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error {
			h, err := e.hydrate(tx, c)
			if err != nil {
				return err
			}
			for i := range h.Messages { // compare instants and offsets as written
				h.Messages[i].Time = h.Messages[i].Time.UTC()
			}
			out[c.NS+"/"+c.ID] = chunkView{ID: c.ID, Prev: c.Prev, Next: c.Next, NS: c.NS, Session: c.Session, File: c.File,
				LineStart: c.LineStart, LineEnd: c.LineEnd, Time: c.Time, End: c.End, Messages: h.Messages}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// roundTripCorpus is a corpus of three namespaces, ingested in two
// batches: the second holds late messages (placed before messages already
// stored), messages in reverse order, a message at the same instant as a
// stored one of its session, and one with another offset.
func roundTripCorpus() (first, late []core.Message) {
	msgs := synth.Corpus(synth.Options{Seed: 11, Pairs: 120, PerSession: 6, Start: sealStart, Span: 21 * 24 * time.Hour, Namespaces: []string{"", "alice", "bob"}})
	for i := range msgs {
		if i%7 == 3 {
			msgs[i].Text = edgeTexts[(i/7)%len(edgeTexts)] + " #" + msgs[i].Session
		}
		if i%11 == 5 {
			msgs[i].Speaker, msgs[i].Ref = "Speaker "+msgs[i].Session, "ref:"+msgs[i].Session
		}
	}
	// Every fourth session's second half arrives late, newest first.
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; strings.HasSuffix(m.Session, "0") && i%12 >= 6 {
			late = append(late, m)
		} else {
			first = append(first, m)
		}
	}
	// first is reversed too: ingest re-orders by time.
	s0 := first[len(first)-1]
	tie := s0
	tie.Text, tie.Role = "same instant as the first message, stored later", core.RoleAssistant
	other := s0
	other.Time = s0.Time.Add(90 * time.Second).In(time.FixedZone("", -5*3600))
	other.Text = "written from another offset"
	late = append(late, tie, other,
		core.Message{Namespace: "alice", Session: s0.Session, Time: s0.Time, Role: core.RoleUser, Text: "same session name, other namespace"})
	return first, late
}

func TestExportRoundTrip(t *testing.T) {
	a := openTest(t)
	first, late := roundTripCorpus()
	ingest(t, a, first)
	if weeks := seal(t, a, SealOptions{}); len(weeks) == 0 {
		t.Fatal("nothing sealed")
	}
	ingest(t, a, late) // late messages re-open sealed weeks
	seal(t, a, SealOptions{Week: "2026-W10"})

	var all bytes.Buffer
	n, err := a.Export(t.Context(), &all, ExportOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(first) + len(late); n != want || strings.Count(all.String(), "\n") != want {
		t.Fatalf("exported %d messages (%d lines), want %d", n, strings.Count(all.String(), "\n"), want)
	}
	path := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(path, all.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	b := openTest(t)
	res, err := b.IngestFile(t.Context(), path, FileOptions{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != n {
		t.Errorf("ingesting the export added %d of %d messages", res.Added, n)
	}
	want, got := allChunks(t, a), allChunks(t, b)
	if len(want) < 100 {
		t.Fatalf("only %d chunks", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks of the original home and of its export differ (-original +export):\n%s", diff)
	}
	// The transcripts (including those of sealed weeks) are the same too.
	if diff := cmp.Diff(transcripts(t, a), looseFiles(t, b)); diff != "" {
		t.Errorf("transcripts differ (-original +export):\n%s", diff)
	}
	// Exporting the copy gives the same bytes.
	var again bytes.Buffer
	if _, err := b.Export(t.Context(), &again, ExportOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all.String(), again.String()); diff != "" {
		t.Errorf("the export of the copy differs (-original +copy):\n%s", diff)
	}

	// One namespace at a time: its lines only, and together all of them.
	total := 0
	for _, ns := range []string{"", "alice", "bob"} {
		var buf bytes.Buffer
		k, err := a.Export(t.Context(), &buf, ExportOptions{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		total += k
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			hasNS := strings.Contains(line, `"namespace":`)
			if (ns == "") == hasNS || (ns != "" && !strings.HasSuffix(line, `"namespace":"`+ns+`"}`)) {
				t.Fatalf("export of namespace %q has line %s", ns, line)
			}
		}
	}
	if total != n {
		t.Errorf("namespaces exported %d messages in all, want %d", total, n)
	}
}

func TestExportBadOptions(t *testing.T) {
	e := openTest(t)
	for _, o := range []ExportOptions{{Namespace: "a", All: true}, {Namespace: "a/b"}} {
		if _, err := e.Export(t.Context(), &bytes.Buffer{}, o); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Export(%+v) = %v, want ErrInvalid", o, err)
		}
	}
	var buf bytes.Buffer
	if n, err := e.Export(t.Context(), &buf, ExportOptions{Namespace: "empty"}); err != nil || n != 0 || buf.Len() != 0 {
		t.Errorf("Export of an empty namespace = %d, %v, %q", n, err, buf.String())
	}
}
