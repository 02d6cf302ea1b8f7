package migrate

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/pgtest"
	"github.com/huimemory/huimemory/plugins/host"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func homeConfig(home string) core.Config {
	var cfg core.Config
	cfg.Storage.Home = home
	cfg.Plugins.Subprocess = false
	return cfg
}

func openEngine(t *testing.T, cfg core.Config) *engine.Engine {
	t.Helper()
	e, err := host.Open(t.Context(), cfg, engine.Options{Access: engine.AccessShared, LockWait: 10 * time.Second}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// snapshot is what a user sees of a memory.
type snapshot struct {
	Export      map[string]string   // per namespace
	Recalls     map[string][]string // query → "id prev next score"
	Weeks       []engine.WeekInfo
	Stats       [4]int // chunks, messages, sessions, namespaces
	Transcripts map[string]string
}

// snap reads what a user sees of the memory of cfg. Scores are left out
// when scores is false: PostgreSQL keeps BM25 statistics per namespace,
// bleve per home, so with two namespaces the scores differ (the ranking
// here does not).
func snap(t *testing.T, cfg core.Config, scores bool) snapshot {
	t.Helper()
	e := openEngine(t, cfg)
	defer e.Close()
	s := snapshot{Export: map[string]string{}, Recalls: map[string][]string{}, Transcripts: map[string]string{}}
	for _, ns := range []string{"", "bob"} {
		var buf bytes.Buffer
		if _, err := e.Export(t.Context(), &buf, engine.ExportOptions{Namespace: ns}); err != nil {
			t.Fatal(err)
		}
		s.Export[ns] = buf.String()
		for _, q := range []string{"sourdough starter", "kubernetes autoscaling", "火锅"} {
			res, err := e.Recall(t.Context(), core.Query{Text: q, Namespace: ns, TopK: 5, NoTime: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				line := fmt.Sprintf("%s %s %s", h.ID, h.Prev, h.Next)
				if scores {
					line += fmt.Sprintf(" %.6f", h.Score)
				}
				s.Recalls[ns+"/"+q] = append(s.Recalls[ns+"/"+q], line)
			}
		}
		sessions, err := e.Sessions(t.Context(), ns)
		if err != nil {
			t.Fatal(err)
		}
		for _, si := range sessions {
			file, data, err := e.Transcript(t.Context(), ns, si.Session)
			if err != nil {
				continue // sealed: its transcript is in the week's archive
			}
			s.Transcripts[file] = string(data)
		}
	}
	weeks, err := e.Weeks(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i := range weeks {
		weeks[i].SealedAt = time.Time{}
	}
	s.Weeks = weeks
	st, err := e.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s.Stats = [4]int{st.Chunks, st.Messages, st.Sessions, len(st.Namespaces)}
	return s
}

// TestRoundTrip migrates a home into PostgreSQL and back into a new home:
// what a user sees (exports, recalls with their ids and anchors, sealed
// weeks, transcripts, counts) is the same at every step.
func TestRoundTrip(t *testing.T) {
	a := homeConfig(t.TempDir())
	e := openEngine(t, a)
	base := time.Date(2026, 4, 13, 9, 0, 0, 0, time.UTC)
	var msgs []core.Message
	for i, topic := range []string{"kubernetes autoscaling", "sourdough starter", "周末吃火锅", "tax filing deadline"} {
		for _, ns := range []string{"", "bob"} {
			t0 := base.Add(time.Duration(i) * 24 * time.Hour)
			msgs = append(msgs,
				core.Message{Namespace: ns, Session: fmt.Sprintf("s%d", i%2), Time: t0, Role: core.RoleUser, Text: "a question about " + topic},
				core.Message{Namespace: ns, Session: fmt.Sprintf("s%d", i%2), Time: t0.Add(time.Minute), Role: core.RoleAssistant, Text: "an answer about " + topic})
		}
	}
	// A second week, which stays open.
	msgs = append(msgs, core.Message{Session: "late", Time: base.AddDate(0, 0, 14), Role: core.RoleUser, Text: "sourdough starter again"})
	if _, err := e.Ingest(t.Context(), msgs); err != nil {
		t.Fatal(err)
	}
	if sealed, err := e.Seal(t.Context(), engine.SealOptions{Week: "2026-W16", Now: base.AddDate(0, 0, 30)}); err != nil || len(sealed) != 2 {
		t.Fatalf("Seal = %+v, %v; want the week sealed in both namespaces", sealed, err)
	}
	e.Close()
	want, wantNoScores := snap(t, a, true), snap(t, a, false)

	pg := homeConfig(t.TempDir())
	pg.Storage.Backend = core.BackendPostgres
	pg.Storage.Postgres.DSN = pgtest.DSN(t)
	res, err := Run(t.Context(), a, pg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks != want.Stats[0] || res.Messages != want.Stats[1] || res.Archives != 2 {
		t.Errorf("Run = %+v; want %d chunks, %d messages, 2 archives", res, want.Stats[0], want.Stats[1])
	}
	if diff := cmp.Diff(wantNoScores, snap(t, pg, false)); diff != "" {
		t.Fatalf("home → postgres (-home +postgres):\n%s", diff)
	}
	b := homeConfig(t.TempDir())
	if _, err := Run(t.Context(), pg, b, Options{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, snap(t, b, true)); diff != "" {
		t.Fatalf("home → postgres → home (-first +last):\n%s", diff)
	}
	// The last home's transcript files are the first one's, byte for byte.
	if diff := cmp.Diff(files(t, a.Storage.Home), files(t, b.Storage.Home)); diff != "" {
		t.Errorf("sessions folders differ (-first +last):\n%s", diff)
	}
}

// TestRefusesNonEmptyDestination: a migration never mixes two memories.
func TestRefusesNonEmptyDestination(t *testing.T) {
	a, b := homeConfig(t.TempDir()), homeConfig(t.TempDir())
	for i, cfg := range []core.Config{a, b} {
		e := openEngine(t, cfg)
		if _, err := e.Ingest(t.Context(), []core.Message{{Session: "s", Time: time.Now(), Role: core.RoleUser, Text: fmt.Sprint("memory ", i)}}); err != nil {
			t.Fatal(err)
		}
		e.Close()
	}
	before := snap(t, b, true)
	if _, err := Run(t.Context(), a, b, Options{}); err == nil {
		t.Fatal("a migration into a memory that holds messages succeeded")
	}
	if diff := cmp.Diff(before, snap(t, b, true)); diff != "" {
		t.Errorf("the refused destination changed:\n%s", diff)
	}
}

// files reads every file under home/sessions.
func files(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(home, "sessions")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			out[rel] = string(data)
		}
		return nil
	})
	return out
}
