package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// open does the work of Open; on error, Close releases what it got.
func (e *Engine) open(ctx context.Context, cfg core.Config, opts Options) error {
	if err := e.setParts(opts); err != nil {
		return err
	}
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	home, err := filepath.Abs(cfg.Storage.Home)
	if err != nil {
		return fmt.Errorf("home %q: %w", cfg.Storage.Home, err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("creating home: %w", err)
	}
	e.cfg, e.home = cfg, home
	lockWait := opts.LockWait
	if lockWait == 0 {
		lockWait = time.Second
	}
	if opts.Backend != nil {
		return e.openBackend(ctx, opts, lockWait)
	}
	if opts.Access == AccessShared {
		return e.openShared(ctx, opts, lockWait)
	}
	if e.st, err = store.Open(filepath.Join(e.home, store.FileName), lockWait); err != nil {
		return err
	}
	if err := e.checkEmbedder(ctx, opts.AllowEmbedderChange); err != nil {
		return err
	}
	e.vx = e.newVectors()
	if err := e.write.openIndex(ctx); err != nil {
		return err
	}
	return e.finishCrashed(ctx)
}

// finishCrashed does what a crash left undone, at open: it writes the
// transcripts left unwritten, and finishes a forget interrupted after its
// messages left the store (re-seal its weeks, drop the caches, compact
// the store).
func (e *Engine) finishCrashed(ctx context.Context) error {
	if err := e.write.writeTranscripts(ctx); err != nil {
		return err
	}
	if _, _, err := e.maint.finishForget(ctx); err != nil {
		return fmt.Errorf("finishing an interrupted forget: %w", err)
	}
	return nil
}

// openShared opens the home with [AccessShared].
func (e *Engine) openShared(ctx context.Context, opts Options, lockWait time.Duration) error {
	e.acc = access{shared: true, lockWait: lockWait, onWait: opts.OnLockWait}
	st, err := store.OpenWith(filepath.Join(e.home, store.FileName), store.Options{LockWait: lockWait, Shared: true, Owner: opts.Owner})
	if err != nil {
		return err
	}
	e.st = st
	e.st.SetUpgrade(e.upgrade)
	if err := e.checkEmbedder(ctx, opts.AllowEmbedderChange); err != nil {
		return err
	}
	e.vx = e.newVectors()
	why := e.needsRepair()
	if why == "" {
		e.startYield()
		return nil
	}
	err = e.repairShared(ctx)
	switch {
	case err == nil:
	case store.IsReadOnly(err):
		e.acc.readOnly = true
		e.logf("huimem: %s cannot be written (%s); reading it as it is", e.home, why)
		if err := e.readOnlyIndex(ctx); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: %w", why, err)
	}
	e.startYield()
	return nil
}

// repairShared does at open, under the writer lock, what Open does for an
// exclusive engine: catch the index up (or rebuild it), write the
// transcripts a crash left, finish an interrupted forget.
func (e *Engine) repairShared(ctx context.Context) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if err := e.upgrade(); err != nil {
		return err
	}
	if e.ix != nil {
		e.ix.Close()
		e.ix = nil
	}
	if err := e.write.openIndex(ctx); err != nil {
		return err
	}
	// The upgrade may have found the old index unusable (another
	// version, say) and marked it stale; openIndex has repaired it.
	e.ixMu.Lock()
	e.stale = nil
	e.ixMu.Unlock()
	return e.finishCrashed(ctx)
}

// openBackend opens the engine on opts.Backend.
func (e *Engine) openBackend(ctx context.Context, opts Options, lockWait time.Duration) error {
	b := opts.Backend
	if b.Store == nil || b.Index == nil {
		return fmt.Errorf("engine: Options.Backend needs a Store and an Index")
	}
	e.backend = b
	e.acc = access{external: true, lockWait: lockWait, onWait: opts.OnLockWait}
	e.st, e.ix = b.Store, b.Index
	// A write section whose writer lock could not be had writes nothing.
	e.st.SetUpgrade(func() error { return e.acc.lockErr })
	if err := e.checkEmbedder(ctx, opts.AllowEmbedderChange); err != nil {
		return err
	}
	e.vx = e.newVectors()
	e.acc.heard.Store(e.storeGen()) // the caches are empty
	if b.Warm != nil && e.longLived {
		go b.Warm(context.Background()) // returns when the index closes
	}
	if b.Watch != nil {
		stop, err := b.Watch(context.Background(), cacheInvalidator{e.shared})
		if err != nil {
			return fmt.Errorf("watching %s for changes: %w", b.Name, err)
		}
		e.acc.unwatch = stop
	}
	if !e.backendBehind(ctx) {
		return nil // readers do not wait for a writer
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if err := e.acc.lockErr; err != nil {
		if errors.Is(err, core.ErrLocked) {
			// The writer that holds the lock catches up when its write
			// ends; this engine reads meanwhile.
			e.logf("huimem: %s is behind its store, and another server is writing; reading meanwhile", b.Name)
			return nil
		}
		return err
	}
	if err := e.catchUp(ctx); err != nil {
		return err
	}
	return e.finishCrashed(ctx)
}

// catchUp brings the backend's index in step with its store: it indexes
// what the outbox holds (a writer on another server may have died between
// its commit and its index update) and rebuilds the index when it has
// diverged. The caller holds the write lock.
func (e *Engine) catchUp(ctx context.Context) error {
	var gen, cleared uint64
	var chunks, outbox int
	e.st.View(func(tx *store.Tx) error {
		gen, cleared = tx.Gen(), tx.OutboxCleared()
		chunks, _ = tx.Counts()
		outbox = tx.OutboxLen()
		return nil
	})
	igen, err := e.ix.Gen()
	if err != nil {
		return fmt.Errorf("reading the index's generation: %w", err)
	}
	why, err := e.staleWhy(ctx)
	if err != nil {
		return err
	}
	switch {
	case why != "":
		return e.write.repair(ctx, why)
	case igen > gen:
		return e.write.repair(ctx, fmt.Sprintf("it is ahead of the store (generation %d > %d)", igen, gen))
	case igen < gen && igen < cleared:
		return e.write.repair(ctx, fmt.Sprintf("it is behind the store (generation %d < %d) by more than the outbox holds", igen, gen))
	case igen < gen || outbox > 0:
		if err := e.write.applyOutbox(ctx); err != nil {
			return e.write.repair(ctx, fmt.Sprintf("catching up failed (%v)", err))
		}
	}
	n, err := e.ix.Count()
	if err != nil {
		return fmt.Errorf("counting the index's documents: %w", err)
	}
	if int(n) != chunks {
		return e.write.repair(ctx, fmt.Sprintf("it holds %d chunks but the store holds %d", n, chunks))
	}
	return nil
}
