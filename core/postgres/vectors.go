package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// VectorChannel is the LISTEN/NOTIFY channel on which the engine's store
// announces its new generations and vector changes (store.VectorChannel,
// sent by store transactions on the database's [KV]).
const VectorChannel = store.VectorChannel

// Invalidator is what a vector watcher tells of changes: a
// [vector.Index] satisfies it.
type Invalidator interface {
	// Invalidate drops what is cached of namespace ns around time t (the
	// segment that holds it).
	Invalidate(ns string, t time.Time)
	// Reset drops everything cached.
	Reset()
}

var _ Invalidator = (*vector.Index)(nil)

// Watcher listens for vector changes on one dedicated connection and
// passes them to an [Invalidator].
type Watcher struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error
	heard  int
}

// WatchVectors starts listening on [VectorChannel] and returns once the
// listener is in place: every change committed after it returns reaches
// inv. When the connection drops, the watcher resets inv (it may have
// missed changes) and listens again. Stop it with [Watcher.Close].
func (db *DB) WatchVectors(ctx context.Context, inv Invalidator) (*Watcher, error) {
	conn, err := db.listen(ctx)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{cancel: cancel, done: make(chan struct{})}
	go w.run(wctx, db, conn, inv)
	return w, nil
}

func (db *DB) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig)
	if err != nil {
		return nil, fmt.Errorf("connecting the vector listener: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+VectorChannel); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("listening on %s: %w", VectorChannel, err)
	}
	return conn, nil
}

func (w *Watcher) run(ctx context.Context, db *DB, conn *pgx.Conn, inv Invalidator) {
	defer close(w.done)
	backoff := 50 * time.Millisecond
	for {
		n, err := conn.WaitForNotification(ctx)
		if ctx.Err() != nil {
			conn.Close(context.Background())
			return
		}
		if err == nil {
			w.apply(n.Payload, inv)
			backoff = 50 * time.Millisecond
			continue
		}
		// The connection is gone: changes may have been missed.
		conn.Close(context.Background())
		w.setErr(err)
		inv.Reset()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			if conn, err = db.listen(ctx); err == nil {
				// Anything committed while we were away.
				inv.Reset()
				break
			}
			w.setErr(err)
		}
	}
}

// GenListener is an [Invalidator] that wants to know the store
// generation each notification brings it up to (store.Notice).
type GenListener interface {
	Heard(gen uint64)
}

// apply passes one notification to inv. Payloads are a store.Notice;
// anything else ("reset", or what it cannot read) resets inv.
func (w *Watcher) apply(payload string, inv Invalidator) {
	var n store.Notice
	if strings.HasPrefix(strings.TrimSpace(payload), "{") && json.Unmarshal([]byte(payload), &n) == nil {
		for _, c := range n.Changes {
			if c.NS == "*" {
				inv.Reset()
				break
			}
			inv.Invalidate(c.NS, c.T)
		}
		if g, ok := inv.(GenListener); ok {
			g.Heard(n.Gen)
		}
	} else {
		inv.Reset()
	}
	w.mu.Lock()
	w.heard++
	w.mu.Unlock()
}

func (w *Watcher) setErr(err error) {
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
}

// Heard returns how many notifications the watcher has applied, and the
// last connection error it met (nil if none).
func (w *Watcher) Heard() (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.heard, w.err
}

// Close stops the watcher and waits for it.
func (w *Watcher) Close() {
	w.cancel()
	<-w.done
}
