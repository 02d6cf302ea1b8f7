//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/huimemory/huimemory/internal/hooks"
)

// hooksProc runs bin with args in dir, with HOME set to home (and no
// CODEX_HOME), and returns stdout, stderr and the exit code.
func hooksProc(t *testing.T, bin, dir, home string, args ...string) (string, string, int) {
	t.Helper()
	return procIn(t, bin, dir, []string{"HOME=" + home, "CODEX_HOME="}, nil, args...)
}

// writeFiles writes each file (path → content) and returns the contents
// as read back.
func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// readAll returns each file's content ("<none>" when it does not exist).
func readAll(t *testing.T, paths ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		switch {
		case os.IsNotExist(err):
			out[p] = "<none>"
		case err != nil:
			t.Fatal(err)
		default:
			out[p] = string(data)
		}
	}
	return out
}

// installedCommand returns the command of the handler install wrote for
// event in a hooks file.
func installedCommand(t *testing.T, path, event, agent string) string {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, g := range doc.Hooks[event] {
		for _, h := range g.Hooks {
			if strings.HasSuffix(h.Command, " hook "+agent) {
				if h.Type != "command" || h.Timeout == 0 || g.Matcher != nil {
					t.Errorf("%s %s: %+v, matcher %v", path, event, h, g.Matcher)
				}
				return h.Command
			}
		}
	}
	t.Fatalf("%s: no %s handler for %s:\n%s", path, event, agent, data)
	return ""
}

