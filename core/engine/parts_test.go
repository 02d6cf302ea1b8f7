package engine

import (
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/huimemory/huimemory/chunkers"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/embedder/hash"
	"github.com/huimemory/huimemory/plugins/extractor/general"
	"github.com/huimemory/huimemory/plugins/extractor/topic"
)

// withParts fills the parts opts leaves nil from the built-in names in
// cfg, the way host.Open does in process. Package engine's tests cannot
// import plugins/host (it imports engine), so they build the few
// built-ins they use from the implementing packages directly.
func withParts(t testing.TB, cfg core.Config, opts Options) Options {
	t.Helper()
	cfg.SetDefaults()
	if opts.Embedder == nil {
		if cfg.Embedding.Name != hash.Name || cfg.Embedding.External() {
			t.Fatalf("engine tests build only the hash embedder, not %q", cfg.Embedding.Name)
		}
		emb, err := hash.New(cfg.Embedding.Dim)
		if err != nil {
			t.Fatal(err)
		}
		opts.Embedder = emb
	}
	if opts.Chunker == nil {
		switch cfg.Chunker.Name {
		case "turn":
			opts.Chunker = chunkers.Turn{}
		case "message":
			opts.Chunker = chunkers.Message{}
		case "markdown":
			opts.Chunker = chunkers.Markdown{}
		case "window":
			size, _ := strconv.Atoi(cfg.Chunker.Options["size"])
			overlap, _ := strconv.Atoi(cfg.Chunker.Options["overlap"])
			opts.Chunker = chunkers.Window{Size: size, Overlap: overlap}
		default:
			t.Fatalf("engine tests have no chunker %q", cfg.Chunker.Name)
		}
	}
	if opts.Extractors == nil {
		for _, spec := range cfg.Extractors {
			switch spec.Name {
			case general.Name:
				opts.Extractors = append(opts.Extractors, general.New())
			case topic.Name:
				opts.Extractors = append(opts.Extractors, topic.New())
			default:
				t.Fatalf("engine tests have no extractor %q", spec.Name)
			}
			opts.ExtractorNames = append(opts.ExtractorNames, spec.Name)
		}
	}
	return opts
}

// openWith opens cfg's home with the built-in parts cfg names.
func openWith(t testing.TB, cfg core.Config, opts Options) (*Engine, error) {
	t.Helper()
	return Open(t.Context(), cfg, withParts(t, cfg, opts))
}

// TestOpenNeedsItsParts: the engine builds no parts; without an embedder
// or a chunker Open fails with ErrNoParts, names host.Open, touches no
// disk, and still calls OnClose.
func TestOpenNeedsItsParts(t *testing.T) {
	emb, err := hash.New(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		opts    Options
		missing string
	}{
		{"nothing", Options{}, "embedder, chunker"},
		{"no chunker", Options{Embedder: emb}, "chunker"},
		{"no embedder", Options{Chunker: chunkers.Turn{}}, "embedder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir() + "/home"
			closed := 0
			tt.opts.OnClose = func() error { closed++; return nil }
			_, err := Open(t.Context(), core.Config{Storage: core.StorageConfig{Home: home}}, tt.opts)
			if !errors.Is(err, ErrNoParts) {
				t.Fatalf("Open = %v, want ErrNoParts", err)
			}
			want := ErrNoParts.Error() + " (missing: " + tt.missing + ")"
			if err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
			if closed != 1 {
				t.Errorf("OnClose called %d times, want 1", closed)
			}
			if _, err := os.Stat(home); err == nil {
				t.Errorf("a failed Open created the home %s", home)
			}
		})
	}
}

// TestCloseCallsOnCloseOnce: OnClose runs once, after the store closed,
// however often Close is called, and its error is Close's.
func TestCloseCallsOnCloseOnce(t *testing.T) {
	home := t.TempDir()
	cfg := core.Config{Storage: core.StorageConfig{Home: home}}
	calls := 0
	boom := errors.New("plugins would not stop")
	e, err := openWith(t, cfg, Options{OnClose: func() error {
		calls++
		// The home is free again: another engine can open it.
		e2, err := openWith(t, cfg, Options{})
		if err != nil {
			t.Errorf("OnClose ran before the store was released: %v", err)
		} else {
			e2.Close()
		}
		return boom
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); !errors.Is(err, boom) {
		t.Errorf("Close = %v, want OnClose's error", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if calls != 1 {
		t.Errorf("OnClose called %d times, want 1", calls)
	}
}
