package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/render"
)

// Name is the server name reported to MCP clients.
const Name = "huimemory"

// New returns an MCP server that serves d's tools: recall_memory and
// recall_by_id, and those d's options add (remember, list_sessions,
// memory_stats, resolve_time, export_session, forget_memory). Each
// tool is advertised with the JSON Schema of [tools.Definitions], unchanged,
// and every call runs through [tools.Dispatcher.Call]. A failed call, an
// unknown tool name included, is answered as an MCP tool error (isError
// set, text "code: message", structured content {"error": {"code",
// "message"}}), never as a protocol error. The server's instructions are
// the English memory-rules prompt ([tools.Prompt]).
//
// version is reported to clients; empty means the module version this
// program was built from. The server holds no state beyond d; it may be
// connected to any number of sessions, and building one is cheap enough to
// do per request.
//
// Extensions add more tools (takeover mode's kernel tools, [KernelTools]).
func New(d *tools.Dispatcher, version string, ext ...Extension) *mcp.Server {
	if version == "" {
		version = buildVersion()
	}
	instructions, _ := tools.Prompt("en")
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "HuiMemory", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		// Tools only: no logging capability, and the tool list never
		// changes while a session lasts.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	known := map[string]bool{}
	for _, t := range d.Tools() {
		known[t.Name] = true
		s.AddTool(&mcp.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.Parameters,
			Annotations: annotations(t.Name),
		}, handler(d, t.Name))
	}
	for _, x := range ext {
		x(func(t *mcp.Tool, h mcp.ToolHandler) {
			known[t.Name] = true
			s.AddTool(t, h)
		}, d)
	}
	// The SDK answers a call to an unregistered tool with a protocol error;
	// route it through the dispatcher instead, which names the tools there
	// are, so that the LLM can correct itself.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil && !known[r.Params.Name] {
				return call(ctx, d, r.Params.Name, r.Params.Arguments), nil
			}
			return next(ctx, method, req)
		}
	})
	return s
}

func annotations(name string) *mcp.ToolAnnotations {
	no := false
	switch name {
	case tools.RecallMemory:
		return &mcp.ToolAnnotations{Title: "Recall memory", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	case tools.RecallByID:
		return &mcp.ToolAnnotations{Title: "Recall a turn by id", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	case tools.Remember:
		return &mcp.ToolAnnotations{Title: "Remember", DestructiveHint: &no, OpenWorldHint: &no}
	case tools.ListSessions:
		return &mcp.ToolAnnotations{Title: "List sessions", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	case tools.MemoryStats:
		return &mcp.ToolAnnotations{Title: "Memory stats", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	case tools.ResolveTime:
		return &mcp.ToolAnnotations{Title: "Resolve a time phrase", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	case tools.ExportSession:
		return &mcp.ToolAnnotations{Title: "Export a session", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	case tools.ForgetMemory:
		yes := true
		return &mcp.ToolAnnotations{Title: "Forget memory", DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}
	}
	return nil
}

func handler(d *tools.Dispatcher, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		return call(ctx, d, name, args), nil
	}
}

// call runs one tool call and turns its outcome into a tool result. It
// never fails: errors, and even a panic below, become tool errors.
func call(ctx context.Context, d *tools.Dispatcher, name string, args json.RawMessage) (res *mcp.CallToolResult) {
	defer func() {
		if r := recover(); r != nil {
			res = toolError(&tools.Error{Code: tools.CodeInternal, Message: fmt.Sprintf("internal error in %s: %v", name, r)})
		}
	}()
	r, err := d.Call(ctx, name, args)
	if err != nil {
		return toolError(tools.AsError(err))
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: r.Text}},
		StructuredContent: Structured(r),
	}
}

// ErrorDetail is the structured content of a tool error, and the body of
// an HTTP error from [HTTPHandler] (as {"error": ErrorDetail}).
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type errorBody struct {
	Error ErrorDetail `json:"error"`
}

func toolError(e *tools.Error) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: e.Code + ": " + e.Message}},
		StructuredContent: errorBody{ErrorDetail{Code: e.Code, Message: e.Message}},
	}
}

// ByIDResults is the structured content of recall_by_id: the turns, in the
// shape `huimem get --json` prints.
type ByIDResults struct {
	Results []render.JSONHit `json:"results"`
}

// Structured returns the structured result behind a tool call, as MCP
// structured content: for recall_memory the shape `huimem recall --json`
// prints, for recall_by_id a [ByIDResults], for remember a [tools.Stored],
// and for the other tools their [tools.Result.Data].
func Structured(r *tools.Result) any {
	switch {
	case r.Data != nil:
		return r.Data
	case r.Recall != nil:
		return render.NewJSONResults(r.Recall)
	case r.Stored != nil:
		return r.Stored
	case r.Tool == tools.RecallByID:
		return ByIDResults{Results: render.NewJSONHits(r.Turns)}
	}
	return nil
}

// buildVersion is the main module's version from the build information,
// or "dev" for a development build.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
