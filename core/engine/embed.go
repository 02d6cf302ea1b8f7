package engine

import (
	"context"
	"fmt"

	"github.com/huimemory/huimemory/core/vector"
)

// embed embeds texts in batches and checks every vector.
func (e *Engine) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	bs := e.cfg.Embedding.BatchSize
	for i := 0; i < len(texts); i += bs {
		batch := texts[i:min(i+bs, len(texts))]
		vecs, err := e.emb.Embed(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("embedder %s: %w", e.info.Name, err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", e.info.Name, len(vecs), len(batch))
		}
		for j, v := range vecs {
			if len(v) != e.info.Dim {
				return nil, fmt.Errorf("embedder %s returned a vector of dimension %d, want %d", e.info.Name, len(v), e.info.Dim)
			}
			if !vector.Valid(v) {
				return nil, fmt.Errorf("embedder %s returned NaN or infinity for text %d", e.info.Name, i+j+1)
			}
			vector.Normalize(v)
		}
		out = append(out, vecs...)
	}
	return out, nil
}
