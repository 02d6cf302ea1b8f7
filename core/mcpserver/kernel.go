package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/kernel"
	"github.com/huimemory/huimemory/core/tools"
)

// Extension adds tools to a server built by [New] for a dispatcher, with
// the add function it is given.
type Extension func(add func(*mcp.Tool, mcp.ToolHandler), d *tools.Dispatcher)

// The takeover-mode tool names.
const (
	ToolAppend   = "memory_append"
	ToolContext  = "memory_context"
	ToolSessions = "memory_sessions"
	ToolClose    = "memory_close_session"
)

// KernelTools returns the extension that serves the memory kernel in
// takeover mode: memory_append stores a message of a session,
// memory_context assembles the messages to send to the LLM for a new user
// message within a token budget, memory_sessions lists sessions and
// memory_close_session closes one. newKernel makes the kernel for a
// request's dispatcher (its namespace).
func KernelTools(newKernel func(d *tools.Dispatcher) (*kernel.Kernel, error)) Extension {
	return func(addTool func(*mcp.Tool, mcp.ToolHandler), d *tools.Dispatcher) {
		str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
		obj := func(props map[string]any, required ...string) map[string]any {
			return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
		}
		no := false
		add := func(name, desc string, schema map[string]any, readOnly bool, run func(context.Context, *kernel.Kernel, json.RawMessage) (any, string, error)) {
			addTool(&mcp.Tool{Name: name, Description: desc, InputSchema: schema,
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: &no, OpenWorldHint: &no}},
				func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
					defer func() {
						if r := recover(); r != nil {
							res = toolError(&tools.Error{Code: tools.CodeInternal, Message: fmt.Sprintf("internal error in %s: %v", name, r)})
						}
					}()
					k, err := newKernel(d)
					if err != nil {
						return toolError(tools.AsError(err)), nil
					}
					var args json.RawMessage
					if req.Params != nil {
						args = req.Params.Arguments
					}
					v, text, err := run(ctx, k, args)
					if err != nil {
						if errors.Is(err, kernel.ErrSessionClosed) {
							return toolError(&tools.Error{Code: "session_closed", Message: err.Error()}), nil
						}
						return toolError(tools.AsError(err)), nil
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: v}, nil
				})
		}
		add(ToolAppend, "Store one message of a conversation in HuiMemory, durably. Takeover mode: HuiMemory keeps the history, the host keeps none.",
			obj(map[string]any{"session": str("The conversation's id."), "role": map[string]any{"type": "string", "enum": []string{"user", "assistant", "system"}}, "text": str("The message, verbatim."), "speaker": str("The speaker's name, optional.")}, "session", "role", "text"),
			false, func(ctx context.Context, k *kernel.Kernel, raw json.RawMessage) (any, string, error) {
				var a struct{ Session, Role, Text, Speaker string }
				if err := strict(raw, &a); err != nil {
					return nil, "", err
				}
				m, res, err := k.Append(ctx, a.Session, kernel.Message{Role: a.Role, Text: a.Text, Speaker: a.Speaker})
				if err != nil {
					return nil, "", err
				}
				out := map[string]any{"session": m.Session, "time": m.Time, "added": res.Added}
				return out, fmt.Sprintf("stored in session %s at %s", m.Session, m.Time.Format("2006-01-02 15:04:05")), nil
			})
		add(ToolContext, "Assemble the messages to send to the LLM for a new user message of a session, within a token budget: memory rules, the user's profile, recalled long-term memories with anchors, the session's recent turns and the new message.",
			obj(map[string]any{"session": str("The conversation's id."), "message": str("The new user message."), "budget": map[string]any{"type": "integer", "minimum": 64, "description": "Token budget (default takeover.budget_tokens)."}}, "session", "message"),
			true, func(ctx context.Context, k *kernel.Kernel, raw json.RawMessage) (any, string, error) {
				var a struct {
					Session, Message string
					Budget           int
				}
				if err := strict(raw, &a); err != nil {
					return nil, "", err
				}
				asm, err := k.Context(ctx, a.Session, a.Message, a.Budget)
				if err != nil {
					return nil, "", err
				}
				text, _ := json.Marshal(asm)
				return asm, string(text), nil
			})
		add(ToolSessions, "List the conversations HuiMemory holds, newest first.", obj(map[string]any{}), true,
			func(ctx context.Context, k *kernel.Kernel, raw json.RawMessage) (any, string, error) {
				if err := strict(raw, &struct{}{}); err != nil {
					return nil, "", err
				}
				list, err := k.Sessions(ctx)
				if err != nil {
					return nil, "", err
				}
				out := map[string]any{"sessions": list}
				text, _ := json.Marshal(out)
				return out, string(text), nil
			})
		add(ToolClose, "Close a conversation: it takes no more messages; its turns stay recallable.",
			obj(map[string]any{"session": str("The conversation's id.")}, "session"), false,
			func(ctx context.Context, k *kernel.Kernel, raw json.RawMessage) (any, string, error) {
				var a struct{ Session string }
				if err := strict(raw, &a); err != nil {
					return nil, "", err
				}
				if err := k.Close(ctx, a.Session); err != nil {
					return nil, "", err
				}
				return map[string]any{"session": a.Session, "closed": true}, "closed " + a.Session, nil
			})
	}
}

// strict decodes tool arguments, rejecting unknown names.
func strict(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytesReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", core.ErrInvalid, err)
	}
	return nil
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
