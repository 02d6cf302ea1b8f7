package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/plugins/embedder/uselite"
	"github.com/huimemory/huimemory/plugins/host"
)

// openAutoFallback opens a home whose vectors come from another embedder
// than the one the automatic choice picked (cause is the engine's
// core.ErrEmbedderChanged).
//
// When use-lite was picked because its weights are installed, the home's
// vectors most likely come from hash, chosen before the weights were: the
// home opens with hash, as before, and one line on stderr says that
// `huimem reindex` switches it to use-lite. Commands never fail because a
// model was installed. When hash was picked because the weights are
// missing, the error stands (recall with hash against use-lite's vectors
// would be noise), and says how to get the weights back.
func (a *app) openAutoFallback(ctx context.Context, cfg core.Config, opts engine.Options, cause error) (*engine.Engine, core.Config, error) {
	chosen := a.embedder
	if chosen.Name != uselite.Name {
		if strings.Contains(cause.Error(), "come from "+uselite.Name) {
			return nil, cfg, fmt.Errorf("%w; or, to keep %s, install its weights again: `huimem models pull %s`", cause, uselite.Name, uselite.Name)
		}
		return nil, cfg, cause
	}
	fb := cfg
	fb.Embedding.Name, fb.Embedding.Dim = "hash", 0
	fb.SetDefaults()
	e, err := a.openEngine(ctx, fb, opts)
	if err != nil {
		// The vectors come from neither: the engine's message, which says
		// to run `huimem reindex`, is the one to give.
		return nil, cfg, cause
	}
	a.embedder = host.EmbedderChoice{Name: fb.Embedding.Name, Auto: true, ModelDir: chosen.ModelDir,
		Reason: fmt.Sprintf("this home's vectors come from hash; `huimem reindex` re-embeds them with %s, installed at %s", uselite.Name, chosen.ModelDir)}
	a.logf("huimem: %s is installed, but this home's vectors come from hash; run `huimem reindex` to re-embed them with %s (set embedding.name: hash to keep hash)", uselite.Name, uselite.Name)
	return e, fb, nil
}
