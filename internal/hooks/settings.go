package hooks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Scope says which settings files install writes: the user's (every
// project) or one project's.
type Scope string

// The scopes.
const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// ParseScope returns the scope named s.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case ScopeUser, ScopeProject:
		return Scope(s), nil
	}
	return "", fmt.Errorf("unknown scope %q (user or project)", s)
}

// Files are the settings files of an agent that install edits.
type Files struct {
	// Hooks holds the hook entries: Claude Code's settings.json, Codex's
	// hooks.json.
	Hooks string
	// MCP holds the MCP server entry: Claude Code's ~/.claude.json (user)
	// or .mcp.json (project), Codex's config.toml.
	MCP string
}

// SettingsFiles returns where an agent keeps its settings for a scope.
// home is the user's home folder, project the project's root folder and
// codexHome $CODEX_HOME ("" means ~/.codex).
func SettingsFiles(a Agent, s Scope, home, project, codexHome string) Files {
	switch {
	case a == ClaudeCode && s == ScopeUser:
		return Files{Hooks: filepath.Join(home, ".claude", "settings.json"), MCP: filepath.Join(home, ".claude.json")}
	case a == ClaudeCode:
		return Files{Hooks: filepath.Join(project, ".claude", "settings.json"), MCP: filepath.Join(project, ".mcp.json")}
	case s == ScopeUser:
		if codexHome == "" {
			codexHome = filepath.Join(home, ".codex")
		}
		return Files{Hooks: filepath.Join(codexHome, "hooks.json"), MCP: filepath.Join(codexHome, "config.toml")}
	}
	return Files{Hooks: filepath.Join(project, ".codex", "hooks.json"), MCP: filepath.Join(project, ".codex", "config.toml")}
}

// timeout is the bound, in seconds, install sets on a hook: the agent
// ends a hook that runs longer (the capture is then the next one's).
func timeout(event string) int {
	if ActionOf(event) == Capture {
		return 60
	}
	return 10
}

// isOurs reports whether a hook handler's command is one install
// writes for agent a: a huimem binary running "hook AGENT".
func isOurs(command string, a Agent) bool {
	f := strings.Fields(command)
	if len(f) < 3 || f[len(f)-2] != "hook" || f[len(f)-1] != string(a) {
		return false
	}
	return strings.HasPrefix(filepath.Base(strings.Trim(f[0], `'"`)), "huimem")
}

// AddHooks returns a hooks file (Claude Code's settings.json or Codex's
// hooks.json; both nest event → groups → handlers the same way) with a
// group for each of a's events that runs command, and everything else as
// it was. A handler written before (see isOurs) is updated where it is
// instead of added again, so installing twice is installing once. data
// may be empty (no file yet).
func AddHooks(data []byte, a Agent, command string) ([]byte, error) {
	return editHooks(data, a, func(event string, groups []json.RawMessage) ([]json.RawMessage, error) {
		handler, _ := json.Marshal(struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		}{"command", command, timeout(event)})
		found := false
		for i, g := range groups {
			out, n, err := editGroup(g, a, func(json.RawMessage) (json.RawMessage, bool) {
				if found {
					return nil, false // a second copy goes
				}
				found = true
				return handler, true
			})
			if err != nil {
				return nil, fmt.Errorf("hooks.%s[%d]: %w", event, i, err)
			}
			if n > 0 {
				groups[i] = out
			}
		}
		groups = slices.DeleteFunc(groups, func(g json.RawMessage) bool { return g == nil })
		if !found {
			group := object{{"hooks", rawArray([]json.RawMessage{handler})}}
			groups = append(groups, group.raw())
		}
		return groups, nil
	})
}

// RemoveHooks returns a hooks file without the handlers [AddHooks]
// writes for a, and without the groups and events left empty by their
// going (an empty "hooks" object goes too); everything else stays as it
// was. It also returns how many handlers it removed.
func RemoveHooks(data []byte, a Agent) ([]byte, int, error) {
	removed := 0
	out, err := editHooks(data, a, func(event string, groups []json.RawMessage) ([]json.RawMessage, error) {
		for i, g := range groups {
			out, n, err := editGroup(g, a, func(json.RawMessage) (json.RawMessage, bool) { return nil, false })
			if err != nil {
				return nil, fmt.Errorf("hooks.%s[%d]: %w", event, i, err)
			}
			removed += n
			if n > 0 {
				groups[i] = out
			}
		}
		return slices.DeleteFunc(groups, func(g json.RawMessage) bool { return g == nil }), nil
	})
	return out, removed, err
}

