package huimemory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/plugins/host"
)

// The vocabulary, as aliases of core's types: a value of one is a value of
// the other.
type (
	// Message is one utterance, kept verbatim; see [core.Message].
	Message = core.Message
	// Role is who produced a message: [RoleUser], [RoleAssistant],
	// [RoleSystem], or [RoleNone] for a message with a speaker only.
	Role = core.Role
	// Query asks [Memory.Recall] for the turns that best match a text; see
	// [core.Query].
	Query = core.Query
	// Results is what [Memory.Recall] returns; see [core.Results].
	Results = core.Results
	// Hit is one turn chunk in a result list, with its anchor, messages
	// and scores; see [core.Hit].
	Hit = core.Hit
	// Chunk is a turn chunk: the unit HuiMemory indexes, recalls and
	// links; see [core.Chunk].
	Chunk = core.Chunk
	// Anchor is a chunk's id and the ids of the chunks before and after
	// it, shown as [id:a3f2c7 | prev: k7f2a1 | next: d2n7p3]; see
	// [core.Anchor].
	Anchor = core.Anchor
	// Scores holds a hit's two normalised signals; see [core.Scores].
	Scores = core.Scores
	// TimeRange is the window a query's time phrase resolved to; see
	// [core.TimeRange].
	TimeRange = core.TimeRange
	// ContextRole says why a chunk is in a result list: [RoleHit] or
	// [RoleNeighbor].
	ContextRole = core.ContextRole
	// Config is the whole configuration, the struct that config.yaml
	// fills for the huimem command; see [core.Config].
	Config = core.Config
	// TimeConfig is Config.Time: the time zone of "now", of time phrases
	// and of times without an offset.
	TimeConfig = core.TimeConfig
	// EmbeddingConfig is Config.Embedding: the embedder.
	EmbeddingConfig = core.EmbeddingConfig
	// PluginSpec names a chunker or an extractor (Config.Chunker,
	// Config.Extractors): a built-in by name, or a plugin program.
	PluginSpec = core.PluginSpec
	// RetrieverConfig is Config.Retriever: how recall ranks.
	RetrieverConfig = core.RetrieverConfig
	// StorageConfig is Config.Storage: the backend and its limits.
	StorageConfig = core.StorageConfig
)

// The results and options of the methods, as aliases of core/engine's
// types.
type (
	// IngestResult says what [Memory.Append] stored.
	IngestResult = engine.IngestResult
	// SourceResult says what [Memory.Ingest] did with a file.
	SourceResult = engine.SourceResult
	// ForgetOptions choose what [Memory.Forget] removes: exactly one of
	// ID, Session, AllNamespace and Filter.
	ForgetOptions = engine.ForgetOptions
	// ForgetResult says what [Memory.Forget] did or, in a dry run, would
	// do.
	ForgetResult = engine.ForgetResult
	// ForgottenMessage is one message in a [ForgetResult].
	ForgottenMessage = engine.ForgottenMessage
	// ExportOptions choose what [Memory.Export] writes.
	ExportOptions = engine.ExportOptions
)

// The roles a message may carry.
const (
	RoleNone      = core.RoleNone
	RoleUser      = core.RoleUser
	RoleAssistant = core.RoleAssistant
	RoleSystem    = core.RoleSystem
)

// The context roles of a hit.
const (
	// RoleHit marks a chunk that matched the query.
	RoleHit = core.RoleHit
	// RoleNeighbor marks a chunk added around a hit by [Query].Context.
	RoleNeighbor = core.RoleNeighbor
)

// The errors callers branch on with errors.Is; they are core's values.
var (
	// ErrInvalid marks bad input: a query, message, option or
	// configuration value.
	ErrInvalid = core.ErrInvalid
	// ErrNotFound means no chunk has the id, or no session the name, in
	// the namespace.
	ErrNotFound = core.ErrNotFound
	// ErrClosed means the memory was used after [Memory.Close].
	ErrClosed = core.ErrClosed
	// ErrLocked means another process holds the folder.
	ErrLocked = core.ErrLocked
	// ErrEmbedderChanged means the configured embedder is not the one the
	// stored vectors came from; run `huimem reindex`.
	ErrEmbedderChanged = core.ErrEmbedderChanged
	// ErrIndexStale means the search index disagrees with the store and
	// could not be repaired; run `huimem reindex`.
	ErrIndexStale = core.ErrIndexStale
)

