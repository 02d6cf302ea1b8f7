package hooks

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Agent is a coding agent whose hooks HuiMemory serves.
type Agent string

// The agents.
const (
	// ClaudeCode is Anthropic's Claude Code: hooks in settings.json,
	// sessions in ~/.claude/projects/<project>/<session>.jsonl.
	ClaudeCode Agent = "claude-code"
	// Codex is OpenAI's Codex CLI: hooks in hooks.json, sessions in
	// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl.
	Codex Agent = "codex"
)

// Agents lists the agents, in the order the docs name them.
var Agents = []Agent{ClaudeCode, Codex}

// ParseAgent returns the agent named s.
func ParseAgent(s string) (Agent, error) {
	for _, a := range Agents {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown agent %q (claude-code or codex)", s)
}

// Format returns the name of the agent's session format in core/formats.
func (a Agent) Format() string { return string(a) }

// The hook events HuiMemory acts on, as the agents name them in
// hook_event_name.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
	SubagentStop     = "SubagentStop"
	PreCompact       = "PreCompact"
	SessionEnd       = "SessionEnd"
)

// Events returns the events the agent documents that HuiMemory installs
// hooks for, in the order of a session. Codex has no SessionEnd: its Stop
// runs after every turn, the last one included.
func (a Agent) Events() []string {
	if a == Codex {
		return []string{SessionStart, UserPromptSubmit, Stop, SubagentStop, PreCompact}
	}
	return []string{SessionStart, UserPromptSubmit, Stop, SubagentStop, PreCompact, SessionEnd}
}

// Action is what a hook does for an event.
type Action int

// The actions.
const (
	// Ignore: an event HuiMemory does not act on.
	Ignore Action = iota
	// Capture ingests what is new in the session's transcript.
	Capture
	// Wake prints the project's wake-up context.
	Wake
	// Recall adds the memories relevant to the prompt.
	Recall
)

// ActionOf returns what a hook does for event.
func ActionOf(event string) Action {
	switch event {
	case Stop, SubagentStop, PreCompact, SessionEnd:
		return Capture
	case SessionStart:
		return Wake
	case UserPromptSubmit:
		return Recall
	}
	return Ignore
}

// Payload is the JSON object an agent writes on a hook's stdin. Claude
// Code and Codex share these fields; a field an event does not have is
// empty, and fields HuiMemory does not use are ignored.
type Payload struct {
	SessionID string `json:"session_id"`
	// TranscriptPath is the session's transcript file (Codex may send
	// null: then it is empty).
	TranscriptPath string `json:"transcript_path"`
	// Cwd is the folder the agent runs in.
	Cwd   string `json:"cwd"`
	Event string `json:"hook_event_name"`
	// Prompt is the user's prompt (UserPromptSubmit).
	Prompt string `json:"prompt"`
	// Source says why a session starts: startup, resume, clear or
	// compact (SessionStart).
	Source string `json:"source"`
}

// maxPayload bounds what a hook reads from stdin.
const maxPayload = 32 << 20

// ReadPayload reads and decodes a hook's input.
func ReadPayload(r io.Reader) (Payload, error) {
	var p Payload
	data, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
	if err != nil {
		return p, fmt.Errorf("reading the hook input: %w", err)
	}
	if len(data) > maxPayload {
		return p, fmt.Errorf("the hook input is larger than %d MiB", maxPayload>>20)
	}
	if strings.TrimSpace(string(data)) == "" {
		return p, fmt.Errorf("no hook input on stdin (the agent writes a JSON object there)")
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("the hook input is not a JSON object: %v", err)
	}
	if p.Event == "" {
		return p, fmt.Errorf("the hook input has no hook_event_name")
	}
	return p, nil
}

// Output is what a SessionStart or UserPromptSubmit hook prints to add
// text to the model's context: the JSON object both agents document,
// {"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}.
func Output(event, text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": text},
	})
	return append(b, '\n')
}
