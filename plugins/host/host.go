package host

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/builtin"
	"github.com/huimemory/huimemory/plugins/chunker"
	"github.com/huimemory/huimemory/plugins/embedder"
	"github.com/huimemory/huimemory/plugins/extractor"
	"github.com/huimemory/huimemory/plugins/internal/shared"
)

// The plugin kinds.
const (
	KindEmbedder  = shared.KindEmbedder
	KindChunker   = shared.KindChunker
	KindExtractor = shared.KindExtractor
)

// ProgramBuiltin is the program shown for a built-in plugin.
const ProgramBuiltin = "built-in"

// Options tune [New].
type Options struct {
	// Executable is the huimem program that serves the built-ins, run as
	// `Executable plugin serve KIND NAME`, when cfg.Plugins.Subprocess is
	// set. Empty runs the built-ins in the calling process whatever the
	// configuration says.
	Executable string
	// Stderr, when set, receives every plugin process's stderr as it
	// comes. The last lines are kept for error messages either way.
	Stderr io.Writer
}

// Host holds the plugins of one configuration. Its parts are safe for
// concurrent use; call [Host.Close] when done.
type Host struct {
	embedder   core.Embedder
	chunker    core.Chunker
	extractors []core.Extractor
	extNames   []string
	plugins    []*entry
}

// entry is one configured plugin: a process, or a built-in in process.
type entry struct {
	kind, name, program string
	proc                *proc
	impl                any // in-process built-in
}

// New builds the plugins cfg names: cfg.Embedding, cfg.Chunker and each
// of cfg.Extractors. It checks the configuration and builds the in-process
// built-ins, but starts no process: each plugin process starts at its
// first call. cfg should have its defaults set (core.Config.SetDefaults).
// An embedding.name of [EmbedderAuto] is settled by [ChooseEmbedder].
func New(ctx context.Context, cfg core.Config, opts Options) (*Host, error) {
	if cfg.Embedding.Name == EmbedderAuto {
		ChooseEmbedder(&cfg.Embedding)
		cfg.SetDefaults()
	}
	return buildParts(ctx, cfg, opts, parts{embedder: true, chunker: true, extractors: true})
}

// parts says which of the configured plugins to build.
type parts struct{ embedder, chunker, extractors bool }

func buildParts(ctx context.Context, cfg core.Config, opts Options, want parts) (*Host, error) {
	inProcess := !cfg.Plugins.Subprocess || opts.Executable == ""
	h := &Host{}
	mk := func(kind string, spec core.PluginSpec, options map[string]string) (*entry, error) {
		e, err := newEntry(ctx, kind, spec, options, cfg.Plugins.Timeout, inProcess, opts)
		if err != nil {
			h.Close()
			return nil, err
		}
		h.plugins = append(h.plugins, e)
		return e, nil
	}
	if want.embedder {
		embOptions := cloneOptions(cfg.Embedding.Options)
		if !cfg.Embedding.External() {
			embOptions = builtin.EmbedderOptions(cfg.Embedding)
		}
		e, err := mk(KindEmbedder, cfg.Embedding.PluginSpec, embOptions)
		if err != nil {
			return nil, err
		}
		h.embedder = e.embedder()
	}
	if want.chunker {
		e, err := mk(KindChunker, cfg.Chunker, cloneOptions(cfg.Chunker.Options))
		if err != nil {
			return nil, err
		}
		h.chunker = e.chunker()
	}
	if want.extractors {
		for _, spec := range cfg.Extractors {
			e, err := mk(KindExtractor, spec, cloneOptions(spec.Options))
			if err != nil {
				return nil, err
			}
			h.extractors = append(h.extractors, e.extractor())
			h.extNames = append(h.extNames, e.name)
		}
	}
	return h, nil
}

