package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/huimemory/huimemory/core/store"
)

// Backend is what the engine runs on in a database (issue 17): a store on
// the database's KV, the lexical index, and the notifications that keep
// each server's vector cache fresh. cmd and plugins/host turn it into an
// engine.Backend.
type Backend struct {
	DB    *DB
	Store *store.Store
	Index *EngineIndex
}

// OpenBackend connects to the database of cfg, applies its migrations
// and opens the store. lockWait bounds how long a write waits for another
// server's. Close the store and the index (the engine does), then the DB.
func OpenBackend(ctx context.Context, cfg Config, lockWait time.Duration) (*Backend, error) {
	db, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	st, err := store.OpenKV(db.KV(), "postgres database "+db.Name(), store.Options{LockWait: lockWait})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Backend{DB: db, Store: st, Index: db.EngineIndex()}, nil
}

// Watch delivers the vector changes that any server commits to inv until
// stop is called.
func (b *Backend) Watch(ctx context.Context, inv Invalidator) (stop func(), err error) {
	w, err := b.DB.WatchVectors(ctx, inv)
	if err != nil {
		return nil, fmt.Errorf("watching vector changes: %w", err)
	}
	return w.Close, nil
}
