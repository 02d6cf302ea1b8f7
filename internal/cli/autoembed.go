package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/models"
	"github.com/huimemory/huimemory/plugins/embedder/uselite"
	"github.com/huimemory/huimemory/plugins/host"
)

// openAutoFallback opens a home whose vectors come from another embedder
// than the automatic choice, hash (cause is the engine's
// core.ErrEmbedderChanged). A home whose vectors come from use-lite
// (which the automatic choice once picked when its weights were
// installed) opens with use-lite while its weights are installed, so
// that no command fails because the default changed; one line on stderr
// says how to keep it so. Otherwise the error stands, and says how to
// get the weights back.
func (a *App) openAutoFallback(ctx context.Context, cfg core.Config, opts engine.Options, cause error) (*engine.Engine, core.Config, error) {
	if !strings.Contains(cause.Error(), "come from "+uselite.Name) {
		return nil, cfg, cause
	}
	if !models.UseLite.InstalledIn(a.embedder.ModelDir) {
		return nil, cfg, fmt.Errorf("%w; or, to keep %s, install its weights again: `huimem models pull %s`", cause, uselite.Name, uselite.Name)
	}
	fb := cfg
	fb.Embedding.Name, fb.Embedding.Dim, fb.Embedding.ModelDir = uselite.Name, 0, a.embedder.ModelDir
	fb.SetDefaults()
	e, err := a.openEngine(ctx, fb, opts)
	if err != nil {
		return nil, cfg, cause
	}
	a.embedder = host.EmbedderChoice{Name: uselite.Name, Auto: true, ModelDir: a.embedder.ModelDir,
		Reason: "this home's vectors come from " + uselite.Name}
	a.logf("huimem: this home's vectors come from %s; set embedding.name: %s to keep it, or run `huimem reindex` to re-embed them with hash", uselite.Name, uselite.Name)
	return e, fb, nil
}
