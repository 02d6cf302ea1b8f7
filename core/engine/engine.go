package engine

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
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
//
// Engine is a facade over four components, which import one way:
//
//	shared      the open store, index and vectors, the locks, and how the
//	            home is shared with other processes (shared.go, access.go)
//	reader      recall: plan, search, fuse, rank, expand (recall.go)
//	writer      ingest: stage, commit, sync the index and transcripts
//	            (ingest.go)
//	maintainer  seal, compact, merge, forget, reindex, verify (seal.go)
//
// The reader and the writer use only the shared component; the maintainer
// also uses the writer. A commit tells the maintainer through
// writer.afterCommit, which Open wires. Open and Close, which recover
// and release the whole home, are the facade's own.
type Engine struct {
	*shared
	read  *reader
	write *writer
	maint *maintainer
}

// reader is the engine's read side: recall and the reads of sessions,
// sources and weeks.
type reader struct {
	*shared
	// searches, in a long-lived engine, holds a slot for each recall
	// running (see recall.go's searchSlot); nil otherwise.
	searches chan struct{}
}

// writer is the engine's write side: ingest, the staged path for large
// files, and bringing the index and the transcripts up to date with the
// store. Its methods that write expect writeMu held, unless they take it.
type writer struct {
	*shared
	// afterCommit runs after each ingest's commit, with writeMu held, once
	// the index and transcripts are up to date (maintainer.afterCommit).
	afterCommit func(ctx context.Context, c committed) error
	// lastRetry is when failed extractions were last retried; writeMu
	// guards it.
	lastRetry time.Time
}

// maintainer is the engine's maintenance: sealing weeks, compacting the
// store and merging the index, forgetting, re-embedding and verifying.
type maintainer struct {
	*shared
	w *writer
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
	sh := &shared{onClose: opts.OnClose, longLived: opts.LongLived}
	sh.writeMu.s = sh
	e := &Engine{shared: sh, read: &reader{shared: sh}, write: &writer{shared: sh}}
	e.maint = &maintainer{shared: sh, w: e.write}
	e.write.afterCommit = e.maint.afterCommit
	if opts.LongLived {
		e.read.searches = make(chan struct{}, searchSlots())
	}
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

// ErrNoParts is returned by [Open] when [Options] lack the embedder or the
// chunker.
var ErrNoParts = errors.New("engine: Options.Embedder and Options.Chunker are required; build them from a configuration with host.Open (plugins/host)")

// Config returns the engine's configuration, with defaults filled in.
func (e *Engine) Config() core.Config { return e.cfg }

// Home returns the engine's home directory.
func (e *Engine) Home() string { return e.home }

// EmbedderInfo returns the embedder's name, model and dimension.
func (e *Engine) EmbedderInfo() core.EmbedderInfo { return e.info }

// Warm loads what the engine's backend keeps in memory to answer reads,
// and waits until it is loaded, as a long-lived engine is soon after it
// opens: benchmarks call it before they time reads. Without a backend, or
// with nothing to load, it returns at once.
func (e *Engine) Warm(ctx context.Context) error {
	if e.backend == nil || e.backend.Warm == nil {
		return nil
	}
	return e.backend.Warm(ctx)
}

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

// The read side (reader): recall and the reads of sessions, sources and
// weeks. Each is safe for concurrent use and runs beside writes.

// Recall finds the chunks that best match q. See [core.Query].
func (e *Engine) Recall(ctx context.Context, q core.Query) (*core.Results, error) {
	return e.read.recall(ctx, q)
}

// RecallByID returns the chunk with the given id in namespace ns and, with
// window > 0, its neighbours; the chunk is marked hit. An unknown id, or
// one from another namespace, gives an error wrapping core.ErrNotFound.
func (e *Engine) RecallByID(ctx context.Context, ns, id string, window int) ([]core.Hit, error) {
	return e.read.recallByID(ctx, ns, id, window)
}

// Sessions lists the sessions of namespace ns, newest first (by their last
// message). It reads the store only; safe for concurrent use.
func (e *Engine) Sessions(ctx context.Context, ns string) ([]SessionInfo, error) {
	return e.read.sessions(ctx, ns)
}

// Session returns one session's description, or an error wrapping
// core.ErrNotFound.
func (e *Engine) Session(ctx context.Context, ns, session string) (SessionInfo, error) {
	return e.read.session(ctx, ns, session)
}

// SessionTurns returns the last n turn chunks of a session, oldest first
// (all of them when n <= 0), with their messages verbatim. An unknown
// session gives an error wrapping core.ErrNotFound. Safe for concurrent
// use.
func (e *Engine) SessionTurns(ctx context.Context, ns, session string, n int) ([]core.Chunk, error) {
	return e.read.sessionTurns(ctx, ns, session, n)
}

// SessionClosed reports whether a session was closed.
func (e *Engine) SessionClosed(ctx context.Context, ns, session string) (bool, error) {
	return e.read.sessionClosed(ctx, ns, session)
}

// Transcript returns a session's markdown transcript and its path under
// the sessions folder, as the engine last wrote it: from the home's
// sessions/ folder, or from the backend's store. It fails with
// core.ErrNotFound when there is none.
func (e *Engine) Transcript(ctx context.Context, ns, session string) (file string, data []byte, err error) {
	return e.read.transcript(ctx, ns, session)
}

// Export writes the messages of one namespace (or of all, with opts.All)
// to w in the generic JSONL format that [Engine.IngestFile] reads, and
// returns how many it wrote. Each line carries the message's session,
// time (RFC 3339 with nanoseconds and the original offset), role,
// speaker, text verbatim, ref and namespace; messages of sealed weeks are
// read from their archives. Lines come by namespace, then session (by
// first message, then name), then in the store's order within the session
// (time, then arrival), so that ingesting the export into a fresh home
// makes the same chunks, with the same ids, prev/next links, transcript
// files and lines. The one exception is an id lengthened because of a
// collision of six-character ids (about 1 in 200 chunks at 10 million):
// which of the two chunks gets the longer id depends on the order they
// were first stored in.
//
// Export reads the store in one transaction per session, so a write that
// runs meanwhile is seen in whole sessions. It does not wait for writes
// and is safe for concurrent use.
func (e *Engine) Export(ctx context.Context, w io.Writer, opts ExportOptions) (int, error) {
	return e.read.export(ctx, w, opts)
}

// Sources returns the tracked sources whose path is root or lies under it
// (every source when root is ""), sorted by path.
func (e *Engine) Sources(ctx context.Context, root string) ([]TrackedSource, error) {
	return e.read.sources(ctx, root)
}

// MissingSources returns the tracked sources under root whose file no
// longer exists: candidates for [Engine.PruneSource].
func (e *Engine) MissingSources(ctx context.Context, root string) ([]TrackedSource, error) {
	return e.read.missingSources(ctx, root)
}

// Weeks lists every week that has transcripts, sealed or not, by
// namespace then week.
func (e *Engine) Weeks(ctx context.Context) ([]WeekInfo, error) {
	return e.read.weeks(ctx)
}

// Stats counts what the home holds.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	return e.read.stats(ctx)
}

