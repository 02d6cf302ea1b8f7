package contract

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/postgres"
	"github.com/huimemory/huimemory/internal/pgtest"
	"github.com/huimemory/huimemory/plugins/host"
)

// TestPostgresRebuildsOlderAnalyzerRows: a database whose lexical rows an
// older build made (no analyzer version recorded) is rebuilt when an
// engine opens it, as an embedded home's index is when index.Version
// changes; recall then finds Chinese and traditional text by this build's
// terms.
func TestPostgresRebuildsOlderAnalyzerRows(t *testing.T) {
	cfg := utc(core.Config{})
	cfg.Storage.Home = t.TempDir()
	cfg.Storage.Backend = core.BackendPostgres
	cfg.Storage.Postgres.DSN = pgtest.DSN(t)
	e := open(t, cfg)
	ingest(t, e, []core.Message{
		{Session: "s1", Time: base, Role: core.RoleUser, Text: "我在绿禾公园看到了一朵很美的樱花"},
		{Session: "s1", Time: base.Add(time.Minute), Role: core.RoleAssistant, Text: "听起来很美"},
	})
	e.Close()

	db, err := postgres.Open(t.Context(), postgres.Config{DSN: cfg.Storage.Postgres.DSN})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Pool().Exec(t.Context(), `DELETE FROM meta WHERE ns = '' AND key = 'lex_version'`); err != nil {
		t.Fatal(err)
	}
	if why, err := db.EngineIndex().Stale(t.Context()); err != nil || why == "" {
		t.Fatalf("Stale after removing the version: %q, %v", why, err)
	}

	var mu sync.Mutex
	var logs []string
	cfg.Plugins.Subprocess = false
	e2, err := host.Open(t.Context(), cfg, engine.Options{Access: engine.AccessShared, LockWait: 10 * time.Second,
		Logf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, format)
		}}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	res := recall(t, e2, core.Query{Text: "我在綠禾公園看到了什麼", TopK: 3, NoTime: true})
	if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Content(), "樱花") {
		t.Errorf("recall in traditional script after the rebuild: %+v", res.Hits)
	}
	if why, err := db.EngineIndex().Stale(t.Context()); err != nil || why != "" {
		t.Errorf("Stale after the engine opened: %q, %v", why, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(l, "rebuilding it") }) {
		t.Errorf("the engine did not say it rebuilt the index: %q", logs)
	}
}
