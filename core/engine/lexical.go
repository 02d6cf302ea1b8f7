package engine

import (
	"context"

	"github.com/huimemory/huimemory/core/index"
)

// Lexical is the engine's full-text (BM25) index of chunks: core/index's
// bleve index in a home, or one the backend hands over in
// [Options.Backend], such as the PostgreSQL backend's. Methods mean what
// they mean on [index.Index].
type Lexical interface {
	Apply(docs []index.Doc, deletes []string, gen uint64) error
	Search(ctx context.Context, s index.Search) ([]index.Match, error)
	Matching(ctx context.Context, s index.Search) ([]string, error)
	Analyze(text string) []string
	IDF(ctx context.Context, terms []string) ([]float64, uint64, error)
	Presence(ctx context.Context, ids, terms []string) ([][]uint8, error)
	Gen() (uint64, error)
	Count() (uint64, error)
	Close() error
}

var _ Lexical = (*index.Index)(nil)

// freshener is a Lexical that answers reads from a copy in this process's
// memory, which it brings up to date with other processes' writes before
// each read (the PostgreSQL backend's, core/postgres). Fresh brings it up
// to date once and returns a context under which the reads that follow
// skip that step: a recall calls it once for its several reads.
type freshener interface {
	Fresh(ctx context.Context) context.Context
}