// TestHooksInstall: install merges the hook entries and the MCP server
// into the agents' settings files, leaving the user's settings alone;
// --dry-run prints the diff and writes nothing; installing twice is
// installing once; the commands it writes work as the agent runs them
// (through sh, in the project); uninstall restores the files byte for
// byte; a malformed file is refused with one line and nothing changes.
func TestHooksInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs huimem processes")
	}
	bin := buildHuimem(t)
	user := t.TempDir()
	root, sub := project(t, "webapp")
	home := filepath.Join(t.TempDir(), "memory")

	t.Run("claude-code, user scope", func(t *testing.T) {
		settings := filepath.Join(user, ".claude", "settings.json")
		mcpFile := filepath.Join(user, ".claude.json")
		original := map[string]string{
			settings: `{
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  }
}`,
			mcpFile: `{
  "numStartups": 3,
  "mcpServers": {
    "github": {
      "type": "http",
      "url": "https://example.invalid/mcp"
    }
  }
}`,
		}
		writeFiles(t, original)
		install := []string{"--home", home, "hooks", "install", "claude-code"}

		out, errs, code := hooksProc(t, bin, sub, user, append(install, "--dry-run")...)
		if code != 0 || !strings.Contains(out, "+++ "+settings) || !strings.Contains(out, "+++ "+mcpFile) || !strings.Contains(out, `+            "command": "`+bin) {
			t.Fatalf("--dry-run: exit %d, stderr %q, stdout:\n%s", code, errs, out)
		}
		if got := readAll(t, settings, mcpFile); !cmp.Equal(got, original) {
			t.Fatalf("--dry-run wrote: %v", cmp.Diff(original, got))
		}

		if out, errs, code := hooksProc(t, bin, sub, user, install...); code != 0 || !strings.Contains(out, "hooks: "+settings) {
			t.Fatalf("install: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		installed := readAll(t, settings, mcpFile)
		if out, errs, code := hooksProc(t, bin, sub, user, install...); code != 0 {
			t.Fatalf("install again: %d %s %s", code, out, errs)
		}
		if got := readAll(t, settings, mcpFile); !cmp.Equal(got, installed) {
			t.Errorf("installing twice changed the files: %s", cmp.Diff(installed, got))
		}
		for _, ev := range hooks.ClaudeCode.Events() {
			if cmd := installedCommand(t, settings, ev, "claude-code"); cmd != bin+" --home "+home+" hook claude-code" {
				t.Errorf("%s runs %q", ev, cmd)
			}
		}
		var doc struct {
			NumStartups int `json:"numStartups"`
			MCPServers  map[string]struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		}
		json.Unmarshal([]byte(installed[mcpFile]), &doc)
		server := doc.MCPServers[hooks.ServerName]
		if doc.NumStartups != 3 || doc.MCPServers["github"].Type != "http" || server.Command != bin ||
			!cmp.Equal(server.Args, []string{"--home", home, "hooks", "mcp"}) {
			t.Errorf("~/.claude.json after install:\n%s", installed[mcpFile])
		}

		// The agent runs the commands through sh, in the project.
		transcript := filepath.Join(t.TempDir(), "s.jsonl")
		growing(t, claudeTranscript, transcript, 1000)
		agentRuns := func(command string, input []byte) string {
			c := exec.Command("sh", "-c", command)
			c.Dir = sub
			c.Stdin = bytes.NewReader(input)
			var stderr strings.Builder
			c.Stderr = &stderr
			out, err := c.Output()
			if err != nil {
				t.Fatalf("sh -c %q: %v: %s", command, err, stderr.String())
			}
			return string(out)
		}
		agentRuns(installedCommand(t, settings, "Stop", "claude-code"), payload(t, "claude-code", "Stop", transcript, sub, nil))
		wake := additionalContext(t, "SessionStart", agentRuns(installedCommand(t, settings, "SessionStart", "claude-code"),
			payload(t, "claude-code", "SessionStart", "", sub, map[string]any{"session_id": "next", "source": "startup"})))
		id := anchorIn(t, wake)
		// The MCP server it wrote serves the project's namespace, so the
		// anchors of the hooks' context are found.
		mc := exec.Command(server.Command, server.Args...)
		mc.Dir = sub
		cs := mcpClient(t, &mcp.CommandTransport{Command: mc})
		if text := mcpOK(t, cs, "recall_by_id", map[string]any{"turn_id": id}); !strings.Contains(text, "[id:"+id) {
			t.Errorf("recall_by_id %s over the installed MCP server:\n%s", id, text)
		}
		cs.Close()

		uninstall := []string{"--home", home, "hooks", "uninstall", "claude-code"}
		if out, errs, code := hooksProc(t, bin, sub, user, append(uninstall, "--dry-run")...); code != 0 || !strings.Contains(out, "-            \"command\": \""+bin) {
			t.Errorf("uninstall --dry-run: exit %d, stderr %q, stdout:\n%s", code, errs, out)
		}
		if out, errs, code := hooksProc(t, bin, sub, user, uninstall...); code != 0 || !strings.Contains(out, "removed huimem's hook entries (6)") {
			t.Fatalf("uninstall: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if got := readAll(t, settings, mcpFile); !cmp.Equal(got, original) {
			t.Errorf("uninstall did not restore the files (-original +after):\n%s", cmp.Diff(original, got))
		}
		if out, _, code := hooksProc(t, bin, sub, user, uninstall...); code != 0 || !strings.Contains(out, "no entry of huimem's") {
			t.Errorf("uninstall again: exit %d, stdout %q", code, out)
		}

		// A malformed file: one line, exit 2, and no file changes.
		broken := map[string]string{settings: `{"model": "opus", "hooks": {`, mcpFile: original[mcpFile]}
		writeFiles(t, broken)
		out, errs, code = hooksProc(t, bin, sub, user, install...)
		if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, settings) || !strings.Contains(errs, "nothing was changed") {
			t.Errorf("install on a malformed settings.json: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if got := readAll(t, settings, mcpFile); !cmp.Equal(got, broken) {
			t.Errorf("install on a malformed file changed files: %s", cmp.Diff(broken, got))
		}
		if _, errs, code := hooksProc(t, bin, sub, user, uninstall...); code == 0 || !strings.Contains(errs, "not valid JSON") {
			t.Errorf("uninstall on a malformed settings.json: exit %d, stderr %q", code, errs)
		}
	})

	t.Run("codex, project scope", func(t *testing.T) {
		hooksFile := filepath.Join(root, ".codex", "hooks.json")
		config := filepath.Join(root, ".codex", "config.toml")
		const toml = "model = \"gpt-5-codex\"\n\n[mcp_servers.context7]\ncommand = \"npx\"\nargs = [\"-y\", \"@upstash/context7-mcp\"]\n"
		writeFiles(t, map[string]string{config: toml})
		install := []string{"--home", home, "hooks", "install", "codex", "--scope", "project"}
		if out, errs, code := hooksProc(t, bin, sub, user, install...); code != 0 {
			t.Fatalf("install: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		for _, ev := range hooks.Codex.Events() {
			installedCommand(t, hooksFile, ev, "codex")
		}
		data, _ := os.ReadFile(config)
		if !strings.HasPrefix(string(data), toml) || !strings.Contains(string(data), "[mcp_servers.huimemory]\ncommand = \""+bin+"\"\nargs = [\"--home\", \""+home+"\", \"hooks\", \"mcp\"]\n") {
			t.Errorf("config.toml after install:\n%s", data)
		}
		if out, errs, code := hooksProc(t, bin, sub, user, "--home", home, "hooks", "uninstall", "codex", "--scope", "project"); code != 0 {
			t.Fatalf("uninstall: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		want := map[string]string{hooksFile: "{}\n", config: toml}
		if got := readAll(t, hooksFile, config); !cmp.Equal(got, want) {
			t.Errorf("after uninstall (-want +got):\n%s", cmp.Diff(want, got))
		}
		// A malformed config.toml is refused before any file is written.
		os.Remove(hooksFile)
		writeFiles(t, map[string]string{config: "model = \n"})
		if out, errs, code := hooksProc(t, bin, sub, user, install...); code == 0 || out != "" || !strings.Contains(errs, "not valid TOML") {
			t.Errorf("install on a malformed config.toml: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if got := readAll(t, hooksFile); got[hooksFile] != "<none>" {
			t.Errorf("hooks.json was written beside a malformed config.toml:\n%s", got[hooksFile])
		}
	})

	t.Run("flags", func(t *testing.T) {
		for _, args := range [][]string{
			{"hooks", "install", "cursor"},
			{"hooks", "install", "codex", "--scope", "team"},
			{"hooks", "install"},
		} {
			if out, errs, code := hooksProc(t, bin, sub, user, args...); code != exitUsage || strings.Count(errs, "\n") != 1 {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
			}
		}
		out, _, code := hooksProc(t, bin, sub, user, "hooks", "namespace")
		if want := hooks.ProjectNamespace(realPath(t, root)) + "\n"; code != 0 || out != want {
			t.Errorf("hooks namespace: %q, want %q", out, want)
		}
	})
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