// ErrReadOnly is returned by the methods that write when the memory was
// opened with [Options.ReadOnly].
var ErrReadOnly = errors.New("memory is read-only")

// Options tune [Open]. The zero value, and a nil *Options, open the folder
// with the built-in defaults: the hash embedder and the turn chunker, in
// this process, with no extractors and no network, as `huimem demo` and
// examples/quickstart run.
type Options struct {
	// Config, when set, is the configuration to open with: embedder,
	// chunker, extractors, retriever weights, time zone, storage backend
	// (every setting of docs/configuration.md). Fields left zero take
	// their defaults. Its Storage.Home is ignored: the folder is Open's
	// dir. HuiMemory reads no config file, flag or environment variable
	// here; the huimem command reads those and builds this struct.
	Config *Config
	// Namespace is the namespace the memory reads and writes when a call
	// names none: a [Query], a [Message], [ForgetOptions] or
	// [ExportOptions] with an empty Namespace gets this one, and so does
	// every message of an ingested file that names none. Empty is the
	// default namespace.
	Namespace string
	// ReadOnly makes [Memory.Append], [Memory.Ingest] and [Memory.Forget]
	// fail with [ErrReadOnly], and leaves remember and forget_memory out
	// of [Memory.Tools], as `huimem mcp --read-only` does. Open still
	// creates the folder if needed and repairs what is derived from the
	// store (the index, the transcripts).
	ReadOnly bool
	// Shared opens the folder with shared access (core/engine's
	// AccessShared): other processes, such as huimem commands, `huimem
	// serve` or another program's memory, may use it at the same time,
	// and each write locks it only while it commits, waiting at most
	// storage.lock_wait for another process's write. Without it the memory
	// holds the folder exclusively from Open to Close, and another
	// process that opens it gets [ErrLocked].
	Shared bool
	// Logf, when set, receives progress messages such as index repairs,
	// one call at a time.
	Logf func(format string, args ...any)
}

// Memory is an open HuiMemory home. It is safe for concurrent use by
// several goroutines: writes ([Memory.Append], [Memory.Ingest],
// [Memory.Forget]) are serialised, and reads ([Memory.Recall],
// [Memory.Get], [Memory.Export]) run in parallel with each other and with
// writes. Call [Memory.Close] when done; after it the methods that read
// or write return [ErrClosed].
type Memory struct {
	e      *engine.Engine
	ns     string
	ro     bool
	tools  *tools.Dispatcher
	closed atomic.Bool
}

// Open opens the HuiMemory home in the folder dir, creating the folder and
// its files when they do not exist:
//
//	dir/huimem.db   the store, the source of truth
//	dir/index/      the full-text index, derived from the store
//	dir/sessions/   markdown transcripts, and sealed weeks as zstd archives
//	dir/cache/      sealed weeks decompressed for reading
//
// It builds the embedder, chunker and extractors that opts.Config names
// (see [Options]), checks that the embedder is the one the stored vectors
// came from ([ErrEmbedderChanged] otherwise), and repairs or rebuilds an
// index that is behind the store or damaged, which on a large home can
// take a while; [OpenContext] can be cancelled. A nil opts means the
// defaults.
func Open(dir string, opts *Options) (*Memory, error) {
	return OpenContext(context.Background(), dir, opts)
}

