package hooks

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// The lines around the table [AddServerTOML] writes, by which
// [RemoveServerTOML] finds it.
const (
	tomlBegin = "# Written by `huimem hooks install codex`; `huimem hooks uninstall codex` removes it."
	tomlEnd   = "# End of what `huimem hooks install codex` wrote."
)

// AddServerTOML returns Codex's config.toml with the table
// [mcp_servers.huimemory] (command and args) between two comment lines
// at its end, and every other line as it was. A table written before is
// replaced where it is. A [mcp_servers.huimemory] table that install did
// not write is left alone: the data comes back unchanged with a
// [*ServerExistsError]. A file that is not valid TOML is an error.
func AddServerTOML(data []byte, file, command string, args []string) ([]byte, error) {
	servers, err := tomlServers(data)
	if err != nil {
		return nil, err
	}
	lines := splitLines(string(data))
	begin, end, err := tomlBlock(lines)
	if err != nil {
		return nil, err
	}
	if _, ok := servers[ServerName]; ok && begin < 0 {
		return data, &ServerExistsError{File: file}
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	block := []string{tomlBegin, "[mcp_servers." + ServerName + "]",
		"command = " + tomlString(command),
		"args = [" + strings.Join(quoted, ", ") + "]",
		tomlEnd}
	var out []string
	if begin >= 0 {
		out = append(append(append(out, lines[:begin]...), block...), lines[end+1:]...)
	} else {
		out = append(out, lines...)
		if len(out) > 0 && strings.TrimSpace(out[len(out)-1]) != "" {
			out = append(out, "")
		}
		out = append(out, block...)
	}
	text := strings.Join(out, "\n") + "\n"
	if text == string(data) {
		return data, nil
	}
	if _, err := tomlServers([]byte(text)); err != nil {
		// An inline mcp_servers = {...} cannot gain a table.
		return nil, fmt.Errorf("adding [mcp_servers.%s] would make it invalid (%v); add the server by hand", ServerName, err)
	}
	return []byte(text), nil
}

// RemoveServerTOML returns config.toml without the table
// [AddServerTOML] writes (and the blank line it put before it), and
// whether there was one.
func RemoveServerTOML(data []byte) ([]byte, bool, error) {
	if _, err := tomlServers(data); err != nil {
		return nil, false, err
	}
	lines := splitLines(string(data))
	begin, end, err := tomlBlock(lines)
	if err != nil || begin < 0 {
		return data, false, err
	}
	from := begin
	if from > 0 && strings.TrimSpace(lines[from-1]) == "" && (end+1 == len(lines) || strings.TrimSpace(lines[end+1]) == "") {
		from--
	}
	out := append(lines[:from:from], lines[end+1:]...)
	if len(out) == 0 {
		return []byte{}, true, nil
	}
	return []byte(strings.Join(out, "\n") + "\n"), true, nil
}

// tomlServers parses config.toml and returns its mcp_servers table.
func tomlServers(data []byte) (map[string]any, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the file is not valid TOML: %s", strings.ReplaceAll(err.Error(), "toml: ", ""))
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	return servers, nil
}

// tomlBlock finds the lines of the block AddServerTOML writes: -1, -1
// when there is none.
func tomlBlock(lines []string) (begin, end int, err error) {
	begin, end = -1, -1
	for i, l := range lines {
		switch strings.TrimSpace(l) {
		case tomlBegin:
			if begin < 0 {
				begin = i
			}
		case tomlEnd:
			if begin >= 0 && end < 0 {
				end = i
			}
		}
	}
	if begin >= 0 && end < 0 {
		return -1, -1, fmt.Errorf("the file has the line %q but not the line %q after it; restore it or remove the table by hand", tomlBegin, tomlEnd)
	}
	return begin, end, nil
}

// splitLines splits text into lines without their newlines; a final
// newline ends the last line instead of starting an empty one.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
