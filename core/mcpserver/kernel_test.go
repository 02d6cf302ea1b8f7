package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/huimemory/huimemory/core/kernel"
	"github.com/huimemory/huimemory/core/mcpserver"
	"github.com/huimemory/huimemory/core/tools"
)

// TestKernelTools drives takeover mode over MCP with the SDK's client: a
// fact appended in one session is in the context assembled for another,
// and a closed session refuses appends with a tool error.
func TestKernelTools(t *testing.T) {
	e := openHome(t)
	d := dispatcher(e, tools.Options{})
	srv := mcpserver.New(d, "v-test", mcpserver.KernelTools(func(d *tools.Dispatcher) (*kernel.Kernel, error) {
		return kernel.New(e, kernel.Options{Tools: d.Options()})
	}))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs := clientSession(t, ct)

	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"recall_memory", "recall_by_id", mcpserver.ToolAppend, mcpserver.ToolContext, mcpserver.ToolSessions, mcpserver.ToolClose} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	for _, m := range []map[string]any{
		{"session": "one", "role": "user", "text": "My favourite tea is a smoky lapsang souchong."},
		{"session": "one", "role": "assistant", "text": "Noted, lapsang souchong."},
		{"session": "two", "role": "user", "text": "Let's plan the garden."},
	} {
		if res := callTool(t, cs, mcpserver.ToolAppend, m); res.IsError {
			t.Fatalf("append %v: %s", m, text(t, res))
		}
	}
	res := callTool(t, cs, mcpserver.ToolContext, map[string]any{"session": "two", "message": "Which tea do I like, lapsang?", "budget": 3000})
	if res.IsError || !strings.Contains(text(t, res), "smoky lapsang souchong") || !strings.Contains(text(t, res), "[id:") {
		t.Fatalf("context lacks session one's fact: %s", text(t, res))
	}
	if res := callTool(t, cs, mcpserver.ToolSessions, map[string]any{}); res.IsError || !strings.Contains(text(t, res), `"session":"two"`) {
		t.Errorf("sessions: %s", text(t, res))
	}
	if res := callTool(t, cs, mcpserver.ToolClose, map[string]any{"session": "one"}); res.IsError {
		t.Fatalf("close: %s", text(t, res))
	}
	res = callTool(t, cs, mcpserver.ToolAppend, map[string]any{"session": "one", "role": "user", "text": "more"})
	if !res.IsError || !strings.HasPrefix(text(t, res), "session_closed:") {
		t.Errorf("append to a closed session: %s", text(t, res))
	}
	res = callTool(t, cs, mcpserver.ToolContext, map[string]any{"session": "two", "message": "x", "bogus": 1})
	if !res.IsError || !strings.HasPrefix(text(t, res), "invalid_arguments:") {
		t.Errorf("unknown argument: %s", text(t, res))
	}
}
