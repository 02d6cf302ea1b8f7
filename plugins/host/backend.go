package host

import (
	"context"
	"errors"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/postgres"
)

// openBackend opens the storage backend cfg.Storage names into
// opts.Backend when it is not the embedded home (and opts has none), and
// chains closing it onto opts.OnClose.
func openBackend(ctx context.Context, cfg core.Config, opts *engine.Options) error {
	if cfg.Storage.Backend != core.BackendPostgres || opts.Backend != nil {
		return nil
	}
	b, err := postgres.OpenBackend(ctx, cfg.Storage.Postgres, cfg.Storage.LockWait)
	if err != nil {
		return err
	}
	opts.Backend = PostgresBackend(b)
	opts.OnClose = chainClose(func() error { b.DB.Close(); return nil }, opts.OnClose)
	return nil
}

// PostgresBackend makes an engine backend of a PostgreSQL one.
// With storage.postgres.hnsw set, recall searches pgvector's HNSW index
// instead of each server's exact vector cache.
func PostgresBackend(b *postgres.Backend) *engine.Backend {
	eb := &engine.Backend{
		Name:  core.BackendPostgres,
		Store: b.Store,
		Index: b.Index,
		Watch: func(ctx context.Context, inv engine.Invalidator) (func(), error) { return b.Watch(ctx, inv) },
		Warm:  b.Index.Warm,
	}
	if b.Vectors != nil { // not a typed nil in the interface
		eb.Vectors = b.Vectors
	}
	return eb
}

// errJoinClose calls onClose, if set, and joins its error to err.
func errJoinClose(err error, onClose func() error) error {
	if onClose != nil {
		return errors.Join(err, onClose())
	}
	return err
}

var (
	_ engine.BackendIndex   = (*postgres.EngineIndex)(nil)
	_ engine.VectorSearcher = (*postgres.HNSW)(nil)
)
