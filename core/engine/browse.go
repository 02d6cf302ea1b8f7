package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
)

// SessionInfo describes one session.
type SessionInfo struct {
	Namespace string    `json:"namespace,omitempty"`
	Session   string    `json:"session"`
	First     time.Time `json:"first"`
	Last      time.Time `json:"last"`
	Messages  int       `json:"messages"`
	Chunks    int       `json:"chunks"`
	// File is the session's transcript under <home>/sessions/.
	File string `json:"file"`
	// Closed is set once [Engine.CloseSession] closed the session.
	Closed bool `json:"closed,omitempty"`
}

// closedKey is the meta key that marks a session closed.
func closedKey(ns, session string) string { return "closed\x00" + ns + "\x00" + session }

// sessions is [Engine.Sessions].
func (r *reader) sessions(ctx context.Context, ns string) ([]SessionInfo, error) {
	var out []SessionInfo
	err := r.st.View(func(tx *store.Tx) error {
		return tx.ForEachSession(func(s *store.Session) error {
			if s.NS != ns {
				return nil
			}
			info := SessionInfo{Namespace: s.NS, Session: s.Session, Messages: s.Count, Chunks: s.Chunks, File: s.File,
				Closed: tx.Meta(closedKey(s.NS, s.Session)) != nil}
			info.First, _ = time.Parse(time.RFC3339Nano, s.First)
			info.Last, _ = time.Parse(time.RFC3339Nano, s.Last)
			out = append(out, info)
			return ctx.Err()
		})
	})
	slices.SortFunc(out, func(a, b SessionInfo) int {
		if c := b.Last.Compare(a.Last); c != 0 {
			return c
		}
		return cmp.Compare(a.Session, b.Session)
	})
	return out, err
}

// session is [Engine.Session].
func (r *reader) session(ctx context.Context, ns, session string) (SessionInfo, error) {
	var info SessionInfo
	err := r.st.View(func(tx *store.Tx) error {
		s, err := tx.Session(ns, session)
		if err != nil {
			return err
		}
		if s == nil {
			return fmt.Errorf("session %q: %w in %s", session, core.ErrNotFound, nsName(ns))
		}
		info = SessionInfo{Namespace: s.NS, Session: s.Session, Messages: s.Count, Chunks: s.Chunks, File: s.File,
			Closed: tx.Meta(closedKey(ns, session)) != nil}
		info.First, _ = time.Parse(time.RFC3339Nano, s.First)
		info.Last, _ = time.Parse(time.RFC3339Nano, s.Last)
		return nil
	})
	return info, err
}

// sessionTurns is [Engine.SessionTurns].
func (r *reader) sessionTurns(ctx context.Context, ns, session string, n int) ([]core.Chunk, error) {
	var out []core.Chunk
	err := r.st.View(func(tx *store.Tx) error {
		ids := tx.SessionChunkIDs(ns, session)
		if len(ids) == 0 {
			if s, err := tx.Session(ns, session); err != nil || s == nil {
				return fmt.Errorf("session %q: %w in %s", session, core.ErrNotFound, nsName(ns))
			}
		}
		if n > 0 && len(ids) > n {
			ids = ids[len(ids)-n:]
		}
		out = make([]core.Chunk, 0, len(ids))
		for _, id := range ids {
			c, err := tx.Chunk(id)
			if err != nil {
				return err
			}
			chunk, err := r.hydrate(tx, c)
			if err != nil {
				return err
			}
			out = append(out, *chunk)
		}
		return ctx.Err()
	})
	return out, err
}

// sessionClosed is [Engine.SessionClosed].
func (r *reader) sessionClosed(ctx context.Context, ns, session string) (bool, error) {
	closed := false
	err := r.st.View(func(tx *store.Tx) error {
		closed = tx.Meta(closedKey(ns, session)) != nil
		return nil
	})
	return closed, err
}

// transcript is [Engine.Transcript].
func (r *reader) transcript(ctx context.Context, ns, session string) (file string, data []byte, err error) {
	err = r.st.View(func(tx *store.Tx) error {
		if r.backend != nil {
			var ok bool
			var err error
			if file, data, ok, err = tx.Transcript(ns, session); err != nil || ok {
				return err
			}
			return fmt.Errorf("transcript of session %q: %w", session, core.ErrNotFound)
		}
		sess, err := tx.Session(ns, session)
		if err != nil {
			return err
		}
		if sess == nil {
			return fmt.Errorf("transcript of session %q: %w", session, core.ErrNotFound)
		}
		file = sess.File
		return nil
	})
	if err != nil || r.backend != nil {
		return file, data, err
	}
	data, err = os.ReadFile(filepath.Join(r.sessionsRoot(), filepath.FromSlash(file)))
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("transcript of session %q: %w", session, core.ErrNotFound)
	}
	return file, data, err
}

// TrackedSource is a source the engine has ingested.
type TrackedSource struct {
	// Path is the absolute path the source was ingested from.
	Path string `json:"path"`
	// Hash is the sha256 of its namespace and content when last ingested.
	Hash string `json:"hash"`
}

