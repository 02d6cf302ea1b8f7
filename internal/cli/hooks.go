package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/internal/hooks"
)

func (a *App) hooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install HuiMemory's hooks into Claude Code or Codex, or remove them",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return Usagef("hooks: give a subcommand: install, uninstall, mcp or namespace")
		},
	}
	cmd.AddCommand(a.hooksEditCmd(true), a.hooksEditCmd(false), a.hooksMCPCmd(), a.hooksNamespaceCmd())
	return cmd
}

// hooksEditCmd is `hooks install` (install set) or `hooks uninstall`.
func (a *App) hooksEditCmd(install bool) *cobra.Command {
	var settings, mcpSettings, scope string
	var dryRun, noMCP bool
	verb := "uninstall"
	short := "Remove exactly the hook entries and the MCP server entry that install wrote"
	if install {
		verb = "install"
		short = "Add HuiMemory's hook entries and its MCP server to an agent's settings"
	}
	cmd := &cobra.Command{
		Use:   verb + " claude-code|codex [--scope user|project] [--settings PATH] [--dry-run]",
		Short: short,
		Long: short + `.

Claude Code: the hooks go into ~/.claude/settings.json (--scope user, the
default) or <project>/.claude/settings.json (--scope project), for
SessionStart, UserPromptSubmit, Stop, SubagentStop, PreCompact and
SessionEnd; the MCP server "huimemory" into ~/.claude.json or
<project>/.mcp.json. Codex: the hooks go into ~/.codex/hooks.json
($CODEX_HOME) or <project>/.codex/hooks.json, for SessionStart,
UserPromptSubmit, Stop, SubagentStop and PreCompact; the MCP server into
the config.toml beside it, as [mcp_servers.huimemory]. The project is the
git root of the current folder, else the folder itself.

Each hook runs this huimem binary with this home: "huimem --home HOME hook
AGENT". The MCP server is "huimem --home HOME hooks mcp", which serves the
namespace of the project the agent runs in. Every other setting in the
files stays as it was, and installing twice is installing once; uninstall
removes what install wrote and leaves the rest. A file that is not valid
JSON (or TOML) is refused with one line, and no file is changed. An MCP
server "huimemory" that install did not write is left as it is.

--dry-run prints the changes as a diff and writes nothing. --settings and
--mcp-settings name other files (such as .claude/settings.local.json);
--no-mcp leaves the MCP server out.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			agent, err := hooks.ParseAgent(args[0])
			if err != nil {
				return Usagef("hooks %s: %v", verb, err)
			}
			sc, err := hooks.ParseScope(scope)
			if err != nil {
				return Usagef("hooks %s: --scope: %v", verb, err)
			}
			files, err := hookFiles(agent, sc)
			if err != nil {
				return err
			}
			if settings != "" {
				files.Hooks = settings
			}
			if mcpSettings != "" {
				files.MCP = mcpSettings
			}
			var edits []fileEdit
			var notes []string
			if install {
				edits, notes, err = a.installEdits(agent, files, noMCP)
			} else {
				edits, notes, err = uninstallEdits(agent, files, noMCP)
			}
			if err != nil {
				return err
			}
			for _, e := range edits {
				if dryRun {
					fmt.Fprint(a.Stdout, hooks.Diff(e.path, e.before, e.after))
				} else if err := writeSettings(e.path, e.after); err != nil {
					return err
				}
			}
			if dryRun {
				if len(edits) == 0 {
					fmt.Fprintf(a.Stdout, "hooks %s %s: nothing to change\n", verb, agent)
				}
				return nil
			}
			for _, n := range notes {
				fmt.Fprintln(a.Stdout, n)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&scope, "scope", "user", "user (every project) or project (the one in the current folder)")
	f.StringVar(&settings, "settings", "", "the hooks file to edit instead of the scope's")
	f.StringVar(&mcpSettings, "mcp-settings", "", "the MCP servers file to edit instead of the scope's")
	f.BoolVar(&noMCP, "no-mcp", false, "leave the MCP server entry alone")
	f.BoolVar(&dryRun, "dry-run", false, "print the changes as a diff; write nothing")
	return cmd
}

// fileEdit is one settings file's content before and after.
type fileEdit struct {
	path          string
	before, after []byte
}

// hookFiles returns the agent's settings files for a scope.
func hookFiles(agent hooks.Agent, sc hooks.Scope) (hooks.Files, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return hooks.Files{}, fmt.Errorf("finding the home folder: %w", err)
	}
	project, err := hooks.ProjectRoot(".")
	if err != nil {
		return hooks.Files{}, err
	}
	return hooks.SettingsFiles(agent, sc, home, project, os.Getenv("CODEX_HOME")), nil
}

// installEdits works out what install changes, reading the files and
// writing nothing.
func (a *App) installEdits(agent hooks.Agent, files hooks.Files, noMCP bool) ([]fileEdit, []string, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, nil, err
	}
	home, err := filepath.Abs(cfg.Storage.Home)
	if err != nil {
		return nil, nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("finding the huimem binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	base := []string{"--home", home}
	if a.Config != "" {
		c, err := filepath.Abs(a.Config)
		if err != nil {
			return nil, nil, err
		}
		base = append(base, "--config", c)
	}
	command := shellJoin(slices.Concat([]string{exe}, base, []string{"hook", string(agent)}))
	var edits []fileEdit
	var notes []string
	before, err := readSettings(files.Hooks)
	if err != nil {
		return nil, nil, err
	}
	after, err := hooks.AddHooks(before, agent, command)
	if err != nil {
		return nil, nil, Usagef("%s: %v; nothing was changed", files.Hooks, err)
	}
	if !bytes.Equal(before, after) {
		edits = append(edits, fileEdit{files.Hooks, before, after})
	}
	notes = append(notes, fmt.Sprintf("hooks: %s runs %q on %s", files.Hooks, command, strings.Join(agent.Events(), ", ")))
	if !noMCP {
		before, err := readSettings(files.MCP)
		if err != nil {
			return nil, nil, err
		}
		args := slices.Concat(base, []string{"hooks", "mcp"})
		var after []byte
		if agent == hooks.Codex {
			after, err = hooks.AddServerTOML(before, files.MCP, exe, args)
		} else {
			after, err = hooks.AddServerJSON(before, files.MCP, exe, args)
		}
		var exists *hooks.ServerExistsError
		switch {
		case errors.As(err, &exists):
			notes = append(notes, "mcp: "+exists.Error()+"; for the anchors of the hooks' context, it needs to serve the project's namespace, as \"huimem hooks mcp\" does")
		case err != nil:
			return nil, nil, Usagef("%s: %v; nothing was changed", files.MCP, err)
		default:
			if !bytes.Equal(before, after) {
				edits = append(edits, fileEdit{files.MCP, before, after})
			}
			notes = append(notes, fmt.Sprintf("mcp: %s has the server %q: %s", files.MCP, hooks.ServerName, shellJoin(append([]string{exe}, args...))))
		}
	}
	switch agent {
	case hooks.ClaudeCode:
		notes = append(notes, "Claude Code reads the hooks when a session starts; /hooks lists them, and a project's .mcp.json servers wait for your approval.")
	case hooks.Codex:
		notes = append(notes, "Codex asks you to review and trust new hooks before it runs them (older versions also need [features] codex_hooks = true in config.toml).")
	}
	return edits, notes, nil
}

// uninstallEdits works out what uninstall changes.
func uninstallEdits(agent hooks.Agent, files hooks.Files, noMCP bool) ([]fileEdit, []string, error) {
	var edits []fileEdit
	var notes []string
	before, err := readSettings(files.Hooks)
	if err != nil {
		return nil, nil, err
	}
	after, n, err := hooks.RemoveHooks(before, agent)
	if err != nil {
		return nil, nil, Usagef("%s: %v; nothing was changed", files.Hooks, err)
	}
	if n > 0 {
		edits = append(edits, fileEdit{files.Hooks, before, after})
		notes = append(notes, fmt.Sprintf("hooks: removed huimem's hook entries (%d) from %s", n, files.Hooks))
	} else {
		notes = append(notes, fmt.Sprintf("hooks: %s has no entry of huimem's", files.Hooks))
	}
	if !noMCP {
		before, err := readSettings(files.MCP)
		if err != nil {
			return nil, nil, err
		}
		var after []byte
		var found bool
		if agent == hooks.Codex {
			after, found, err = hooks.RemoveServerTOML(before)
		} else {
			after, found, err = hooks.RemoveServerJSON(before)
		}
		if err != nil {
			return nil, nil, Usagef("%s: %v; nothing was changed", files.MCP, err)
		}
		if found {
			edits = append(edits, fileEdit{files.MCP, before, after})
			notes = append(notes, fmt.Sprintf("mcp: removed the server %q from %s", hooks.ServerName, files.MCP))
		} else {
			notes = append(notes, fmt.Sprintf("mcp: %s has no server of huimem's", files.MCP))
		}
	}
	return edits, notes, nil
}

// readSettings reads a settings file; a missing one is empty.
func readSettings(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}

// writeSettings replaces a settings file atomically: a temporary file in
// its folder, fsync, rename. A symbolic link is followed, so that a
// dotfile managed elsewhere stays a link; the file keeps its mode (a new
// one gets 0600, as these files may hold tokens).
func writeSettings(path string, data []byte) error {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".huimem-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// shellJoin joins words into a command line for sh, quoting those that
// need it.
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.IndexFunc(w, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r))
		}) < 0 {
			out[i] = w
			continue
		}
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

func (a *App) hooksMCPCmd() *cobra.Command {
	var noRemember bool
	var mode string
	cmd := &cobra.Command{
		Use:   "mcp [--no-remember] [--mode M]",
		Short: "Serve MCP on stdio for the project in the current folder (the hooks' namespace)",
		Long: `Serve HuiMemory's tools over MCP on stdio, as "huimem mcp" does, on the
namespace the hooks use for the project in the current folder
(hooks.namespace, else the project's own; see "huimem hooks namespace").
Agents start their MCP servers in the folder they run in, so the ids in
the hooks' context are found by recall_by_id. "huimem hooks install"
writes this command as the MCP server "huimemory".`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			ns, err := hookNamespace(cfg, "")
			if err != nil {
				return err
			}
			mcp := a.mcpCmd()
			mcp.SetArgs(append([]string{"--namespace", ns, "--no-remember=" + fmt.Sprint(noRemember)}, modeArgs(mode)...))
			mcp.SetIn(a.Stdin)
			mcp.SetOut(a.Stdout)
			mcp.SetErr(a.Stderr)
			mcp.SilenceErrors, mcp.SilenceUsage = true, true
			return mcp.ExecuteContext(cmd.Context())
		},
	}
	cmd.Flags().BoolVar(&noRemember, "no-remember", false, "leave out remember")
	cmd.Flags().StringVar(&mode, "mode", "", "enhance or takeover, as for huimem mcp")
	return cmd
}

func modeArgs(mode string) []string {
	if mode == "" {
		return nil
	}
	return []string{"--mode", mode}
}

func (a *App) hooksNamespaceCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "namespace [DIR]",
		Short: "Print the namespace the hooks use for the project in DIR (default the current folder)",
		Long: `Print the namespace the hooks read and write for the project in DIR (default
the current folder): hooks.namespace when it is set, else the project's
own, from its root folder (the git root, else DIR): the folder's name and
a short hash of its path. For example:

  huimem recall -n "$(huimem hooks namespace)" "why does TestIngest flake"`,
		Args: wrapArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
				if !homeExists(dir) {
					return Usagef("hooks namespace: %s is not a folder", dir)
				}
			}
			ns, err := hookNamespace(cfg, dir)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.Stdout, ns)
			return nil
		},
	}
}