// editHooks applies edit to the groups of each of a's events in a hooks
// file. An event whose groups edit empties is removed, and so is a
// "hooks" object it empties.
func editHooks(data []byte, a Agent, edit func(event string, groups []json.RawMessage) ([]json.RawMessage, error)) ([]byte, error) {
	doc, err := parseObject(data, "the file")
	if err != nil {
		return nil, err
	}
	hooks, err := doc.subObject("hooks", `"hooks"`)
	if err != nil {
		return nil, err
	}
	_, had := doc.get("hooks")
	changed := false
	for _, event := range a.Events() {
		var groups []json.RawMessage
		v, ok := hooks.get(event)
		if ok {
			if groups, err = array(v, "hooks."+event); err != nil {
				return nil, err
			}
		}
		before := len(groups)
		if groups, err = edit(event, groups); err != nil {
			return nil, err
		}
		switch {
		case len(groups) == 0 && ok && before > 0:
			hooks.remove(event)
			changed = true
		case len(groups) > 0:
			hooks.set(event, rawArray(groups))
			changed = true
		}
	}
	if !changed {
		return data, nil
	}
	if len(hooks) == 0 && had {
		doc.remove("hooks")
	} else {
		doc.set("hooks", hooks.raw())
	}
	if len(data) > 0 && jsonEqual(doc.raw(), data) {
		return data, nil // nothing to change: the file stays as it is
	}
	return format(doc.raw(), data)
}

// editGroup applies edit to each of a group's handlers that isOurs: edit
// returns the handler's replacement, or false to remove it. It returns
// the group (nil when its handlers are all gone) and how many handlers
// edit was given.
func editGroup(g json.RawMessage, a Agent, edit func(json.RawMessage) (json.RawMessage, bool)) (json.RawMessage, int, error) {
	group, err := parseObject(g, "a hook group")
	if err != nil {
		return nil, 0, fmt.Errorf("must be a JSON object")
	}
	v, ok := group.get("hooks")
	if !ok {
		return g, 0, nil
	}
	handlers, err := array(v, "its hooks")
	if err != nil {
		return nil, 0, err
	}
	n := 0
	kept := handlers[:0:0]
	for _, h := range handlers {
		var cmd struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(h, &cmd) != nil || !isOurs(cmd.Command, a) {
			kept = append(kept, h)
			continue
		}
		n++
		if nh, keep := edit(h); keep {
			kept = append(kept, nh)
		}
	}
	if n == 0 {
		return g, 0, nil
	}
	if len(kept) == 0 {
		return nil, n, nil
	}
	group.set("hooks", rawArray(kept))
	return group.raw(), n, nil
}

// ServerName is the name of the MCP server entry install writes.
const ServerName = "huimemory"

// isOurServer reports whether an MCP server entry is one install writes:
// a huimem binary running "hooks mcp".
func isOurServer(v json.RawMessage) bool {
	var s struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(v, &s) != nil || !strings.HasPrefix(filepath.Base(s.Command), "huimem") {
		return false
	}
	for i := 0; i+1 < len(s.Args); i++ {
		if s.Args[i] == "hooks" && s.Args[i+1] == "mcp" {
			return true
		}
	}
	return false
}

// ServerExistsError reports an MCP server entry named [ServerName] that
// install did not write: it is left as it is.
type ServerExistsError struct{ File string }

func (e *ServerExistsError) Error() string {
	return fmt.Sprintf("%s has an MCP server %q that huimem hooks install did not write; it is left as it is", e.File, ServerName)
}

// AddServerJSON returns a JSON file of MCP servers (Claude Code's
// ~/.claude.json or .mcp.json) whose "mcpServers" object has the entry
// {"command": command, "args": args} under [ServerName], and everything
// else as it was. An entry of that name that install did not write is
// left alone: the data comes back unchanged with a [*ServerExistsError].
func AddServerJSON(data []byte, file, command string, args []string) ([]byte, error) {
	doc, err := parseObject(data, "the file")
	if err != nil {
		return nil, err
	}
	servers, err := doc.subObject("mcpServers", `"mcpServers"`)
	if err != nil {
		return nil, err
	}
	if v, ok := servers.get(ServerName); ok && !isOurServer(v) {
		return data, &ServerExistsError{File: file}
	}
	entry, _ := json.Marshal(struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}{"stdio", command, args})
	if v, ok := servers.get(ServerName); ok && jsonEqual(v, entry) {
		return data, nil
	}
	servers.set(ServerName, entry)
	doc.set("mcpServers", servers.raw())
	return format(doc.raw(), data)
}

// RemoveServerJSON returns the file without the MCP server entry
// [AddServerJSON] writes (an "mcpServers" object it leaves empty goes
// too), and whether there was one.
func RemoveServerJSON(data []byte) ([]byte, bool, error) {
	doc, err := parseObject(data, "the file")
	if err != nil {
		return nil, false, err
	}
	servers, err := doc.subObject("mcpServers", `"mcpServers"`)
	if err != nil {
		return nil, false, err
	}
	if v, ok := servers.get(ServerName); !ok || !isOurServer(v) {
		return data, false, nil
	}
	servers.remove(ServerName)
	if len(servers) == 0 {
		doc.remove("mcpServers")
	} else {
		doc.set("mcpServers", servers.raw())
	}
	out, err := format(doc.raw(), data)
	return out, true, err
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
