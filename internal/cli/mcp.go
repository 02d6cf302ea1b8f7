package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/kernel"
	"github.com/huimemory/huimemory/core/mcpserver"
	"github.com/huimemory/huimemory/core/tools"
)

func (a *App) mcpCmd() *cobra.Command {
	var ns, mode string
	var noRemember, noForget, readOnly bool
	cmd := &cobra.Command{
		Use:   "mcp [--namespace NS] [--no-remember] [--no-forget] [--read-only]",
		Short: "Serve HuiMemory's tools to an MCP host over stdio",
		Long: `Serve HuiMemory's tools over the Model Context Protocol on stdin and stdout,
for an MCP host (Claude Desktop, Claude Code, an IDE) that starts this command.

The tools are recall_memory, recall_by_id, list_sessions, memory_stats,
resolve_time and export_session, which only read, and remember and
forget_memory, which write; --no-remember and --no-forget leave those two
out, and --read-only both. Their schemas are those "huimem tools --format
mcp --all" prints. Every call reads and writes the one namespace --namespace
names (default: the default namespace). The server runs until the host
closes stdin or sends SIGTERM or SIGINT, then closes the home cleanly.
Stdout carries the protocol only; messages go to stderr.

The home is opened with shared access: other huimem commands, servers and
hosts' "huimem mcp" can use it at the same time, and a write waits at most
storage.lock_wait for another process's write.

A host's configuration, for example Claude Desktop's:
  {"mcpServers": {"huimemory": {"command": "huimem", "args": ["mcp", "--home", "/path/to/home"]}}}`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if ns != "" {
				if err := core.ValidateNamespace(ns); err != nil {
					return Usagef("mcp: --namespace: %v", err)
				}
			}
			e, cfg, err := a.open(cmd.Context(), engine.Options{LongLived: true})
			if err != nil {
				return err
			}
			d := tools.New(e, tools.Options{
				Namespace:   ns,
				Remember:    !noRemember && !readOnly,
				Manage:      true,
				Forget:      !noForget && !readOnly,
				DefaultTopK: min(cfg.Retriever.TopK, tools.DefaultMaxTopK),
				Location:    cfg.Time.Location(),
			})
			if mode == "" {
				mode = cfg.Mode
			}
			var ext []mcpserver.Extension
			switch mode {
			case core.ModeTakeover:
				ext = append(ext, mcpserver.KernelTools(func(d *tools.Dispatcher) (*kernel.Kernel, error) {
					return kernel.New(e, kernel.Options{Config: cfg.Takeover, Tools: d.Options()})
				}))
			case core.ModeEnhance:
			default:
				e.Close()
				return Usagef("mcp: --mode %q is not enhance or takeover", mode)
			}
			err = a.serveMCP(cmd.Context(), d, e.Home(), ext...)
			if cerr := e.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("closing the home: %w", cerr)
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&ns, "namespace", "n", "", "namespace every tool call reads and writes (default: the default namespace)")
	cmd.Flags().BoolVar(&noRemember, "no-remember", false, "leave out remember")
	cmd.Flags().BoolVar(&noForget, "no-forget", false, "leave out forget_memory")
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "serve only the tools that read: no remember, no forget_memory")
	cmd.Flags().StringVar(&mode, "mode", "", "enhance (the recall tools) or takeover (also memory_append, memory_context, memory_sessions, memory_close_session); default the config's mode")
	return cmd
}

// serveMCP serves d over the app's stdin and stdout until the client
// closes stdin or ctx ends (SIGTERM, SIGINT); either is a clean stop.
func (a *App) serveMCP(ctx context.Context, d *tools.Dispatcher, home string, ext ...mcpserver.Extension) error {
	names := make([]string, 0, 8)
	for _, t := range d.Tools() {
		names = append(names, t.Name)
	}
	ns := d.Options().Namespace
	if ns == "" {
		ns = "default"
	}
	a.logf("huimem mcp: serving %s on stdio (home %s, namespace %s)", strings.Join(names, ", "), home, ns)
	t := &mcp.IOTransport{Reader: io.NopCloser(a.Stdin), Writer: nopWriteCloser{a.Stdout}}
	err := mcpserver.New(d, "", ext...).Run(ctx, t)
	switch {
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrClosedPipe):
		a.logf("huimem mcp: the client closed the connection; stopping")
		return nil
	case ctx.Err() != nil:
		a.logf("huimem mcp: %v; stopping", context.Cause(ctx))
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

// nopWriteCloser keeps the transport from closing the app's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