// The write side (writer): ingest. Writes are serialised.

// Ingest stores messages, all or none. Messages already stored are
// skipped, so ingesting the same messages twice adds nothing.
func (e *Engine) Ingest(ctx context.Context, msgs []core.Message) (IngestResult, error) {
	return e.write.ingestMessages(ctx, msgs)
}

// IngestFile ingests a JSONL file (see core/jsonl). The file is all or
// nothing: a bad line fails it with "path:line: problem" and the store is
// left as it was. Ingesting a file whose content was ingested before adds
// nothing.
func (e *Engine) IngestFile(ctx context.Context, path string, opts FileOptions) (IngestResult, error) {
	return e.write.ingestFile(ctx, path, opts)
}

// IngestSource ingests one file of any supported format (see core/formats)
// and tracks it by its absolute path and content hash, so that ingesting
// it again does only what changed:
//
//   - same content as last time: nothing is read or written (Status
//     "unchanged");
//   - changed content: in one transaction, the messages the file no longer
//     holds are removed (unless another tracked file holds them too), the
//     new ones added, and every touched session is re-cut into chunks with
//     its prev/next links re-made, so there are no duplicates and no
//     anchors pointing at removed chunks;
//   - a file that no longer parses fails with an error naming the file and
//     line, and the store keeps its earlier content.
//
// Messages that were stored before, without a tracked source (the library's
// [Engine.Ingest], `huimem add`, or files ingested before source tracking),
// are never removed by a re-ingest. IngestSource is safe for concurrent use;
// writes are serialised.
func (e *Engine) IngestSource(ctx context.Context, path string, opts SourceOptions) (SourceResult, error) {
	return e.write.ingestSource(ctx, path, opts)
}

// IngestSources ingests the files at paths as [Engine.IngestSource]
// ingests each, and calls done with each file's index in paths, its
// result and its error, in the order of paths.
//
// Consecutive new files that hold no more than a batch
// ([SourceOptions.BatchMessages]) are grouped: up to a batch of messages
// in all are planned, embedded and written in one transaction; more,
// with the small new files that follow, under one stage of up to
// groupStageBatches batches. Either records each file with its content
// hash and its claims, as ingesting them one at a time would. Each file
// stays all or nothing: a file that cannot be read fails before its
// group is written and the others go on; a group that fails (its
// transaction, its stage) fails each of its files, and the store keeps
// what it had. A crash leaves the groups committed before it, and
// running the same ingest again skips their files as unchanged. A large
// new file and a changed one go in on their own, as IngestSource takes
// them.
//
// The store's compaction and the index merge are left to the caller, as
// [SourceOptions.DeferTidy] leaves them, whatever opts says: call
// [Engine.Tidy] after the last file, with the [Engine.TidyBase] taken
// before the first. IngestSources returns ctx's error when ctx ends,
// without calling done for the files it did not finish. It is safe for
// concurrent use; writes are serialised.
func (e *Engine) IngestSources(ctx context.Context, paths []string, opts SourceOptions, done func(i int, res SourceResult, err error)) error {
	return e.write.ingestSources(ctx, paths, opts, done)
}

