package engine

// An engine on a backend: the store and the full-text index
// live outside the home, in storage that several processes on several
// machines share (the PostgreSQL backend, core/postgres). The engine runs
// the same code on it as on a home; what differs is gathered here:
//
//   - Writes take the backend's writer lock (store.WriterLocker) for the
//     whole write section, as a shared home takes its lock file, so ids,
//     anchors and the outbox see one writer at a time across servers.
//   - The index is the backend's, transactional and shared: nothing is
//     reopened. A write that a crash interrupted after its store commit
//     leaves its chunks in the outbox; the next writer, on any server,
//     indexes them first (catchUp).
//   - Per-process caches of what other servers change are kept fresh by
//     the backend's notifications (Backend.Watch).

import (
	"context"
	"time"

	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// Backend is storage outside the home's files, handed to [Open] in
// [Options.Backend].
type Backend struct {
	// Name names the backend in messages and stats, such as "postgres".
	Name string
	// Store holds the records (see store.OpenKV). The engine closes it.
	Store *store.Store
	// Index is the full-text index over Store's chunks. The engine
	// closes it.
	Index BackendIndex
	// Watch, when set, starts delivering other processes' changes of
	// vectors to inv until the returned stop is called.
	Watch func(ctx context.Context, inv Invalidator) (stop func(), err error)
	// Vectors, when set, is the backend's own vector search (pgvector's
	// HNSW index on PostgreSQL), used by recall instead of the engine's
	// exact scan of its per-process cache.
	Vectors VectorSearcher
	// Warm, when set, loads what the backend keeps in each process's
	// memory to answer reads (the PostgreSQL backend's copy of its
	// lexical index) and waits until it is loaded or Index is closed. A
	// long-lived engine starts it when it opens; [Engine.Warm] waits for
	// it.
	Warm func(ctx context.Context) error
}

// VectorSearcher is a backend's vector search. Search returns up to k
// chunks of namespace ns with times in [since, before) (a zero time
// leaves that side open) whose vectors are closest to q, best first, as
// (*vector.Index).Search does: Score is the cosine similarity and Time
// the chunk's time in Unix nanoseconds. allow, when set, must return true
// for a chunk to count. It may be approximate, and must be safe for
// concurrent use.
type VectorSearcher interface {
	Search(ctx context.Context, ns string, q []float32, since, before time.Time, k int, allow func(id string) bool) ([]vector.Match, error)
}

// BackendIndex is a [Lexical] index that can be emptied for a rebuild.
type BackendIndex interface {
	Lexical
	// Reset removes every document and sets the generation to 0.
	Reset() error
}

// StaleIndex is a [BackendIndex] that can tell its documents were made
// by another analyzer (an older build's): Stale returns why, or "". The
// engine then rebuilds it, as the embedded index rebuilds itself when
// [index.Version] changes.
type StaleIndex interface {
	Stale(ctx context.Context) (string, error)
}

// staleWhy says why the backend's index must be rebuilt, or "".
func (s *shared) staleWhy(ctx context.Context) (string, error) {
	if si, ok := s.backend.Index.(StaleIndex); ok {
		return si.Stale(ctx)
	}
	return "", nil
}

// Invalidator is told which cached vectors another process changed:
// those of namespace ns in the ISO week holding t, or all of them.
type Invalidator interface {
	Invalidate(ns string, t time.Time)
	Reset()
}

// backendBehind reports whether the backend has work left by a writer
// that died: an index behind the store, transcripts queued, a forget
// pending.
func (s *shared) backendBehind(ctx context.Context) bool {
	var gen uint64
	var outbox, dirty int
	var forget bool
	s.st.View(func(tx *store.Tx) error {
		gen, outbox = tx.Gen(), tx.OutboxLen()
		list, _ := tx.DirtySessions()
		dirty = len(list)
		forget = tx.Meta(forgetPendingKey) != nil
		return nil
	})
	igen, err := s.ix.Gen()
	why, err2 := s.staleWhy(ctx)
	return err != nil || err2 != nil || why != "" || igen != gen || outbox > 0 || dirty > 0 || forget
}

// storeGen reads the store's generation (0 if it cannot be read).
func (s *shared) storeGen() uint64 {
	var g uint64
	s.st.View(func(tx *store.Tx) error { g = tx.Gen(); return nil })
	return g
}

// peerWait bounds how long a read waits for other servers' notifications
// before it drops the vector cache instead.
const peerWait = 200 * time.Millisecond

// beforeRead runs before a recall. It checks that the stored vectors
// still come from this engine's embedder, and on a backend it gives the
// recall what other servers committed before it began (read-your-writes
// across servers): when the store's generation is ahead of the
// notifications heard, it waits for them (they come within milliseconds
// of the commit, in order), and after peerWait drops the vector cache.
// Without a watcher it drops the cache whenever the generation has moved.
func (s *shared) beforeRead(ctx context.Context) error {
	var gen uint64
	err := s.st.View(func(tx *store.Tx) error {
		gen = tx.Gen()
		return s.vectorsStillOurs(tx)
	})
	if err != nil || s.backend == nil || s.acc.heard.Load() >= gen {
		return err
	}
	if s.acc.unwatch != nil {
		deadline := time.Now().Add(peerWait)
		for pause := 100 * time.Microsecond; time.Now().Before(deadline) && ctx.Err() == nil; pause = min(2*pause, 5*time.Millisecond) {
			time.Sleep(pause)
			if s.acc.heard.Load() >= gen {
				return nil
			}
		}
		s.logf("huimem: no word from %s of generation %d after %s; dropping the vector cache", s.backend.Name, gen, peerWait)
	}
	cacheInvalidator{s}.Reset()
	return nil
}
