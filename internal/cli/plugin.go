package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/hashicorp/go-plugin"
	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/render"
	"github.com/huimemory/huimemory/plugins/builtin"
	"github.com/huimemory/huimemory/plugins/chunker"
	"github.com/huimemory/huimemory/plugins/embedder"
	"github.com/huimemory/huimemory/plugins/extractor"
	"github.com/huimemory/huimemory/plugins/host"
)

// openHosts are the plugin hosts that this process's commands opened. A
// cobra finalizer closes them when the command ends, failed or not, so no
// plugin process outlives huimem.
var openHosts struct {
	sync.Mutex
	list []*host.Host
}

func init() { cobra.OnFinalize(closePlugins) }

// closePlugins ends every plugin process this process started.
func closePlugins() {
	openHosts.Lock()
	list := openHosts.list
	openHosts.list = nil
	openHosts.Unlock()
	for _, h := range list {
		h.Close()
	}
	plugin.CleanupClients()
}

// hostOptions says how this process runs cfg's plugins: built-ins run in
// process unless plugins.subprocess is set, and are then served by this
// very binary (`huimem plugin serve KIND NAME`). With HUIMEM_DEBUG set, the plugins' stderr
// goes to huimem's.
func (a *App) hostOptions(cfg core.Config) host.Options {
	opts := host.Options{Executable: a.pluginExecutable(cfg)}
	if os.Getenv("HUIMEM_DEBUG") != "" {
		opts.Stderr = a.Stderr
	}
	return opts
}

// newHost starts the plugin host for cfg, for commands that talk to the
// plugins without an engine (`huimem plugin check`).
func (a *App) newHost(ctx context.Context, cfg core.Config) (*host.Host, error) {
	h, err := host.New(ctx, cfg, a.hostOptions(cfg))
	if err != nil {
		return nil, err
	}
	openHosts.Lock()
	openHosts.list = append(openHosts.list, h)
	openHosts.Unlock()
	return h, nil
}

// openEngine opens the engine of cfg's home on the plugins cfg names, for
// the parts opts leaves unset. It is the CLI's one way to an engine; the
// plugins end when the engine closes.
func (a *App) openEngine(ctx context.Context, cfg core.Config, opts engine.Options) (*engine.Engine, error) {
	if opts.Logf == nil {
		opts.Logf = a.logf
	}
	return host.Open(ctx, cfg, opts, a.hostOptions(cfg))
}

// pluginExecutable returns the program that serves the built-in plugins:
// this one, or "" to run them in process. A test binary cannot serve
// them, so under `go test` they run in process.
func (a *App) pluginExecutable(cfg core.Config) string {
	exe, err := os.Executable()
	if err != nil {
		a.logf("huimem: running built-in plugins in process: %v", err)
		return ""
	}
	if strings.HasSuffix(strings.TrimSuffix(filepath.Base(exe), ".exe"), ".test") {
		return ""
	}
	return exe
}

func (a *App) pluginCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Plugin plumbing (used by huimem itself)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return Usagef("plugin: give a subcommand: serve")
		},
	}
	serve := &cobra.Command{
		Use:   "serve KIND NAME",
		Short: "Serve a built-in plugin over go-plugin (huimem starts this itself)",
		Long: `Serve the built-in plugin NAME of KIND (embedder, chunker or extractor)
as a go-plugin subprocess. Built-ins run inside huimem by default; with
plugins.subprocess set, HuiMemory runs them this way instead, re-executing
its own binary. The plugin receives its
options from the host in a Configure call. Run by hand, it prints a note
and exits with status 1.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return servePlugin(args[0], args[1])
		},
	}
	cmd.AddCommand(serve)
	return cmd
}

// servePlugin serves a built-in until the host ends it. SIGTERM ends it
// at once; like any go-plugin plugin it ignores SIGINT, which a terminal
// sends to the host as well, and leaves the stopping to the host.
func servePlugin(kind, name string) error {
	signal.Reset(syscall.SIGTERM)
	unknown := func() error {
		return Usagef("plugin serve: no built-in %s is called %q (built-in %ss: %s)",
			kind, name, kind, strings.Join(builtin.Names(kind), ", "))
	}
	switch kind {
	case builtin.KindEmbedder:
		f, ok := builtin.Embedder(name)
		if !ok {
			return unknown()
		}
		embedder.ServeWith(embedder.ServeConfig{Factory: f})
	case builtin.KindChunker:
		f, ok := builtin.Chunker(name)
		if !ok {
			return unknown()
		}
		chunker.ServeWith(chunker.ServeConfig{Factory: f, Name: name})
	case builtin.KindExtractor:
		f, ok := builtin.Extractor(name)
		if !ok {
			return unknown()
		}
		extractor.ServeWith(extractor.ServeConfig{Factory: f, Name: name})
	default:
		return Usagef("plugin serve: unknown kind %q: want %s", kind, strings.Join(builtin.Kinds, ", "))
	}
	return nil
}

// pluginStatus is one line of `huimem plugins --json`.
type pluginStatus struct {
	host.Status
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

func (a *App) pluginsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "plugins [--json]",
		Short: "List the configured plugins and check that each one starts",
		Long: `List the configured plugins (the embedder, the chunker and each extractor),
start each one, and show the name, version, model and dimension it reports.
Exits with status 1 if any plugin does not start.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			h, err := a.newHost(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			defer h.Close()
			statuses := h.Check(cmd.Context())
			failed := 0
			out := make([]pluginStatus, len(statuses))
			for i, st := range statuses {
				out[i] = pluginStatus{Status: st, OK: st.Err == nil}
				if st.Err != nil {
					out[i].Error = st.Err.Error()
					failed++
				}
			}
			if asJSON {
				if err := render.JSON(a.Stdout, out); err != nil {
					return err
				}
			} else {
				printPlugins(a, out)
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d plugins do not start", failed, len(out))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func printPlugins(a *App, out []pluginStatus) {
	tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tPROGRAM\tSTARTS\tVERSION\tMODEL\tDIM")
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, st := range out {
		program := st.Program
		if st.InProcess {
			program += " (in process)"
		}
		starts, dim := "yes", "-"
		if !st.OK {
			starts = "no"
		}
		if st.Dim > 0 {
			dim = fmt.Sprint(st.Dim)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.Kind, st.Name, program, starts, dash(st.Version), dash(st.Model), dim)
	}
	tw.Flush()
	for _, st := range out {
		if !st.OK {
			fmt.Fprintf(a.Stdout, "\n%s\n", st.Error)
		}
	}
}