// sources is [Engine.Sources].
func (r *reader) sources(ctx context.Context, root string) ([]TrackedSource, error) {
	if root != "" {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		root = abs
	}
	var out []TrackedSource
	err := r.st.View(func(tx *store.Tx) error {
		for p, h := range tx.Sources() {
			if root == "" || p == root || strings.HasPrefix(p, root+string(filepath.Separator)) {
				out = append(out, TrackedSource{Path: p, Hash: h})
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b TrackedSource) int { return strings.Compare(a.Path, b.Path) })
	return out, err
}

// missingSources is [Engine.MissingSources].
func (r *reader) missingSources(ctx context.Context, root string) ([]TrackedSource, error) {
	all, err := r.sources(ctx, root)
	if err != nil {
		return nil, err
	}
	var out []TrackedSource
	for _, s := range all {
		if _, err := os.Stat(s.Path); errors.Is(err, fs.ErrNotExist) {
			out = append(out, s)
		}
	}
	return out, nil
}

// weeks is [Engine.Weeks].
func (r *reader) weeks(ctx context.Context) ([]WeekInfo, error) {
	byKey := map[weekRef]*WeekInfo{}
	get := func(w weekRef) *WeekInfo {
		if byKey[w] == nil {
			byKey[w] = &WeekInfo{Namespace: w.ns, Week: w.week, State: "open"}
		}
		return byKey[w]
	}
	err := r.st.View(func(tx *store.Tx) error {
		return tx.ForEachWeek(func(wk *store.Week) error {
			byKey[weekRef{wk.NS, wk.Week}] = weekInfo(wk)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	loose, err := r.looseWeeks()
	if err != nil {
		return nil, err
	}
	var stored map[weekRef][2]int64
	if r.backend != nil {
		if stored, err = r.storedLoose(); err != nil {
			return nil, err
		}
	}
	for _, w := range loose {
		info := get(w)
		if r.backend != nil {
			info.LooseFiles, info.LooseBytes = int(stored[w][0]), stored[w][1]
		} else {
			info.LooseFiles, info.LooseBytes = treeFiles(filepath.Join(r.sessionsRoot(), filepath.FromSlash(w.dir())))
		}
		if info.Sealed {
			info.State = "sealed, loose files left"
		} else {
			info.Files, info.RawBytes = info.LooseFiles, info.LooseBytes
		}
	}
	archives, err := r.archiveFiles()
	if err != nil {
		return nil, err
	}
	for _, w := range archives {
		if info := get(w); !info.Sealed {
			info.State = "open, stale archive"
			info.Archive = archive.ArchiveFile(w.ns, w.week)
			if fi, err := os.Stat(filepath.Join(r.sessionsRoot(), filepath.FromSlash(info.Archive))); err == nil {
				info.ArchiveBytes = fi.Size()
			}
		}
	}
	out := make([]WeekInfo, 0, len(byKey))
	for _, info := range byKey {
		out = append(out, *info)
	}
	slices.SortFunc(out, func(a, b WeekInfo) int {
		return strings.Compare(a.Namespace+"\x00"+a.Week, b.Namespace+"\x00"+b.Week)
	})
	return out, ctx.Err()
}

// Stats describes a home.
type Stats struct {
	Home string `json:"home"`
	// Backend is where the store and index live: "embedded" (the home),
	// or the backend's name and place ("postgres database huimem on
	// db:5432"), whose sizes are then not counted here.
	Backend    string            `json:"backend"`
	Chunks     int               `json:"chunks"`
	Messages   int               `json:"messages"`
	Sessions   int               `json:"sessions"`
	Namespaces map[string]int    `json:"namespaces"` // chunks per namespace
	Embedder   core.EmbedderInfo `json:"embedder"`
	Generation uint64            `json:"generation"`
	IndexGen   uint64            `json:"index_generation"`
	IndexDocs  uint64            `json:"index_documents"`
	Pending    int               `json:"pending"` // chunks not yet in the index
	// PendingExtractions counts chunks with failed extractions to retry.
	PendingExtractions int   `json:"pending_extractions"`
	StoreBytes         int64 `json:"store_bytes"`
	IndexBytes         int64 `json:"index_bytes"`
	FilesBytes         int64 `json:"sessions_bytes"`
	// Floor is the "nothing found" floor recall applies with this
	// embedder (retriever.min_relevance and retriever.floor_similarity).
	Floor Floor `json:"floor"`
}

// Floor says when a recall finds nothing: when, over the top hits, the
// best relevance plus SimilarityWeight × (the best cosine −
// SimilarityCenter) stays below MinRelevance (0: no floor). The floor
// does not apply to an index of fewer than MinChunks chunks.
type Floor struct {
	MinRelevance     float64 `json:"min_relevance"`
	SimilarityWeight float64 `json:"similarity_weight"`
	SimilarityCenter float64 `json:"similarity_center"`
	MinChunks        int     `json:"min_chunks"`
}

// stats is [Engine.Stats].
func (r *reader) stats(ctx context.Context) (Stats, error) {
	s := Stats{Home: r.home, Namespaces: map[string]int{}, Embedder: r.info, Backend: core.BackendEmbedded}
	cal := r.floorCalibration()
	s.Floor = Floor{MinRelevance: *r.cfg.Retriever.MinRelevance, SimilarityWeight: cal.Weight, SimilarityCenter: cal.Center, MinChunks: minFloorChunks}
	if r.backend != nil {
		s.Backend = r.st.Path()
	}
	err := r.st.View(func(tx *store.Tx) error {
		s.Chunks, s.Messages = tx.Counts()
		s.Generation = tx.Gen()
		s.Pending = tx.OutboxLen()
		_, s.PendingExtractions = tx.PendingExtracts(1)
		err := tx.ForEachSession(func(ss *store.Session) error {
			s.Sessions++
			s.Namespaces[ss.NS] += ss.Chunks
			return nil
		})
		return err
	})
	if err != nil {
		return s, err
	}
	r.ixMu.RLock()
	if r.ix != nil {
		s.IndexGen, _ = r.ix.Gen()
		s.IndexDocs, _ = r.ix.Count()
	}
	r.ixMu.RUnlock()
	if r.backend == nil {
		s.StoreBytes = r.st.Size()
		s.IndexBytes = dirSize(filepath.Join(r.home, indexDir))
		s.FilesBytes = dirSize(r.sessionsRoot())
	}
	return s, ctx.Err()
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
