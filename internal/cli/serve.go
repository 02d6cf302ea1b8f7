package cli

import (
	"fmt"
	"net/http"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/mcpserver"
	"github.com/huimemory/huimemory/core/proxy"
	"github.com/huimemory/huimemory/core/server"
	"github.com/huimemory/huimemory/core/tools"
)

func (a *App) serveCmd() *cobra.Command {
	var addr, mode, upstream string
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:7878] [--mode takeover --upstream URL]",
		Short: "Serve the HTTP API (recall, turns, messages, tools, stats) and MCP at /mcp",
		Long: `Serve the HTTP API on loopback (server.addr, default 127.0.0.1:7878):

  POST /v1/recall          recall (the shape recall --json prints)
  GET  /v1/turns/{id}      recall_by_id, ?context=N
  POST /v1/messages        append one message, or {"messages": [...]}
  POST /v1/tools/{name}    run a tool call; returns its text and result
  GET  /v1/stats           counts
  GET  /healthz            liveness, no token needed
  GET  /openapi.json       the OpenAPI document
  /mcp                     MCP over streamable HTTP

In takeover mode (--mode takeover, or mode: takeover in the config) it
also serves the memory proxy, an OpenAI-compatible endpoint a host points
its OpenAI client at (see docs/takeover.md):

  POST /v1/chat/completions  stores the new user message, assembles the
                             context, calls the upstream model (--upstream
                             or takeover.upstream, key in the variable
                             takeover.api_key_env names), runs its memory
                             tool calls, stores and returns the answer

A token (server.token or HUIMEM_SERVER_TOKEN, or server.tokens bound to
namespaces) is required as "Authorization: Bearer TOKEN" when one is
configured, and to listen anywhere but loopback. SIGINT or SIGTERM shut
the server down gracefully.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, cfg, err := a.openWith(cmd.Context(), engine.Options{LongLived: true}, func(c *core.Config) {
				if addr != "" {
					c.Server.Addr = addr
				}
				if mode != "" {
					c.Mode = mode
				}
				if upstream != "" {
					c.Takeover.Upstream = upstream
				}
			})
			if err != nil {
				return err
			}
			defer e.Close()
			if err := server.CheckAddr(cfg.Server); err != nil {
				return err
			}
			opts := server.Options{
				Config: cfg.Server,
				Tools: tools.Options{Remember: true, Manage: true, Forget: true, DefaultTopK: cfg.Retriever.TopK, DefaultContext: cfg.Retriever.ContextWindow,
					Location: cfg.Time.Location()},
				Version: version(),
				Logf:    a.logf,
			}
			if cfg.Mode == core.ModeTakeover {
				opts.Takeover = &cfg.Takeover
			}
			srv, err := server.New(e, opts)
			if err != nil {
				return err
			}
			a.mountMCP(srv, cfg)
			if err := mountTakeover(srv, cfg); err != nil {
				return err
			}
			ln, err := srv.Listen()
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stderr, "huimem: serving %s on http://%s (home %s)\n", cfg.Mode, ln.Addr(), e.Home())
			if err := srv.Serve(cmd.Context(), ln); err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			fmt.Fprintln(a.Stderr, "huimem: server stopped")
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "", "address to listen on (default server.addr, 127.0.0.1:7878)")
	cmd.Flags().StringVar(&mode, "mode", "", "enhance or takeover (default mode); takeover also serves the memory proxy at POST /v1/chat/completions")
	cmd.Flags().StringVar(&upstream, "upstream", "", "takeover mode: the upstream model's OpenAI-compatible base URL, such as http://127.0.0.1:11434/v1 (default takeover.upstream)")
	return cmd
}

// mountTakeover mounts the memory proxy at /v1/chat/completions, behind
// the server's tokens, when the mode is takeover.
func mountTakeover(srv *server.Server, cfg core.Config) error {
	if cfg.Mode != core.ModeTakeover {
		return nil
	}
	h, err := proxy.New(srv.Memory(), proxy.Options{
		Config:    cfg.Takeover,
		APIKey:    os.Getenv(cfg.Takeover.APIKeyEnv),
		Tools:     tools.Options{DefaultTopK: cfg.Retriever.TopK, DefaultContext: cfg.Retriever.ContextWindow, Location: cfg.Time.Location()},
		MaxBodyMB: cfg.Server.MaxBodyMB,
	})
	if err != nil {
		return UsageError{err}
	}
	srv.Handle("/v1/chat/completions", h)
	return nil
}

// version is the module version huimem was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// mountMCP mounts MCP over streamable HTTP at /mcp, behind the server's
// tokens: each request gets the dispatcher its token allows.
func (a *App) mountMCP(srv *server.Server, cfg core.Config) {
	var ext []mcpserver.Extension
	if cfg.Mode == core.ModeTakeover {
		ext = append(ext, mcpserver.KernelTools(srv.Kernel))
	}
	maxBodyMB := cfg.Server.MaxBodyMB
	h := mcpserver.HTTPHandler(func(r *http.Request) (*tools.Dispatcher, error) {
		if d := server.DispatcherFrom(r.Context()); d != nil {
			return d, nil
		}
		return nil, mcpserver.ErrForbidden
	}, ext...)
	srv.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, int64(maxBodyMB)<<20)
		h.ServeHTTP(w, r)
	}))
}
