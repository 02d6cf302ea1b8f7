package formats

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
)

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// The 2025 format's header line.
	ID           string          `json:"id"`
	Instructions json.RawMessage `json:"instructions"`
}

type codexItem struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
}

// codexContext are the prefixes of user messages that Codex writes itself:
// the environment and AGENTS.md instructions it sends with a session.
var codexContext = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions for "}

// readCodex reads a Codex CLI session file
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl). Each line is
// {"timestamp","type","payload"}; the session is the session_meta id. The
// messages are the response_item entries: "message" items with role user
// or assistant, "function_call"/"custom_tool_call"/"local_shell_call" as
// assistant messages spoken by "tool:NAME" (text: the arguments), and their
// outputs as assistant messages spoken by "tool-result:NAME". event_msg
// entries repeat the messages and are skipped, as are reasoning items,
// developer messages and the environment context Codex sends itself.
//
// The older format (a first line {"id","timestamp","instructions"}, then
// items without times) is read too: its items get the header's time plus
// one second each.
func readCodex(r io.Reader, name string, opts Options) ([]core.Message, error) {
	return collect(streamCodex(r, name, opts))
}

// streamCodex streams a Codex session one line at a time (see readCodex).
func streamCodex(r io.Reader, name string, opts Options) iter.Seq2[core.Message, error] {
	return lineStream(r, name, opts, func(emit func(core.Message, int) bool) func(int, []byte) error {
		session := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		var legacy time.Time
		tools := map[string]string{} // call_id → tool name
		first := true
		return func(n int, line []byte) error {
			var l codexLine
			if err := lineJSON(line, &l); err != nil {
				return err
			}
			isFirst := first
			first = false
			var t time.Time
			var item codexItem
			switch {
			case isFirst && l.ID != "" && l.Payload == nil:
				ts, err := parseRFC3339(l.Timestamp)
				if err != nil {
					return err
				}
				session, legacy = l.ID, ts
				return nil
			case !legacy.IsZero():
				if err := json.Unmarshal(line, &item); err != nil {
					return fmt.Errorf("invalid item: %v", err)
				}
				legacy = legacy.Add(time.Second)
				t = legacy
			default:
				ts, err := parseRFC3339(l.Timestamp)
				if err != nil {
					return err
				}
				t = ts
				switch l.Type {
				case "session_meta":
					var meta struct {
						ID string `json:"id"`
					}
					if err := json.Unmarshal(l.Payload, &meta); err != nil {
						return fmt.Errorf("invalid session_meta payload: %v", err)
					}
					if meta.ID != "" {
						session = meta.ID
					}
					return nil
				case "response_item":
					if err := json.Unmarshal(l.Payload, &item); err != nil {
						return fmt.Errorf("invalid response_item payload: %v", err)
					}
				default:
					return nil
				}
			}
			add := func(role core.Role, speaker, text string) {
				text = StripNoise(text)
				if strings.TrimSpace(text) == "" {
					return
				}
				emit(core.Message{Session: session, Time: t, Role: role, Speaker: speaker, Text: text, Ref: item.ID}, n)
			}
			switch item.Type {
			case "message":
				var role core.Role
				switch item.Role {
				case "user":
					role = core.RoleUser
				case "assistant":
					role = core.RoleAssistant
				default:
					return nil // developer and system prompts
				}
				var parts []string
				for _, c := range item.Content {
					if c.Text == "" || (role == core.RoleUser && hasAnyPrefix(c.Text, codexContext)) {
						continue
					}
					parts = append(parts, c.Text)
				}
				add(role, "", strings.Join(parts, "\n\n"))
			case "function_call", "custom_tool_call":
				tools[item.CallID] = item.Name
				add(core.RoleAssistant, "tool:"+cmpOr(item.Name, "tool"), item.Arguments+item.Input)
			case "local_shell_call":
				tools[item.CallID] = "shell"
				add(core.RoleAssistant, "tool:shell", string(item.Action))
			case "function_call_output", "custom_tool_call_output":
				add(core.RoleAssistant, "tool-result:"+cmpOr(tools[item.CallID], "tool"), codexOutput(item.Output))
			}
			return nil
		}
	})
}

// codexOutput returns a tool output's text. Codex stores it as a string,
// often itself JSON {"output": "...", "metadata": {...}}: then the inner
// output is the text.
func codexOutput(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var obj struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(raw, &obj) == nil && obj.Content != "" {
			return obj.Content
		}
		return string(raw)
	}
	var inner struct {
		Output *string `json:"output"`
	}
	if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &inner) == nil && inner.Output != nil {
		return *inner.Output
	}
	return s
}

func hasAnyPrefix(s string, prefixes []string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
