package formats

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
)

type claudeConversation struct {
	UUID         string          `json:"uuid"`
	Name         string          `json:"name"`
	CreatedAt    string          `json:"created_at"`
	ChatMessages []claudeMessage `json:"chat_messages"`
}

type claudeMessage struct {
	UUID      string        `json:"uuid"`
	Text      string        `json:"text"`
	Content   []claudeBlock `json:"content"`
	Sender    string        `json:"sender"`
	CreatedAt string        `json:"created_at"`
}

type claudeBlock struct {
	Type           string          `json:"type"`
	Text           string          `json:"text"`
	StartTimestamp string          `json:"start_timestamp"`
	Name           string          `json:"name"`
	Input          json.RawMessage `json:"input"`
	Content        json.RawMessage `json:"content"`
}

// readClaude reads the conversations.json of a Claude.ai data export: an
// array of conversations, each with its chat_messages in order. A
// message's text blocks become one message with the sender's role; a
// tool_use block becomes an assistant message spoken by "tool:NAME" (its
// text is the JSON input), a tool_result block one spoken by
// "tool-result:NAME". Thinking blocks and attachments are left out.
func readClaude(r io.Reader, name string, opts Options) ([]core.Message, error) {
	return collect(streamClaude(r, name, opts))
}

// streamClaude streams a Claude.ai conversations.json one conversation at
// a time (see readClaude).
func streamClaude(r io.Reader, name string, opts Options) iter.Seq2[core.Message, error] {
	return func(yield func(core.Message, error) bool) {
		e := &emitter{name: name, opts: opts, yield: yield}
		stopped := false
		err := jsonArray(r, name, false, func(ci int, c *claudeConversation) error {
			got, err := claudeMessages(c)
			if err != nil {
				return &core.InputError{Path: name, Err: fmt.Errorf("conversation %d (%q): %w", ci, c.Name, err)}
			}
			for _, m := range got {
				if !e.emit(m, 0) {
					stopped = true
					return errStop
				}
			}
			return nil
		})
		if err != nil && !stopped {
			yield(core.Message{}, err)
		}
	}
}

func claudeMessages(c *claudeConversation) ([]core.Message, error) {
	if c.UUID == "" {
		return nil, fmt.Errorf("missing uuid")
	}
	var out []core.Message
	for _, m := range c.ChatMessages {
		var role core.Role
		switch m.Sender {
		case "human":
			role = core.RoleUser
		case "assistant":
			role = core.RoleAssistant
		default:
			return nil, fmt.Errorf("message %q: unknown sender %q", m.UUID, m.Sender)
		}
		at, err := parseRFC3339(m.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("message %q: %w", m.UUID, err)
		}
		add := func(speaker, text string, t time.Time) {
			text = StripNoise(text)
			if strings.TrimSpace(text) == "" {
				return
			}
			r := role
			if speaker != "" {
				r = core.RoleAssistant
			}
			out = append(out, core.Message{Session: c.UUID, Time: t, Role: r, Speaker: speaker, Text: text, Ref: m.UUID})
		}
		if len(m.Content) == 0 {
			add("", m.Text, at)
			continue
		}
		var text []string
		textAt := at
		flush := func() {
			add("", strings.Join(text, "\n\n"), textAt)
			text = nil
		}
		for _, b := range m.Content {
			bt := at
			if b.StartTimestamp != "" {
				if t, err := parseRFC3339(b.StartTimestamp); err == nil {
					bt = t
				}
			}
			switch b.Type {
			case "text":
				if len(text) == 0 {
					textAt = bt
				}
				text = append(text, b.Text)
			case "tool_use":
				flush()
				add("tool:"+cmpOr(b.Name, "tool"), string(b.Input), bt)
			case "tool_result":
				flush()
				add("tool-result:"+cmpOr(b.Name, "tool"), blockText(b.Content), bt)
			}
		}
		flush()
	}
	return out, nil
}

// blockText returns the text of a tool result's content: a string, or the
// text of an array of {"type":"text","text":...} blocks joined by
// newlines. Other blocks (images) are left out.
func blockText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
