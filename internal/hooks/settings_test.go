package hooks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	ccCommand    = "/usr/local/bin/huimem --home /home/u/.huimem hook claude-code"
	codexCommand = "/usr/local/bin/huimem --home /home/u/.huimem hook codex"
)

// userSettings is a settings.json as Claude Code writes it
// (JSON.stringify with two spaces, no final newline), with hooks of the
// user's own in two of the events install writes.
const userSettings = `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ],
    "deny": []
  },
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
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/check.sh",
            "timeout": 5
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo hello"
          }
        ]
      }
    ]
  },
  "env": {
    "FOO": "1.50"
  }
}`

// handlers returns the commands of every handler in a hooks file, by
// event.
func handlers(t *testing.T, data []byte) map[string][]string {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	out := map[string][]string{}
	for ev, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				out[ev] = append(out[ev], h.Command)
			}
		}
	}
	return out
}

func TestAddRemoveHooks(t *testing.T) {
	tests := []struct {
		name     string
		agent    Agent
		command  string
		original string
		// want are the handlers after install.
		want map[string][]string
	}{
		{"claude-code, no file", ClaudeCode, ccCommand, "", map[string][]string{
			"SessionStart": {ccCommand}, "UserPromptSubmit": {ccCommand}, "Stop": {ccCommand},
			"SubagentStop": {ccCommand}, "PreCompact": {ccCommand}, "SessionEnd": {ccCommand},
		}},
		{"claude-code, the user's settings", ClaudeCode, ccCommand, userSettings, map[string][]string{
			"SessionStart": {"echo hello", ccCommand}, "UserPromptSubmit": {ccCommand}, "Stop": {"notify-send done", ccCommand},
			"SubagentStop": {ccCommand}, "PreCompact": {ccCommand}, "SessionEnd": {ccCommand}, "PreToolUse": {"/opt/check.sh"},
		}},
		{"codex, with a final newline", Codex, codexCommand, userSettings + "\n", map[string][]string{
			"SessionStart": {"echo hello", codexCommand}, "UserPromptSubmit": {codexCommand}, "Stop": {"notify-send done", codexCommand},
			"SubagentStop": {codexCommand}, "PreCompact": {codexCommand}, "PreToolUse": {"/opt/check.sh"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			added, err := AddHooks([]byte(tt.original), tt.agent, tt.command)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, handlers(t, added)); diff != "" {
				t.Errorf("handlers after install (-want +got):\n%s", diff)
			}
			again, err := AddHooks(added, tt.agent, tt.command)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(added), string(again)); diff != "" {
				t.Errorf("installing twice changed the file (-once +twice):\n%s", diff)
			}
			removed, n, err := RemoveHooks(added, tt.agent)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(tt.agent.Events()) {
				t.Errorf("removed %d handlers, want %d", n, len(tt.agent.Events()))
			}
			want := tt.original
			if want == "" {
				want = "{}\n"
			}
			if diff := cmp.Diff(want, string(removed)); diff != "" {
				t.Errorf("uninstall did not restore the file (-original +after):\n%s", diff)
			}
		})
	}
}

func TestAddHooksUpdatesInPlace(t *testing.T) {
	first, err := AddHooks([]byte(userSettings), ClaudeCode, ccCommand)
	if err != nil {
		t.Fatal(err)
	}
	moved := "'/opt/huimem dev/huimem' --home /h hook claude-code"
	second, err := AddHooks(first, ClaudeCode, moved)
	if err != nil {
		t.Fatal(err)
	}
	got := handlers(t, second)
	if diff := cmp.Diff([]string{"notify-send done", moved}, got["Stop"]); diff != "" {
		t.Errorf("Stop (-want +got):\n%s", diff)
	}
	// The other agent's handlers are not this one's.
	both, err := AddHooks(second, Codex, codexCommand)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := RemoveHooks(both, Codex)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(second), string(back)); diff != "" {
		t.Errorf("removing codex's touched claude-code's (-want +got):\n%s", diff)
	}
}

func TestHooksFileErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"not JSON", `{"hooks": {`, "not valid JSON"},
		{"trailing garbage", `{} {}`, "data after the object"},
		{"an array", `[1]`, "not a JSON object"},
		{"hooks not an object", `{"hooks": []}`, `"hooks" must be a JSON object`},
		{"event not an array", `{"hooks": {"Stop": {"hooks": []}}}`, "hooks.Stop must be a JSON array"},
		{"group not an object", `{"hooks": {"Stop": [1]}}`, "hooks.Stop[0]: must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := AddHooks([]byte(tt.data), ClaudeCode, ccCommand)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("AddHooks: %v, want an error with %q", err, tt.want)
			}
			if _, _, err := RemoveHooks([]byte(tt.data), ClaudeCode); err == nil {
				t.Errorf("RemoveHooks: no error")
			}
		})
	}
}

