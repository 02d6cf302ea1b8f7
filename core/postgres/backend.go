package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/huimemory/huimemory/core/store"
)

// Backend is what the engine runs on in a database: a store on
// the database's KV, the lexical index, and the notifications that keep
// each server's vector cache fresh. cmd and plugins/host turn it into an
// engine.Backend.
type Backend struct {
	DB    *DB
	Store *store.Store
	Index *EngineIndex
	// Vectors is pgvector's HNSW search when storage.postgres.hnsw is
	// set, else nil (the engine then searches its exact cache).
	Vectors *HNSW
}

// OpenBackend connects to the database of cfg, applies its migrations
// and opens the store. lockWait bounds how long a write waits for another
// server's. With cfg.HNSW it fails with [ErrNoPgvector] when the database
// has no pgvector extension, and otherwise brings the vectors_hnsw table
// in step with the store (a back-fill when they differ) and has the
// store's transactions keep it so. Close the store and the index (the
// engine does), then the DB.
func OpenBackend(ctx context.Context, cfg Config, lockWait time.Duration) (*Backend, error) {
	db, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	kv := db.KV()
	var vectors *HNSW
	if cfg.HNSW {
		hs, err := db.enableHNSW(ctx)
		if err != nil {
			db.Close()
			return nil, err
		}
		kv.hnsw, vectors = hs, &HNSW{db: db, st: hs}
	}
	st, err := store.OpenKV(kv, "postgres database "+db.Name(), store.Options{LockWait: lockWait})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Backend{DB: db, Store: st, Index: db.EngineIndex(), Vectors: vectors}, nil
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
