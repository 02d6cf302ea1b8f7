package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/core/vector"
)

// Options supply the engine's parts. The engine builds none of them: the
// embedder and the chunker are required, and the extractors are optional.
// To build the parts a configuration names (built-ins in process, or
// plugin processes), open the engine with host.Open from plugins/host,
// which fills the parts left nil here and sets OnClose to end its plugins.
type Options struct {
	// Embedder turns texts into vectors; required.
	Embedder core.Embedder
	// Chunker cuts a session into chunks; required.
	Chunker core.Chunker
	// Extractors run on each new chunk; none is fine.
	Extractors []core.Extractor
	// ExtractorNames label the extractors' output; parallel to Extractors.
	ExtractorNames []string
	// OnClose, when set, is called once when the engine closes (by Close,
	// or by Open when it fails), after the store and index are closed. It
	// releases what was built for the engine, such as plugin processes;
	// its error is returned by Close.
	OnClose func() error
	// Logf, when set, receives progress messages such as index repairs,
	// one call at a time.
	Logf func(format string, args ...any)
	// AllowEmbedderChange lets Open accept an embedder other than the one
	// the stored vectors came from; only Reindex may then be called.
	AllowEmbedderChange bool
	// LockWait is how long Open, and each write, waits for another
	// process (storage.lock_wait); 0 means one second.
	LockWait time.Duration
	// Access says how the engine shares its home with other processes:
	// [AccessExclusive] (the zero value) or [AccessShared]. See access.go.
	Access Access
	// Owner names this process in the home's writer lock, such as
	// "huimem ingest", for the message of a writer that waits in vain.
	Owner string
	// OnLockWait, when set, is told how long each write waited for the
	// writer lock ("writer") and for readers to let go ("exclusive").
	OnLockWait func(kind string, d time.Duration)
	// Backend, when set, holds the store and the index instead of the
	// home's files, shared with other processes (backend.go).
	// Access is then ignored. Transcripts are still written in the home.
	Backend *Backend
	// LongLived is for a process that serves many requests (huimem serve,
	// huimem mcp). It keeps the store pages a search reads resident,
	// where a one-shot command lets them go after each search to stay
	// small (vectorcodes.go): letting pages go costs a system call per
	// search and a page fault for each page read again, about a third of
	// the CPU of a server under load, while the pages are in the page
	// cache either way. With [AccessShared] it also keeps the home open
	// for writing after a write, so that the next write neither reopens
	// the store and the index nor shuts readers out while it does; it
	// lets go as soon as another process waits for the home (access.go).
	LongLived bool
}

// Engine is an open HuiMemory home. See the package documentation.
type Engine struct {
	cfg        core.Config
	home       string
	st         *store.Store
	emb        core.Embedder
	info       core.EmbedderInfo
	chunker    core.Chunker
	extractors []core.Extractor
	extNames   []string
	logf       func(string, ...any)
	vx         *vector.Index
	// backend is Options.Backend (backend.go); nil for a home.
	backend *Backend
	// longLived is Options.LongLived.
	longLived bool
	// searches, in a long-lived engine, holds a slot for each recall
	// running (see recall.go's searchSlot); nil otherwise.
	searches chan struct{}

	// writeMu serialises writes: ingest, index sync, reindex. With
	// [AccessShared] it also takes the home's writer lock (access.go).
	writeMu writeLock
	// acc is the state of shared access (access.go).
	acc access

	// ixMu guards ix and stale; recalls hold it for reading.
	ixMu  sync.RWMutex
	ix    Lexical
	stale error // non-nil when the index is known to be behind the store

	// lastRetry is when failed extractions were last retried; writeMu
	// guards it.
	lastRetry time.Time

	// embedderChanged is set when Open was allowed an embedder change.
	embedderChanged bool
	closed          bool
	// onClose is Options.OnClose.
	onClose func() error
}

// Paths inside a home.
const (
	indexDir    = "index"
	sessionsDir = "sessions"
)

// Open opens (creating if needed) the home named by cfg.Storage.Home,
// with the parts opts hands it. Without an embedder or a chunker it fails
// with [ErrNoParts]; plugins/host's Open builds them from cfg. If Open
// fails, it calls opts.OnClose before returning.
func Open(ctx context.Context, cfg core.Config, opts Options) (*Engine, error) {
	e := &Engine{onClose: opts.OnClose, longLived: opts.LongLived}
	if opts.LongLived {
		e.searches = make(chan struct{}, searchSlots())
	}
	e.writeMu.e = e
	e.logf = func(string, ...any) {}
	if f := opts.Logf; f != nil {
		// Some steps run side by side (the tidy after an ingest), and a
		// Logf need not be safe for that: calls are made one at a time.
		var mu sync.Mutex
		e.logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			f(format, args...)
		}
	}
	if err := e.open(ctx, cfg, opts); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

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
	if err := e.openIndex(ctx); err != nil {
		return err
	}
	return e.finishCrashed(ctx)
}

// finishCrashed does what a crash left undone, at open: it writes the
// transcripts left unwritten, and finishes a forget interrupted after its
// messages left the store (re-seal its weeks, drop the caches, compact
// the store).
func (e *Engine) finishCrashed(ctx context.Context) error {
	if err := e.writeTranscripts(ctx); err != nil {
		return err
	}
	if _, _, err := e.finishForget(ctx); err != nil {
		return fmt.Errorf("finishing an interrupted forget: %w", err)
	}
	return nil
}

