package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/postgres"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/plugins/host"
)

// Result says what a migration copied.
type Result struct {
	From, To string
	Keys     int `json:"keys"`
	Chunks   int `json:"chunks"`
	Messages int `json:"messages"`
	Sessions int `json:"sessions"`
	Archives int `json:"archives"`
	// Took is the time of the whole migration, index rebuild included.
	Took time.Duration `json:"took_ns"`
}

// Options tune [Run].
type Options struct {
	// Logf, when set, receives a line of progress.
	Logf func(format string, args ...any)
	// Host is how the destination's engine is opened to rebuild its
	// derived data (the plugins its configuration names).
	Host host.Options
}

// side is one end of a migration: a store and how to reach its archives.
type side struct {
	cfg   core.Config
	name  string
	st    *store.Store
	close func()
}

func (s *side) embedded() bool { return s.cfg.Storage.Backend != core.BackendPostgres }

// archivePath is where a home keeps a week's archive.
func (s *side) archivePath(wk *store.Week) string {
	return filepath.Join(s.cfg.Storage.Home, "sessions", filepath.FromSlash(wk.Archive))
}

// open opens the store of cfg. A home's store is opened shared and its
// writer lock taken, so that readers go on while nothing writes.
func open(ctx context.Context, cfg core.Config, dest bool) (*side, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &side{cfg: cfg}
	if !s.embedded() {
		b, err := postgres.OpenBackend(ctx, cfg.Storage.Postgres, cfg.Storage.LockWait)
		if err != nil {
			return nil, err
		}
		s.name, s.st = "postgres database "+b.DB.Name(), b.Store
		s.close = func() { b.Store.Close(); b.DB.Close() }
	} else {
		home, err := filepath.Abs(cfg.Storage.Home)
		if err != nil {
			return nil, err
		}
		s.cfg.Storage.Home = home
		path := filepath.Join(home, store.FileName)
		if !dest {
			if _, err := os.Stat(path); err != nil {
				return nil, fmt.Errorf("%s holds no HuiMemory store: %w", home, err)
			}
		}
		// The source is shared, for readers to go on; the destination,
		// new, is held exclusively.
		st, err := store.OpenWith(path, store.Options{Shared: !dest, LockWait: cfg.Storage.LockWait, Owner: "huimem migrate"})
		if err != nil {
			return nil, err
		}
		s.name, s.st = "home "+home, st
		s.close = func() { st.Close() }
		if dest {
			return s, nil
		}
	}
	if _, err := s.st.LockWriter(ctx); err != nil {
		s.close()
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	unlock := s.close
	s.close = func() { s.st.UnlockWriter(); unlock() }
	return s, nil
}

// Run copies the memory of from into to, whose store must be empty, and
// opens to once to rebuild its index and write its transcripts. Nothing
// may write to from meanwhile: Run holds from's writer lock.
func Run(ctx context.Context, from, to core.Config, o Options) (Result, error) {
	start := time.Now()
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	src, err := open(ctx, from, false)
	if err != nil {
		return Result{}, fmt.Errorf("opening the source: %w", err)
	}
	defer src.close()
	dst, err := open(ctx, to, true)
	if err != nil {
		return Result{}, fmt.Errorf("opening the destination: %w", err)
	}
	res := Result{From: src.name, To: dst.name}
	err = func() error {
		defer dst.close()
		weeks, err := copyArchives(src, dst)
		if err != nil {
			return err
		}
		res.Archives = weeks
		res.Keys, err = src.st.CopyTo(dst.st, store.CopyOptions{
			Skip: func(b string) bool { return b == store.TranscriptsBucket || b == store.ArchivesBucket },
			Then: func(tx *store.Tx) error {
				res.Chunks, res.Messages = tx.Counts()
				// Transcripts are rendered again on the destination
				// (those of sealed sessions are in their archives).
				return tx.MarkAllSessionsDirty(true)
			},
		})
		return err
	}()
	if err != nil {
		return res, fmt.Errorf("copying %s into %s: %w", src.name, dst.name, err)
	}
	// The destination's derived data: index and transcripts.
	logf("huimem: copied %d keys and %d archives; building the search index and transcripts of %s", res.Keys, res.Archives, dst.name)
	to.Plugins.Subprocess = false
	e, err := host.Open(ctx, to, engine.Options{Access: engine.AccessShared, LockWait: to.Storage.LockWait}, o.Host)
	if err != nil {
		return res, fmt.Errorf("opening %s after the copy: %w", dst.name, err)
	}
	defer e.Close()
	st, err := e.Stats(ctx)
	if err != nil {
		return res, err
	}
	res.Sessions = st.Sessions
	res.Took = time.Since(start)
	return res, nil
}

// copyArchives copies the archives of src's sealed weeks to dst, checking
// each against its recorded SHA-256.
func copyArchives(src, dst *side) (int, error) {
	var weeks []*store.Week
	if err := src.st.View(func(tx *store.Tx) error {
		return tx.ForEachWeek(func(wk *store.Week) error { weeks = append(weeks, wk); return nil })
	}); err != nil {
		return 0, err
	}
	for _, wk := range weeks {
		var data []byte
		var err error
		if src.embedded() {
			data, err = os.ReadFile(src.archivePath(wk))
		} else {
			err = src.st.View(func(tx *store.Tx) error { data = tx.Archive(wk.NS, wk.Week); return nil })
		}
		if err == nil && data == nil {
			err = errors.New("it is missing")
		}
		if err != nil {
			return 0, fmt.Errorf("reading the archive of sealed week %s: %w", wk.Week, err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != wk.SHA256 {
			return 0, fmt.Errorf("the archive of sealed week %s does not match its record: %w", wk.Week, archive.ErrCorrupt)
		}
		if !dst.embedded() {
			err = dst.st.Update(func(tx *store.Tx) error { return tx.PutArchive(wk.NS, wk.Week, data) })
		} else {
			err = writeFile(dst.archivePath(wk), data)
		}
		if err != nil {
			return 0, fmt.Errorf("writing the archive of sealed week %s: %w", wk.Week, err)
		}
	}
	return len(weeks), nil
}

// writeFile writes data to path atomically and durably.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return archive.SyncDir(filepath.Dir(path))
}
