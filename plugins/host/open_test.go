package host

import (
	"errors"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/plugins/embedder/hash"
)

// TestOpen: host.Open builds only the parts the caller left out, runs the
// engine on them (here as plugin processes of the test huimem binary), and
// chains the caller's OnClose after its own, also when opening fails.
func TestOpen(t *testing.T) {
	t.Run("built-ins as plugin processes", func(t *testing.T) {
		cfg := testConfig(t)
		closed := 0
		e, err := Open(t.Context(), cfg, engine.Options{OnClose: func() error { closed++; return nil }},
			Options{Executable: bins.huimem})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Ingest(t.Context(), []core.Message{{Session: "s", Time: testTime, Role: core.RoleUser, Text: "kyoto in may"}}); err != nil {
			t.Fatal(err)
		}
		if got := e.EmbedderInfo(); got.Name != "hash" || got.Dim != cfg.Embedding.Dim {
			t.Errorf("embedder %+v, want the configured hash embedder", got)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if closed != 1 {
			t.Errorf("the caller's OnClose ran %d times, want 1", closed)
		}
	})
	t.Run("parts handed in are used", func(t *testing.T) {
		cfg := testConfig(t, func(c *core.Config) {
			// Would fail to build: the host must not try.
			c.Embedding.PluginSpec = core.PluginSpec{Name: "no-such-embedder"}
		})
		emb, err := hash.New(32)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Open(t.Context(), cfg, engine.Options{Embedder: emb}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if got := e.EmbedderInfo().Dim; got != 32 {
			t.Errorf("embedder dimension %d, want the handed-in embedder's 32", got)
		}
	})
	t.Run("a bad plugin fails Open and calls OnClose", func(t *testing.T) {
		cfg := testConfig(t, func(c *core.Config) { c.Chunker = core.PluginSpec{Name: "no-such-chunker"} })
		closed := 0
		_, err := Open(t.Context(), cfg, engine.Options{OnClose: func() error { closed++; return nil }}, Options{})
		if !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Open = %v, want ErrInvalid naming the chunker", err)
		}
		if closed != 1 {
			t.Errorf("OnClose ran %d times, want 1", closed)
		}
	})
}

var testTime = time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)