// newVectors returns an empty vector index over the store, with the heap
// budget of storage.vector_cache_mb, scanning the vectors'
// codes where the store has them (vectorcodes.go).
func (e *Engine) newVectors() *vector.Index {
	return vector.NewWithOptions(e.info.Dim, e.loadVectors, vector.Options{CacheBytes: e.cfg.Storage.VectorCacheBytes(), Codes: e.vectorCodes()})
}

// ErrNoParts is returned by [Open] when [Options] lack the embedder or the
// chunker.
var ErrNoParts = errors.New("engine: Options.Embedder and Options.Chunker are required; build them from a configuration with host.Open (plugins/host)")

// setParts takes the engine's parts from opts; it builds nothing.
func (e *Engine) setParts(opts Options) error {
	var missing []string
	if opts.Embedder == nil {
		missing = append(missing, "embedder")
	}
	if opts.Chunker == nil {
		missing = append(missing, "chunker")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w (missing: %s)", ErrNoParts, strings.Join(missing, ", "))
	}
	e.emb, e.chunker = opts.Embedder, opts.Chunker
	e.extractors, e.extNames = opts.Extractors, opts.ExtractorNames
	return nil
}

// checkEmbedder compares the embedder with the one the store's vectors
// came from.
func (e *Engine) checkEmbedder(ctx context.Context, allowChange bool) error {
	info, err := e.emb.Info(ctx)
	if err != nil {
		return fmt.Errorf("asking embedder for its model: %w", err)
	}
	if info.Dim <= 0 {
		return fmt.Errorf("embedder %q reports dimension %d", info.Name, info.Dim)
	}
	e.info = info
	// Read first; only a new home or a change writes.
	write := false
	err = e.st.View(func(tx *store.Tx) error {
		var err error
		write, err = e.embedderRecord(tx, allowChange)
		return err
	})
	if err != nil || !write {
		return err
	}
	if e.st.Shared() {
		// A shared engine writes it with its first write (access.go).
		e.acc.writeEmbedder = true
		return nil
	}
	return e.st.Update(func(tx *store.Tx) error {
		write, err := e.embedderRecord(tx, allowChange)
		if err != nil || !write {
			return err
		}
		return e.putEmbedder(tx)
	})
}

// embedderRecord compares the stored embedder with e.info and reports
// whether the record must be written.
func (e *Engine) embedderRecord(tx *store.Tx, allowChange bool) (bool, error) {
	raw := tx.Meta(store.MetaEmbedder)
	chunks, _ := tx.Counts()
	if raw == nil {
		return true, nil
	}
	var old core.EmbedderInfo
	if err := json.Unmarshal(raw, &old); err != nil {
		return false, fmt.Errorf("reading stored embedder: %w", err)
	}
	if old == e.info {
		return false, nil
	}
	if chunks == 0 {
		return true, nil
	}
	if !allowChange {
		return false, fmt.Errorf("%w: the stored vectors come from %s, but the configured embedder is %s; run `huimem reindex` to re-embed every chunk",
			core.ErrEmbedderChanged, describe(old), describe(e.info))
	}
	e.embedderChanged = true
	return false, nil
}

// vectorsStillOurs checks that the stored vectors still come from this
// engine's embedder: another process may have re-embedded the memory
// (huimem reindex) since this one opened it, and then a query embedded
// here would be compared with vectors of another model, and a write
// would mix two models.
func (e *Engine) vectorsStillOurs(tx *store.Tx) error {
	raw := tx.Meta(store.MetaEmbedder)
	if e.embedderChanged || raw == nil {
		return nil
	}
	var cur core.EmbedderInfo
	if json.Unmarshal(raw, &cur) != nil || cur == e.info {
		return nil
	}
	return fmt.Errorf("%w: another process re-embedded this memory with %s after this one opened it with %s; restart this process",
		core.ErrEmbedderChanged, describe(cur), describe(e.info))
}

func (e *Engine) putEmbedder(tx *store.Tx) error {
	data, _ := json.Marshal(e.info)
	return tx.SetMeta(store.MetaEmbedder, data)
}

func describe(i core.EmbedderInfo) string {
	return fmt.Sprintf("%s (model %s, %d dimensions)", i.Name, i.Model, i.Dim)
}

// Config returns the engine's configuration, with defaults filled in.
func (e *Engine) Config() core.Config { return e.cfg }

// Home returns the engine's home directory.
func (e *Engine) Home() string { return e.home }

// EmbedderInfo returns the embedder's name, model and dimension.
func (e *Engine) EmbedderInfo() core.EmbedderInfo { return e.info }

// Close closes the index and the store, then calls [Options.OnClose]. It
// waits for writes in progress; Close is safe to call more than once.
func (e *Engine) Close() error {
	e.stopYield()
	if e.acc.unwatch != nil {
		e.acc.unwatch()
		e.acc.unwatch = nil
	}
	e.writeMu.mu.Lock() // not Lock: closing takes no writer lock
	defer e.writeMu.mu.Unlock()
	e.ixMu.Lock()
	defer e.ixMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	var errs []error
	defer e.removeTempIndex()
	if e.ix != nil {
		errs = append(errs, e.ix.Close())
	}
	if e.st != nil {
		errs = append(errs, e.st.Close())
	}
	if e.onClose != nil {
		errs = append(errs, e.onClose())
	}
	return errors.Join(errs...)
}

func (e *Engine) loadVectors(ns string, from, to time.Time, fn func([]byte, int64, []byte) error) error {
	return e.st.View(func(tx *store.Tx) error { return tx.ScanVectors(ns, from, to, fn) })
}
