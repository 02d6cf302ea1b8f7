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
	"github.com/huimemory/huimemory/core/index"
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
	// Logf, when set, receives progress messages such as index repairs.
	Logf func(format string, args ...any)
	// AllowEmbedderChange lets Open accept an embedder other than the one
	// the stored vectors came from; only Reindex may then be called.
	AllowEmbedderChange bool
	// LockWait is how long Open waits for another process to release the
	// home; 0 means one second.
	LockWait time.Duration
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

	// writeMu serialises writes: ingest, index sync, reindex.
	writeMu sync.Mutex

	// ixMu guards ix and stale; recalls hold it for reading.
	ixMu  sync.RWMutex
	ix    *index.Index
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
	e := &Engine{logf: opts.Logf, onClose: opts.OnClose}
	if e.logf == nil {
		e.logf = func(string, ...any) {}
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
	if e.st, err = store.Open(filepath.Join(e.home, store.FileName), lockWait); err != nil {
		return err
	}
	if err := e.checkEmbedder(ctx, opts.AllowEmbedderChange); err != nil {
		return err
	}
	e.vx = vector.New(e.info.Dim, e.loadVectors, store.AppendVector)
	if err := e.openIndex(ctx); err != nil {
		return err
	}
	// Transcripts left unwritten by a crash are written now.
	if err := e.writeTranscripts(ctx); err != nil {
		return err
	}
	// A forget interrupted after its messages left the store is finished
	// now: re-seal its weeks, drop the caches, compact the store.
	if _, _, err := e.finishForget(ctx); err != nil {
		return fmt.Errorf("finishing an interrupted forget: %w", err)
	}
	return nil
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
	return e.st.Update(func(tx *store.Tx) error {
		raw := tx.Meta(store.MetaEmbedder)
		chunks, _ := tx.Counts()
		if raw != nil && chunks > 0 {
			var old core.EmbedderInfo
			if err := json.Unmarshal(raw, &old); err != nil {
				return fmt.Errorf("reading stored embedder: %w", err)
			}
			if old != info {
				if !allowChange {
					return fmt.Errorf("%w: the stored vectors come from %s, but the configured embedder is %s; run `huimem reindex` to re-embed every chunk",
						core.ErrEmbedderChanged, describe(old), describe(info))
				}
				e.embedderChanged = true
				return nil
			}
		}
		data, _ := json.Marshal(info)
		return tx.SetMeta(store.MetaEmbedder, data)
	})
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
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.ixMu.Lock()
	defer e.ixMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	var errs []error
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

func (e *Engine) loadVectors(ns string, from, to time.Time, fn func(string, int64, []byte) error) error {
	return e.st.View(func(tx *store.Tx) error { return tx.ScanVectors(ns, from, to, fn) })
}