// PruneSource removes a tracked source that was deleted: the messages only
// it held go, in one transaction, with their sessions re-cut and re-linked,
// and the source is forgotten. name is the path as it was ingested; it is
// made absolute.
func (e *Engine) PruneSource(ctx context.Context, name string) (SourceResult, error) {
	return e.write.pruneSource(ctx, name)
}

// CloseSession marks a session closed: its turns stay stored and
// recallable, and [Engine.SessionClosed] reports it, so that a host (the
// takeover kernel) refuses further appends to it. Closing twice is not an
// error. An unknown session gives an error wrapping core.ErrNotFound.
func (e *Engine) CloseSession(ctx context.Context, ns, session string) error {
	return e.write.closeSession(ctx, ns, session)
}

// RetryExtractions runs again, on up to limit chunks (all with limit <= 0),
// the extractors that failed on them, stores the memories they return,
// and updates the index. An extractor that fails again stays pending.
func (e *Engine) RetryExtractions(ctx context.Context, limit int) (RetryResult, error) {
	return e.write.retryExtractions(ctx, limit)
}

// Maintenance (maintainer): seal, tidy, forget, reindex, verify. Each
// that changes the home is a write, serialised with the others.

// Seal packs finished weeks into archives (see the comment at the top of
// seal.go for the steps) and returns what it sealed. It is a write: it
// waits for other writes, and recalls run on meanwhile, reading the week
// from the store or from its archive, never half of each.
func (e *Engine) Seal(ctx context.Context, opts SealOptions) ([]WeekInfo, error) {
	return e.maint.seal(ctx, opts)
}

// Tidy does what the end of a large ingest does (compact the store, merge
// the index's segments), for a caller that ingested several sources with
// [SourceOptions.DeferTidy] and base taken before the first: once for
// the whole lot, where each source on its own would have tidied several
// times over. Each step runs only if it pays (the store grew by more than
// a quarter since base; the index when it has several segments and
// more chunks outside the largest than a quarter of the largest's) and only
// on a home's own files; a failure logs a warning and leaves the memory
// as it was. The results are nil for steps that did not run.
func (e *Engine) Tidy(ctx context.Context, base TidyBase) (*Compaction, *IndexMerge, error) {
	return e.maint.tidy(ctx, base)
}

// TidyBase returns the store's and the index's size now.
func (e *Engine) TidyBase() TidyBase {
	return e.tidyBase()
}

// Forget removes messages from the home for good: from the store and its
// file's free pages, the search index and its segments, the vectors, the
// transcripts, the decompressed-week cache and the sealed week archives,
// which are re-sealed without them. The chunks of the touched sessions are
// re-cut and their prev/next links re-made; sessions left empty are
// removed. See the comment at the top of forget.go for the steps and what
// a crash leaves.
//
// With opts.DryRun it only lists what would go. An unknown chunk id or
// session (in the namespace) is an error wrapping [core.ErrNotFound]; a
// namespace or filter that selects nothing is not an error. Forget is a
// write: it waits for other writes, and recalls wait while the index is
// rebuilt and the store compacted.
func (e *Engine) Forget(ctx context.Context, opts ForgetOptions) (ForgetResult, error) {
	return e.maint.forget(ctx, opts)
}

// Reindex rebuilds the search index from the store. When the embedder
// changed since the vectors were made (or opts.Embed is set) it first
// re-embeds every chunk, then replaces all vectors and the embedder
// record in one transaction, so vectors from two models are never mixed.
//
// The embedding, which takes minutes with a real model on a large home,
// runs under the write lock (no other write can change the chunks) but
// beside readers, as an ingest's embedding does; only the commit and the
// index rebuild lock them out. Recalls in this process wait while it
// runs. A kill or a failure before the commit leaves the store as it was,
// vectors and embedder record together; the vectors made so far are kept
// in the home's reembed.partial, and the next Reindex with the same
// embedder takes them and embeds only the rest. After the commit the
// index is rebuilt in a folder of its own and renamed into place, and a
// reopen repairs an index left behind.
func (e *Engine) Reindex(ctx context.Context, opts ReindexOptions) (ReindexResult, error) {
	return e.maint.reindex(ctx, opts)
}

// VerifyArchives reads every week archive on disk to its end, checks each
// file against the manifest, and checks that each sealed week's archive is
// there and is the one recorded when it was sealed. It returns one check
// per archive and, if any failed, an error naming the bad files.
func (e *Engine) VerifyArchives(ctx context.Context) ([]ArchiveCheck, error) {
	return e.maint.verifyArchives(ctx)
}