func cloneOptions(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func newEntry(ctx context.Context, kind string, spec core.PluginSpec, options map[string]string,
	timeout time.Duration, inProcess bool, opts Options) (*entry, error) {
	e := &entry{kind: kind, name: spec.Name, program: ProgramBuiltin}
	if spec.External() {
		e.program = spec.Command
		if e.name == "" {
			e.name = strings.TrimSuffix(filepath.Base(spec.Command), ".exe")
		}
	}
	bad := func(format string, args ...any) error {
		return &Error{Kind: kind, Name: e.name, Program: e.program,
			Err: fmt.Errorf("%w: %s", core.ErrInvalid, fmt.Sprintf(format, args...))}
	}
	var sum []byte
	if spec.SHA256 != "" {
		if !spec.External() {
			return nil, bad("sha256 is set, but there is no command to check")
		}
		var err error
		sum, err = hex.DecodeString(strings.TrimSpace(spec.SHA256))
		if err != nil || len(sum) != 32 {
			return nil, bad("sha256 %q is not 64 hex digits", spec.SHA256)
		}
	}
	if !spec.External() {
		if !builtin.Known(kind, spec.Name) {
			return nil, bad("no built-in %s is called %q (built-in %ss: %s)",
				kind, spec.Name, kind, strings.Join(builtin.Names(kind), ", "))
		}
		if inProcess {
			impl, err := buildInProcess(ctx, kind, spec.Name, options)
			if err != nil {
				e.program = ProgramBuiltin + ", in process"
				return nil, &Error{Kind: kind, Name: e.name, Program: e.program, Err: err}
			}
			e.impl = impl
			return e, nil
		}
	}
	p := &proc{
		kind: kind, name: e.name, program: e.program,
		path: spec.Command, args: spec.Args,
		options: options, sum: sum, timeout: timeout, stderr: opts.Stderr,
	}
	if !spec.External() {
		p.path, p.args = opts.Executable, []string{"plugin", "serve", kind, spec.Name}
	}
	e.proc = p
	return e, nil
}

func buildInProcess(ctx context.Context, kind, name string, options map[string]string) (any, error) {
	switch kind {
	case KindEmbedder:
		f, _ := builtin.Embedder(name)
		return f(ctx, options)
	case KindChunker:
		f, _ := builtin.Chunker(name)
		return f(ctx, options)
	}
	f, _ := builtin.Extractor(name)
	return f(ctx, options)
}

// Embedder returns the configured embedder.
func (h *Host) Embedder() core.Embedder { return h.embedder }

// Chunker returns the configured chunker.
func (h *Host) Chunker() core.Chunker { return h.chunker }

// Extractors returns the configured extractors, in order.
func (h *Host) Extractors() []core.Extractor { return h.extractors }

// ExtractorNames returns the configured extractors' names, parallel to
// [Host.Extractors]: the name in the configuration, or the program's file
// name for an external plugin without one.
func (h *Host) ExtractorNames() []string { return h.extNames }

// Close ends every plugin process. The host's parts fail with [ErrClosed]
// afterwards. Close is safe to call more than once.
func (h *Host) Close() error {
	for _, e := range h.plugins {
		if e.proc != nil {
			e.proc.close()
		}
	}
	return nil
}

// Status says whether one configured plugin starts, and what it reports.
type Status struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Program is the plugin's command, or "built-in".
	Program string `json:"program"`
	// InProcess is set for a built-in that runs inside the host's
	// process.
	InProcess bool `json:"in_process"`
	Info
	// Err is why the plugin does not start; nil when it does.
	Err error `json:"-"`
}

// Check starts every plugin that is not running yet and asks each for its
// Info. It returns one status per plugin, in configuration order:
// embedder, chunker, extractors.
func (h *Host) Check(ctx context.Context) []Status {
	out := make([]Status, 0, len(h.plugins))
	for _, e := range h.plugins {
		st := Status{Kind: e.kind, Name: e.name, Program: e.program, InProcess: e.impl != nil}
		if e.impl != nil {
			st.Info, st.Err = inProcessInfo(ctx, e.impl)
		} else {
			c, err := e.proc.get(ctx)
			if err != nil {
				st.Err = err
			} else {
				st.Info = c.info
			}
		}
		out = append(out, st)
	}
	return out
}

func inProcessInfo(ctx context.Context, impl any) (Info, error) {
	info := Info{Version: shared.BuildVersion()}
	if emb, ok := impl.(core.Embedder); ok {
		ei, err := emb.Info(ctx)
		if err != nil {
			return info, err
		}
		info.Name, info.Model, info.Dim = ei.Name, ei.Model, ei.Dim
	}
	return info, nil
}

func (e *entry) embedder() core.Embedder {
	if e.impl != nil {
		return e.impl.(core.Embedder)
	}
	return &embedderProc{e.proc}
}

func (e *entry) chunker() core.Chunker {
	if e.impl != nil {
		return e.impl.(core.Chunker)
	}
	return &chunkerProc{e.proc}
}

func (e *entry) extractor() core.Extractor {
	if e.impl != nil {
		return e.impl.(core.Extractor)
	}
	return &extractorProc{e.proc}
}

// embedderProc is a core.Embedder whose calls go to a plugin process.
type embedderProc struct{ p *proc }

var _ core.Embedder = (*embedderProc)(nil)

// Info returns what the plugin reported when it started, starting it if
// it is not running.
func (e *embedderProc) Info(ctx context.Context) (core.EmbedderInfo, error) {
	c, err := e.p.get(ctx)
	if err != nil {
		return core.EmbedderInfo{}, err
	}
	return core.EmbedderInfo{Name: c.info.Name, Model: c.info.Model, Dim: c.info.Dim}, nil
}

func (e *embedderProc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var out [][]float32
	err := e.p.call(ctx, func(ctx context.Context, c *conn) error {
		var err error
		out, err = c.rpc.(*embedder.Client).Embed(ctx, texts)
		return err
	})
	return out, err
}

// chunkerProc is a core.Chunker whose calls go to a plugin process.
type chunkerProc struct{ p *proc }

var _ core.Chunker = (*chunkerProc)(nil)

func (x *chunkerProc) Chunk(ctx context.Context, msgs []core.SessionMessage) ([]core.Span, error) {
	var out []core.Span
	err := x.p.call(ctx, func(ctx context.Context, c *conn) error {
		var err error
		out, err = c.rpc.(*chunker.Client).Chunk(ctx, msgs)
		return err
	})
	return out, err
}

// extractorProc is a core.Extractor whose calls go to a plugin process.
type extractorProc struct{ p *proc }

var _ core.Extractor = (*extractorProc)(nil)

func (x *extractorProc) Extract(ctx context.Context, chunk *core.Chunk) ([]core.Memory, error) {
	var out []core.Memory
	err := x.p.call(ctx, func(ctx context.Context, c *conn) error {
		var err error
		out, err = c.rpc.(*extractor.Client).Extract(ctx, chunk)
		return err
	})
	return out, err
}