// OpenContext is [Open] with a context, which bounds building the parts
// and repairing the index.
func OpenContext(ctx context.Context, dir string, opts *Options) (*Memory, error) {
	if opts == nil {
		opts = &Options{}
	}
	if dir == "" {
		return nil, fmt.Errorf("opening memory: %w: no folder given", ErrInvalid)
	}
	if err := core.ValidateNamespace(opts.Namespace); err != nil {
		return nil, fmt.Errorf("opening memory %q: %w: %w", dir, ErrInvalid, err)
	}
	var cfg Config
	if opts.Config != nil {
		cfg = *opts.Config
	}
	cfg.Storage.Home = dir
	eopts := engine.Options{Logf: opts.Logf, Owner: "huimemory"}
	if opts.Shared {
		eopts.Access = engine.AccessShared
		eopts.LockWait = cfg.Storage.LockWait
		if eopts.LockWait == 0 {
			eopts.LockWait = core.DefaultLockWait
		}
	}
	e, err := host.Open(ctx, cfg, eopts, host.Options{})
	if err != nil {
		return nil, fmt.Errorf("opening memory %q: %w", dir, err)
	}
	cfg = e.Config()
	m := &Memory{e: e, ns: opts.Namespace, ro: opts.ReadOnly}
	m.tools = tools.New(e, tools.Options{
		Namespace:   opts.Namespace,
		Remember:    !opts.ReadOnly,
		Manage:      true,
		Forget:      !opts.ReadOnly,
		DefaultTopK: min(cfg.Retriever.TopK, tools.DefaultMaxTopK),
		Location:    cfg.Time.Location(),
	})
	return m, nil
}

// check returns the error for the call op on a closed memory, or, for a
// write, on a read-only one.
func (m *Memory) check(op string, write bool) error {
	switch {
	case m.closed.Load():
		return fmt.Errorf("%s: %w", op, ErrClosed)
	case write && m.ro:
		return fmt.Errorf("%s: %w", op, ErrReadOnly)
	}
	return nil
}

// Recall finds the turn chunks that best match q, by keyword and meaning,
// within the time its time phrase ("上周三下午", "last week") or its
// Since and Before name; see [Query] for every field. A q.Namespace left
// empty is [Options.Namespace]. Bad input (a top-k or context out of
// range, a filter that does not parse) is an error wrapping
// [ErrInvalid]. Recall changes nothing in the memory; reading a sealed
// week may fill the cache of decompressed weeks.
func (m *Memory) Recall(ctx context.Context, q Query) (*Results, error) {
	if err := m.check("recall", false); err != nil {
		return nil, err
	}
	if q.Namespace == "" {
		q.Namespace = m.ns
	}
	return m.e.Recall(ctx, q)
}

// Get returns the chunk with the id (as an [Anchor] shows it: the id, or
// the prev or next id of another chunk) and, with window > 0, that many
// chunks before and after it: the recall_by_id tool. The chunk is marked
// [RoleHit], its neighbours [RoleNeighbor]. An unknown id, or one of
// another namespace than [Options.Namespace], is an error wrapping
// [ErrNotFound]. Get, like Recall, changes nothing in the memory.
func (m *Memory) Get(ctx context.Context, id string, window int) ([]Hit, error) {
	if err := m.check("get", false); err != nil {
		return nil, err
	}
	return m.e.RecallByID(ctx, m.ns, id, window)
}

// Append stores messages, all or none, and returns what it stored. A
// message without a namespace gets [Options.Namespace]; msgs themselves
// are not modified. A message stored before is skipped, so appending the
// same messages twice stores them once. An invalid message (no session,
// time or text, no role or speaker) fails the call with an error wrapping
// [ErrInvalid] that names it by position, and nothing is stored.
//
// Append writes the messages to the store in one transaction, cuts the
// sessions they belong to into turn chunks (re-linking the chunks' anchors
// when a message falls between stored ones), embeds and indexes the new
// chunks and rewrites those sessions' transcripts; the next Recall finds
// them.
func (m *Memory) Append(ctx context.Context, msgs ...Message) (IngestResult, error) {
	if err := m.check("append", true); err != nil {
		return IngestResult{}, err
	}
	if m.ns != "" {
		msgs = append([]Message(nil), msgs...)
		for i := range msgs {
			if msgs[i].Namespace == "" {
				msgs[i].Namespace = m.ns
			}
		}
	}
	return m.e.Ingest(ctx, msgs)
}

