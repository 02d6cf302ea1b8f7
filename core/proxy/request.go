package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// request is a host's chat completions request, as the proxy reads it.
type request struct {
	// fields are all of the request's fields, passed upstream untouched
	// except messages and tools.
	fields map[string]json.RawMessage
	user   string
	stream bool
	// system are the host's system and developer messages before the new
	// message; tail the messages after it (its own tool loop).
	system, tail []hostMsg
	tools        []json.RawMessage
	// userText is the new message's text, userRaw the message as sent;
	// userParts is set when its content has parts other than text.
	userText  string
	userRaw   json.RawMessage
	userParts bool
}

type hostMsg struct {
	role, text string
	raw        json.RawMessage
}

func parseRequest(raw []byte) (*request, error) {
	bad := func(code, format string, args ...any) error {
		return invalid(http.StatusBadRequest, code, fmt.Sprintf(format, args...))
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, bad("bad_json", "the request body is empty; send a chat completions request")
	}
	req := &request{}
	if err := json.Unmarshal(raw, &req.fields); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			return nil, bad("bad_json", "malformed JSON at byte %d: %v", se.Offset, se)
		}
		return nil, bad("bad_json", "the request body must be a JSON object: %v", err)
	}
	if v, ok := req.fields["user"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &req.user); err != nil {
			return nil, bad("invalid_request", "user must be a string")
		}
		req.user = strings.TrimSpace(req.user)
	}
	if v, ok := req.fields["stream"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &req.stream); err != nil {
			return nil, bad("invalid_request", "stream must be true or false")
		}
	}
	if v, ok := req.fields["tools"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &req.tools); err != nil {
			return nil, bad("invalid_request", "tools must be an array of tool schemas")
		}
		for i, t := range req.tools {
			if toolName(t) == "" {
				return nil, bad("invalid_request", "tools[%d] has no function.name", i)
			}
		}
	}

	var msgs []json.RawMessage
	if v, ok := req.fields["messages"]; !ok || string(v) == "null" {
		return nil, bad("invalid_messages", "messages is missing: send the new user message as messages: [{\"role\": \"user\", \"content\": \"...\"}]")
	} else if err := json.Unmarshal(v, &msgs); err != nil {
		return nil, bad("invalid_messages", "messages must be an array of messages")
	}
	parsed := make([]hostMsg, len(msgs))
	last := -1
	for i, m := range msgs {
		var head struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(m, &head); err != nil {
			return nil, bad("invalid_messages", "messages[%d] is not a message object", i)
		}
		text, parts, err := contentText(head.Content)
		if err != nil {
			return nil, bad("invalid_messages", "messages[%d]: %v", i, err)
		}
		parsed[i] = hostMsg{role: head.Role, text: text, raw: m}
		if head.Role == "user" {
			last = i
			req.userParts = parts
		}
	}
	if last < 0 {
		return nil, bad("invalid_messages", "messages has no user message: the last user message is the new message")
	}
	u := parsed[last]
	if strings.TrimSpace(u.text) == "" {
		return nil, bad("invalid_messages", "messages[%d], the new user message, has no text", last)
	}
	req.userText, req.userRaw = u.text, u.raw
	for _, m := range parsed[:last] {
		if m.role == "system" || m.role == "developer" {
			req.system = append(req.system, m)
		}
	}
	req.tail = parsed[last+1:]
	return req, nil
}

// contentText returns a message content's text: the string, or its text
// parts joined by newlines, and whether it has parts other than text.
func contentText(raw json.RawMessage) (string, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, false, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", false, fmt.Errorf("content is neither a string nor an array of content parts")
	}
	var texts []string
	other := false
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		} else {
			other = true
		}
	}
	return strings.Join(texts, "\n"), other, nil
}

// toolName returns a tool schema's function name.
func toolName(raw json.RawMessage) string {
	var t struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	json.Unmarshal(raw, &t)
	return t.Function.Name
}
