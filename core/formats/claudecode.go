package formats

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/huimemory/huimemory/core"
)

type ccLine struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	UUID      string `json:"uuid"`
	Timestamp string `json:"timestamp"`
	IsMeta    bool   `json:"isMeta"`
	Message   *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// readClaudeCode reads a Claude Code session file
// (~/.claude/projects/<project>/<session>.jsonl): one JSON object a line.
// Lines of type "user" and "assistant" are messages; "summary", "system"
// (hook and status notices) and isMeta lines are not conversation and are
// skipped. A line's text blocks become one message with its role; each
// tool_use block becomes an assistant message spoken by "tool:NAME" whose
// text is the tool's JSON input, and each tool_result block an assistant
// message spoken by "tool-result:NAME" (the name of the tool_use it
// answers) whose text is the output. Thinking blocks are left out. The
// session is the sessionId, the time the line's timestamp, the ref its
// uuid.
func readClaudeCode(r io.Reader, name string, opts Options) ([]core.Message, error) {
	return collect(streamClaudeCode(r, name, opts))
}

// streamClaudeCode streams a Claude Code session one line at a time (see
// readClaudeCode).
func streamClaudeCode(r io.Reader, name string, opts Options) iter.Seq2[core.Message, error] {
	return lineStream(r, name, opts, func(emit func(core.Message, int) bool) func(int, []byte) error {
		tools := map[string]string{} // tool_use id → tool name
		return func(n int, line []byte) error {
			var l ccLine
			if err := lineJSON(line, &l); err != nil {
				return err
			}
			if (l.Type != "user" && l.Type != "assistant") || l.IsMeta || l.Message == nil {
				return nil
			}
			if l.SessionID == "" {
				return fmt.Errorf("missing sessionId")
			}
			t, err := parseRFC3339(l.Timestamp)
			if err != nil {
				return err
			}
			role := core.RoleUser
			if l.Type == "assistant" {
				role = core.RoleAssistant
			}
			add := func(role core.Role, speaker, text string) {
				text = StripNoise(text)
				if strings.TrimSpace(text) == "" {
					return
				}
				emit(core.Message{Session: l.SessionID, Time: t, Role: role, Speaker: speaker, Text: text, Ref: l.UUID}, n)
			}
			var s string
			if json.Unmarshal(l.Message.Content, &s) == nil {
				add(role, "", s)
				return nil
			}
			var blocks []ccBlock
			if err := json.Unmarshal(l.Message.Content, &blocks); err != nil {
				return fmt.Errorf("message content must be a string or an array of blocks")
			}
			var text []string
			flush := func() {
				add(role, "", strings.Join(text, "\n\n"))
				text = nil
			}
			for _, b := range blocks {
				switch b.Type {
				case "text":
					text = append(text, b.Text)
				case "tool_use":
					flush()
					tools[b.ID] = b.Name
					add(core.RoleAssistant, "tool:"+cmpOr(b.Name, "tool"), string(b.Input))
				case "tool_result":
					flush()
					add(core.RoleAssistant, "tool-result:"+cmpOr(tools[b.ToolUseID], "tool"), blockText(b.Content))
				}
			}
			flush()
			return nil
		}
	})
}
