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

type gptConversation struct {
	ID             string             `json:"id"`
	ConversationID string             `json:"conversation_id"`
	Title          string             `json:"title"`
	CreateTime     *float64           `json:"create_time"`
	Mapping        map[string]gptNode `json:"mapping"`
	CurrentNode    string             `json:"current_node"`
}

type gptNode struct {
	ID      string      `json:"id"`
	Message *gptMessage `json:"message"`
	Parent  *string     `json:"parent"`
}

type gptMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string  `json:"role"`
		Name *string `json:"name"`
	} `json:"author"`
	CreateTime *float64 `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
		Text        *string           `json:"text"`
		Result      *string           `json:"result"`
	} `json:"content"`
	Recipient string `json:"recipient"`
	Metadata  struct {
		Hidden bool `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

// gptSkip are content types that are not conversation: custom
// instructions, hidden reasoning and the model's memory notes.
var gptSkip = map[string]bool{
	"user_editable_context": true, "model_editable_context": true, "thoughts": true, "reasoning_recap": true,
}

// readChatGPT reads conversations.json whole: see [streamChatGPT].
func readChatGPT(r io.Reader, name string, opts Options) ([]core.Message, error) {
	return collect(streamChatGPT(r, name, opts))
}

// streamChatGPT reads conversations.json: an array of conversations (or
// one conversation object), one conversation at a time. Each
// conversation's messages are the current branch: the path from
// current_node back to the root of the mapping tree, in order. Edited and
// regenerated alternatives off that path are left out.
func streamChatGPT(r io.Reader, name string, opts Options) iter.Seq2[core.Message, error] {
	return func(yield func(core.Message, error) bool) {
		e := &emitter{name: name, opts: opts, yield: yield}
		stopped := false
		err := jsonArray(r, name, true, func(ci int, c *gptConversation) error {
			got, err := gptMessages(c, opts.loc())
			if err != nil {
				return &core.InputError{Path: name, Err: fmt.Errorf("conversation %d (%q): %w", ci, c.Title, err)}
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

func gptMessages(c *gptConversation, loc *time.Location) ([]core.Message, error) {
	session := c.ConversationID
	if session == "" {
		session = c.ID
	}
	if session == "" {
		return nil, fmt.Errorf("missing id and conversation_id")
	}
	if len(c.Mapping) == 0 {
		return nil, nil
	}
	if _, ok := c.Mapping[c.CurrentNode]; !ok {
		return nil, fmt.Errorf("current_node %q is not in the mapping", c.CurrentNode)
	}
	// Walk from the current node up to the root.
	var path []*gptMessage
	seen := map[string]bool{}
	for id := c.CurrentNode; id != ""; {
		if seen[id] {
			return nil, fmt.Errorf("the mapping has a cycle at node %q", id)
		}
		seen[id] = true
		n, ok := c.Mapping[id]
		if !ok {
			return nil, fmt.Errorf("node %q is not in the mapping", id)
		}
		if n.Message != nil {
			path = append(path, n.Message)
		}
		if n.Parent == nil {
			break
		}
		id = *n.Parent
	}
	var last time.Time
	if c.CreateTime != nil {
		last = unixTime(*c.CreateTime, loc)
	}
	var out []core.Message
	for i := len(path) - 1; i >= 0; i-- {
		m := path[i]
		if m.CreateTime != nil && *m.CreateTime > 0 {
			last = unixTime(*m.CreateTime, loc)
		}
		if m.Metadata.Hidden || gptSkip[m.Content.ContentType] {
			continue
		}
		text := StripNoise(gptText(m))
		if strings.TrimSpace(text) == "" {
			continue
		}
		msg := core.Message{Session: session, Time: last, Text: text, Ref: m.ID}
		name := ""
		if m.Author.Name != nil {
			name = *m.Author.Name
		}
		switch m.Author.Role {
		case "user":
			msg.Role = core.RoleUser
		case "assistant":
			msg.Role = core.RoleAssistant
			if m.Recipient != "" && m.Recipient != "all" {
				msg.Speaker = "tool:" + m.Recipient
			}
		case "system":
			msg.Role = core.RoleSystem
		case "tool":
			msg.Role = core.RoleAssistant
			msg.Speaker = "tool-result:" + cmpOr(name, "tool")
		default:
			return nil, fmt.Errorf("message %q: unknown author role %q", m.ID, m.Author.Role)
		}
		if last.IsZero() {
			return nil, fmt.Errorf("message %q has no create_time and the conversation none either", m.ID)
		}
		out = append(out, msg)
	}
	return out, nil
}

// gptText returns a message's text: its string parts joined by newlines,
// or the text/result field of code, execution output and browsing
// content. Image and file parts (objects) are left out.
func gptText(m *gptMessage) string {
	var parts []string
	for _, p := range m.Content.Parts {
		var s string
		if json.Unmarshal(p, &s) == nil && s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "\n")
	}
	if m.Content.Text != nil {
		return *m.Content.Text
	}
	if m.Content.Result != nil {
		return *m.Content.Result
	}
	return ""
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
