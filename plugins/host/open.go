package host

import (
	"context"
	"errors"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
)

// Open opens the engine of cfg's home with the parts cfg names. The parts
// set in opts are used as they are; the ones left nil (the embedder, the
// chunker, the extractors when opts.Extractors is nil) are built here, as
// [New] builds them: built-ins served by hopts.Executable as plugin
// processes when cfg.Plugins.Subprocess is set (in process when it is not,
// or when hopts.Executable is empty), and external plugins as processes. The plugin processes end when
// the engine closes (Open chains their shutdown onto opts.OnClose), or
// when Open fails.
//
// An embedding.name of [EmbedderAuto] is settled by [ChooseEmbedder] first.
//
// This is the one place where a configuration becomes an engine's parts;
// the engine itself builds nothing.
func Open(ctx context.Context, cfg core.Config, opts engine.Options, hopts Options) (*engine.Engine, error) {
	if cfg.Embedding.Name == EmbedderAuto {
		ChooseEmbedder(&cfg.Embedding)
	}
	cfg.SetDefaults()
	if err := openBackend(ctx, cfg, &opts); err != nil {
		return nil, errJoinClose(err, opts.OnClose)
	}
	want := parts{embedder: opts.Embedder == nil, chunker: opts.Chunker == nil, extractors: opts.Extractors == nil}
	if want != (parts{}) {
		h, err := buildParts(ctx, cfg, hopts, want)
		if err != nil {
			return nil, errJoinClose(err, opts.OnClose)
		}
		if want.embedder {
			opts.Embedder = h.Embedder()
		}
		if want.chunker {
			opts.Chunker = h.Chunker()
		}
		if want.extractors {
			opts.Extractors, opts.ExtractorNames = h.Extractors(), h.ExtractorNames()
		}
		opts.OnClose = chainClose(h.Close, opts.OnClose)
	}
	return engine.Open(ctx, cfg, opts)
}

// chainClose returns a function that calls first, then next if set, and
// joins their errors.
func chainClose(first, next func() error) func() error {
	if next == nil {
		return first
	}
	return func() error { return errors.Join(first(), next()) }
}