// Ingest reads the chat export at path, in any format `huimem ingest`
// reads (HuiMemory's JSON Lines, ChatGPT and Claude.ai exports, Claude
// Code and Codex sessions, Slack exports, plain-text and markdown
// transcripts; see docs/ingest-formats.md), detected from its content.
// Messages that name no namespace get [Options.Namespace], and times
// without an offset are read in the configured time zone.
//
// The file is tracked by its absolute path and content: ingesting it
// again unchanged reads and writes nothing (Status "unchanged"), and a
// changed file has its messages replaced in one transaction. The file is
// all or nothing: a line that does not parse fails the call with an error
// naming the file and line, and the store keeps what it had. A large file
// is written in batches that no recall sees until the last one commits.
// Ingest takes one file; a folder is an error.
func (m *Memory) Ingest(ctx context.Context, path string) (SourceResult, error) {
	if err := m.check("ingest", true); err != nil {
		return SourceResult{}, err
	}
	return m.e.IngestSource(ctx, path, engine.SourceOptions{Namespace: m.ns, Location: m.e.Config().Time.Location()})
}

// Forget removes messages for good, as opts selects them (exactly one of
// an id, a session, a filter expression or the whole namespace; an empty
// opts.Namespace is [Options.Namespace]). Their text leaves every file of
// the home: the store, whose file is compacted, the index, the vectors,
// the transcripts and the sealed archives, which are re-sealed; the
// chunks of the sessions that lose messages are re-cut and re-linked.
// With opts.DryRun it only lists what would go and writes nothing. An
// unknown id or session is an error wrapping [ErrNotFound]. Recalls wait
// while the index is rebuilt and the store compacted.
func (m *Memory) Forget(ctx context.Context, opts ForgetOptions) (ForgetResult, error) {
	if err := m.check("forget", !opts.DryRun); err != nil {
		return ForgetResult{}, err
	}
	if opts.Namespace == "" {
		opts.Namespace = m.ns
	}
	return m.e.Forget(ctx, opts)
}

// Export writes the messages of a namespace (an empty opts.Namespace is
// [Options.Namespace]; opts.All writes every namespace), or of one
// session, to w as JSON Lines, the generic format that [Memory.Ingest]
// reads, and returns how many messages it wrote. Ingesting an export into
// an empty memory makes the same chunks, with the same ids and links.
// Export changes nothing in the memory, does not wait for writes, and
// sees a write that runs meanwhile in whole sessions.
func (m *Memory) Export(ctx context.Context, w io.Writer, opts ExportOptions) (int, error) {
	if err := m.check("export", false); err != nil {
		return 0, err
	}
	if opts.Namespace == "" && !opts.All {
		opts.Namespace = m.ns
	}
	return m.e.Export(ctx, w, opts)
}

// Tools returns the dispatcher of the memory tools over this memory, the
// one `huimem mcp` serves: recall_memory, recall_by_id, list_sessions,
// memory_stats, resolve_time and export_session, and, unless
// [Options.ReadOnly], remember and forget_memory. Calls read and write
// [Options.Namespace] only, and times are read in the configured time
// zone. Hand tools.Schemas(d.Tools(), format) to the LLM and run each of
// its tool calls with d.Dispatch, which returns the text the LLM reads.
// The dispatcher is safe for concurrent use; once the memory is closed
// its calls fail.
func (m *Memory) Tools() *tools.Dispatcher { return m.tools }

// Engine returns the engine underneath, for what the memory does not
// wrap: sessions, stats, sealing weeks, reindexing. It is closed by
// [Memory.Close].
func (m *Memory) Engine() *engine.Engine { return m.e }

// Dir returns the memory's folder, as an absolute path.
func (m *Memory) Dir() string { return m.e.Home() }

// Close waits for writes in progress, then closes the store and the index
// and ends any plugin processes. Calling it again does nothing and
// returns nil.
func (m *Memory) Close() error {
	if m.closed.Swap(true) {
		return nil
	}
	return m.e.Close()
}
