package uselite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/huimemory/huimemory/core"
)

// Lazy is the model as an embedder that reads its weights only when it
// first embeds a text. A one-shot command that embeds nothing
// (get, stats, forget by id, export), or one whose home turns out to hold
// another embedder's vectors, then does not pay for them: with the
// weights read at every start, such a command took 0.3 s and 82 MiB
// instead of 45 ms and 27 MiB (docs/models.md). Info needs no weights. It
// is safe for concurrent use.
type Lazy struct {
	dir    string
	once   sync.Once
	loaded atomic.Bool
	m      *Model
	err    error
}

var _ core.Embedder = (*Lazy)(nil)

// Open checks that dir holds the model's files (model.json, vocab.json)
// and returns the model, to be loaded by its first Embed. A missing file
// is an error here, as with [Load] (errors.Is(err, fs.ErrNotExist));
// weights that are there but damaged are reported by the first Embed.
func Open(dir string) (*Lazy, error) {
	for _, name := range []string{modelFile, vocabFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("uselite: reading %s in %s: %w", name, dir, err)
		}
	}
	return &Lazy{dir: dir}, nil
}

// Info reports Name, ModelName and Dim, without loading the weights.
func (l *Lazy) Info(context.Context) (core.EmbedderInfo, error) {
	return core.EmbedderInfo{Name: Name, Model: ModelName, Dim: Dim}, nil
}

// Embed loads the model at its first call, then embeds as [Model.Embed].
// A model that failed to load fails every call with the same error.
func (l *Lazy) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m, err := l.Model()
	if err != nil {
		return nil, err
	}
	return m.Embed(ctx, texts)
}

// Model loads the model if it has not been loaded yet, and returns it.
func (l *Lazy) Model() (*Model, error) {
	l.once.Do(func() {
		l.m, l.err = Load(l.dir)
		l.loaded.Store(true)
	})
	return l.m, l.err
}

// Loaded reports whether the weights have been read (by Model or Embed).
func (l *Lazy) Loaded() bool { return l.loaded.Load() }
