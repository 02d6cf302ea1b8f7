package contract

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/pgtest"
	"github.com/huimemory/huimemory/plugins/host"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backend is one storage backend of the suite.
type backend struct {
	name string
	// config returns the configuration of a fresh, empty memory; two
	// calls in one test name different memories, and engines opened
	// with one configuration share it.
	config func(t *testing.T) core.Config
}

var backends = []backend{
	{core.BackendEmbedded, func(t *testing.T) core.Config {
		var cfg core.Config
		cfg.Storage.Home = t.TempDir()
		return cfg
	}},
	{core.BackendPostgres, func(t *testing.T) core.Config {
		var cfg core.Config
		cfg.Storage.Home = t.TempDir()
		cfg.Storage.Backend = core.BackendPostgres
		cfg.Storage.Postgres.DSN = pgtest.DSN(t)
		return cfg
	}},
}

// each runs test once per backend.
func each(t *testing.T, test func(t *testing.T, cfg func(t *testing.T) core.Config)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.config) })
	}
}

// open opens an engine on cfg with the built-in parts in process.
func open(t *testing.T, cfg core.Config) *engine.Engine {
	t.Helper()
	cfg.Plugins.Subprocess = false
	e, err := host.Open(t.Context(), cfg, engine.Options{Access: engine.AccessShared, LockWait: 10 * time.Second}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

var base = time.Date(2026, 4, 13, 9, 0, 0, 0, time.UTC)

// chat returns n user/assistant exchanges of session s, a minute apart.
func chat(ns, s string, n int, topic func(i int) string) []core.Message {
	var msgs []core.Message
	for i := range n {
		t := base.Add(time.Duration(i) * time.Minute)
		msgs = append(msgs,
			core.Message{Namespace: ns, Session: s, Time: t, Role: core.RoleUser, Text: fmt.Sprintf("question %d about %s", i, topic(i))},
			core.Message{Namespace: ns, Session: s, Time: t.Add(10 * time.Second), Role: core.RoleAssistant, Text: fmt.Sprintf("answer %d on %s", i, topic(i))})
	}
	return msgs
}

func TestIngestRecallAnchors(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, config(t))
		topics := []string{"kubernetes autoscaling", "sourdough starter", "tax filing deadline", "marathon training"}
		msgs := chat("", "s1", 4, func(i int) string { return topics[i] })
		if _, err := e.Ingest(t.Context(), msgs); err != nil {
			t.Fatal(err)
		}
		res, err := e.Recall(t.Context(), core.Query{Text: "sourdough starter", TopK: 3, NoTime: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].Messages[0].Text != msgs[2].Text {
			t.Fatalf("recall of sourdough = %+v", res.Hits)
		}
		hit := res.Hits[0]
		if hit.Prev == "" || hit.Next == "" {
			t.Fatalf("the second turn's anchor %v lacks prev or next", hit.Anchor)
		}
		prev, err := e.RecallByID(t.Context(), "", hit.Prev, 0)
		if err != nil || len(prev) != 1 || prev[0].Next != hit.ID || prev[0].Messages[0].Text != msgs[0].Text {
			t.Fatalf("RecallByID(prev) = %+v, %v", prev, err)
		}
	})
}
