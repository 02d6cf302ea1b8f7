package host

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/models"
)

// fakeUseLite writes files that pass models.Installed's cheap check (the
// stamp names the pinned tarball, every file is there and not empty) into
// dir, without the real weights.
func fakeUseLite(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var stamp strings.Builder
	fmt.Fprintf(&stamp, "tarball %s\n", models.UseLite.SHA256)
	for _, f := range models.UseLite.Files {
		data := []byte("not really " + f)
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&stamp, "%s  %s\n", hex.EncodeToString(sum[:]), f)
	}
	if err := os.WriteFile(filepath.Join(dir, models.StampFile), []byte(stamp.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestChooseEmbedder: an embedder the configuration does not name is
// hash, whether or not use-lite's weights are installed (use-lite is
// English only and ingests far slower); a named one is left alone.
func TestChooseEmbedder(t *testing.T) {
	root := t.TempDir()
	installed := filepath.Join(root, "models")
	fakeUseLite(t, filepath.Join(installed, "use-lite"))
	elsewhere := filepath.Join(root, "elsewhere", "use-lite")
	fakeUseLite(t, elsewhere)
	empty := filepath.Join(root, "empty")

	auto := func(dir string) EmbedderChoice {
		return EmbedderChoice{Name: "hash", Auto: true, Reason: "fast for any language; set embedding.name: use-lite for English semantic vectors", ModelDir: dir}
	}
	tests := []struct {
		name   string
		models string // $HUIMEM_MODELS
		emb    core.EmbeddingConfig
		want   EmbedderChoice
	}{
		{"unnamed, weights installed", installed, core.EmbeddingConfig{}, auto(filepath.Join(installed, "use-lite"))},
		{"unnamed, no weights", empty, core.EmbeddingConfig{}, auto(filepath.Join(empty, "use-lite"))},
		{"auto, weights installed", installed, core.EmbeddingConfig{PluginSpec: core.PluginSpec{Name: "auto"}}, auto(filepath.Join(installed, "use-lite"))},
		{"model_dir names the weights", empty, core.EmbeddingConfig{ModelDir: elsewhere}, auto(elsewhere)},
		{"use-lite's dimension", installed, core.EmbeddingConfig{Dim: 512}, auto(filepath.Join(installed, "use-lite"))},
		{"hash named, weights installed", installed, core.EmbeddingConfig{PluginSpec: core.PluginSpec{Name: "hash"}},
			EmbedderChoice{Name: "hash", Reason: "set in the configuration"}},
		{"use-lite named, no weights", empty, core.EmbeddingConfig{PluginSpec: core.PluginSpec{Name: "use-lite"}},
			EmbedderChoice{Name: "use-lite", Reason: "set in the configuration"}},
		{"use-lite named, weights installed", installed, core.EmbeddingConfig{PluginSpec: core.PluginSpec{Name: "use-lite"}},
			EmbedderChoice{Name: "use-lite", Reason: "set in the configuration"}},
		{"an external plugin", installed, core.EmbeddingConfig{PluginSpec: core.PluginSpec{Command: "/opt/embedder"}},
			EmbedderChoice{Name: "/opt/embedder", Reason: "set in the configuration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HUIMEM_MODELS", tt.models)
			emb := tt.emb
			got := ChooseEmbedder(&emb)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("choice (-want +got):\n%s", diff)
			}
			wantName := tt.want.Name
			if tt.emb.Command != "" {
				wantName = tt.emb.Name
			}
			if emb.Name != wantName {
				t.Errorf("embedding.name is %q after the choice, want %q", emb.Name, wantName)
			}
		})
	}
}

// TestEmbedderChoiceString is the line `huimem stats` and `huimem config`
// show.
func TestEmbedderChoiceString(t *testing.T) {
	for _, tt := range []struct {
		c    EmbedderChoice
		want string
	}{
		{EmbedderChoice{Name: "use-lite", Auto: true, Reason: "weights installed at /m/use-lite"}, "use-lite (auto: weights installed at /m/use-lite)"},
		{EmbedderChoice{Name: "hash", Reason: "set in the configuration"}, "hash (set in the configuration)"},
	} {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.c, got, tt.want)
		}
	}
}

// TestOpenAutoWithoutWeights: host.Open settles embedding.name "auto"
// itself; without weights the home gets hash at its default dimension.
func TestOpenAutoWithoutWeights(t *testing.T) {
	t.Setenv("HUIMEM_MODELS", t.TempDir())
	cfg := testConfig(t, func(c *core.Config) {
		c.Embedding.PluginSpec = core.PluginSpec{Name: EmbedderAuto}
		c.Embedding.Dim = 0
	})
	e, err := Open(t.Context(), cfg, engine.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := e.EmbedderInfo(); got.Name != "hash" || got.Dim != 256 {
		t.Errorf("embedder %+v, want hash with 256 dimensions", got)
	}
}