func TestServerJSON(t *testing.T) {
	const claudeJSON = `{
  "numStartups": 12,
  "projects": {
    "/home/u/src/a": {
      "allowedTools": []
    }
  },
  "mcpServers": {
    "github": {
      "type": "http",
      "url": "https://example.invalid/mcp"
    }
  }
}`
	args := []string{"--home", "/home/u/.huimem", "hooks", "mcp"}
	for _, original := range []string{"", `{"numStartups": 1}`, claudeJSON} {
		added, err := AddServerJSON([]byte(original), "f", "/usr/local/bin/huimem", args)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal(added, &doc); err != nil {
			t.Fatal(err)
		}
		if s := doc.MCPServers[ServerName]; s.Command != "/usr/local/bin/huimem" || !cmp.Equal(s.Args, args) {
			t.Errorf("server entry %+v", s)
		}
		again, _ := AddServerJSON(added, "f", "/usr/local/bin/huimem", args)
		if string(again) != string(added) {
			t.Errorf("adding twice changed the file")
		}
		removed, found, err := RemoveServerJSON(added)
		if err != nil || !found {
			t.Fatalf("remove: %v, %v", found, err)
		}
		want := original
		switch original {
		case "":
			want = "{}\n"
		case `{"numStartups": 1}`:
			want = "{\n  \"numStartups\": 1\n}"
		}
		if diff := cmp.Diff(want, string(removed)); diff != "" {
			t.Errorf("remove did not restore the file (-want +got):\n%s", diff)
		}
	}
	theirs := `{"mcpServers": {"huimemory": {"command": "huimem", "args": ["mcp", "--home", "/x"]}}}`
	out, err := AddServerJSON([]byte(theirs), "f", "/usr/local/bin/huimem", args)
	var exists *ServerExistsError
	if !errors.As(err, &exists) || string(out) != theirs {
		t.Errorf("a server of the user's: %v, %s", err, out)
	}
	if out, found, err := RemoveServerJSON([]byte(theirs)); found || err != nil || string(out) != theirs {
		t.Errorf("removing a server of the user's: %v %v %s", found, err, out)
	}
}

func TestServerTOML(t *testing.T) {
	const config = `model = "gpt-5-codex"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
`
	args := []string{"--home", `/home/u/my "mem"`, "hooks", "mcp"}
	for _, original := range []string{"", config, strings.TrimSuffix(config, "\n")} {
		added, err := AddServerTOML([]byte(original), "f", "/usr/local/bin/huimem", args)
		if err != nil {
			t.Fatal(err)
		}
		servers, err := tomlServers(added)
		if err != nil {
			t.Fatalf("%v\n%s", err, added)
		}
		s, _ := servers[ServerName].(map[string]any)
		if s["command"] != "/usr/local/bin/huimem" || len(s["args"].([]any)) != 4 || s["args"].([]any)[1] != `/home/u/my "mem"` {
			t.Errorf("server %v in\n%s", s, added)
		}
		if _, ok := servers["context7"]; original != "" && !ok {
			t.Errorf("context7 is gone:\n%s", added)
		}
		again, err := AddServerTOML(added, "f", "/usr/local/bin/huimem", args)
		if err != nil || string(again) != string(added) {
			t.Errorf("adding twice: %v\n%s", err, again)
		}
		removed, found, err := RemoveServerTOML(added)
		if err != nil || !found {
			t.Fatalf("remove: %v %v", found, err)
		}
		want := original
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if diff := cmp.Diff(want, string(removed)); diff != "" {
			t.Errorf("remove did not restore the file (-want +got):\n%s", diff)
		}
	}
	tests := []struct{ name, data, want string }{
		{"not TOML", "model = \n", "not valid TOML"},
		{"a table of the user's", "[mcp_servers.huimemory]\ncommand = \"huimem\"\n", "did not write"},
		{"an inline table", "mcp_servers = { a = { command = \"x\" } }\n", "would make it invalid"},
		{"a begin line without its end", tomlBegin + "\n[mcp_servers.huimemory]\ncommand = \"x\"\n", "not the line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AddServerTOML([]byte(tt.data), "f", "huimem", args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if out != nil && string(out) != tt.data {
				t.Errorf("the file changed:\n%s", out)
			}
		})
	}
}

func TestSettingsFiles(t *testing.T) {
	tests := []struct {
		agent Agent
		scope Scope
		codex string
		want  Files
	}{
		{ClaudeCode, ScopeUser, "", Files{"/h/.claude/settings.json", "/h/.claude.json"}},
		{ClaudeCode, ScopeProject, "", Files{"/p/.claude/settings.json", "/p/.mcp.json"}},
		{Codex, ScopeUser, "", Files{"/h/.codex/hooks.json", "/h/.codex/config.toml"}},
		{Codex, ScopeUser, "/c", Files{"/c/hooks.json", "/c/config.toml"}},
		{Codex, ScopeProject, "/c", Files{"/p/.codex/hooks.json", "/p/.codex/config.toml"}},
	}
	for _, tt := range tests {
		if got := SettingsFiles(tt.agent, tt.scope, "/h", "/p", tt.codex); got != tt.want {
			t.Errorf("%s %s: %+v, want %+v", tt.agent, tt.scope, got, tt.want)
		}
	}
}

func TestDiff(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\n"
	b := "a\nb\nc\nd\nE\nf\ng\nh\ni\n"
	want := `--- f
+++ f
@@ -2,7 +2,8 @@
 b
 c
 d
-e
+E
 f
 g
 h
+i
`
	if diff := cmp.Diff(want, Diff("f", []byte(a), []byte(b))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := Diff("f", []byte(a), []byte(a)); got != "" {
		t.Errorf("equal files: %q", got)
	}
	if got := Diff("f", nil, []byte("x\n")); got != "--- /dev/null\n+++ f\n@@ -0,0 +1,1 @@\n+x\n" {
		t.Errorf("a new file: %q", got)
	}
}
