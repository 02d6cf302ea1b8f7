package cli

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/huimemory/huimemory/core/tools"
)

// mcpStructured calls a tool that must succeed and decodes its structured
// content into v.
func mcpStructured(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, v any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s %v: tool error %s", name, args, text)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, data, err)
	}
	return text
}

var anchorIDs = regexp.MustCompile(`\[id:(\w+) \| prev: (\w+|-) \| next: (\w+|-)\]`)

// TestMCPManageToolsSubprocess drives list_sessions, memory_stats,
// resolve_time, export_session and forget_memory on the real `huimem mcp`
// with the SDK's client, while other huimem commands use the same home.
func TestMCPManageToolsSubprocess(t *testing.T) {
	bin := buildHuimem(t)
	home := ingested(t)
	cmd := exec.Command(bin, "--home", home, "mcp")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	cs := mcpClient(t, &mcp.CommandTransport{Command: cmd})

	var list tools.SessionList
	text := mcpStructured(t, cs, tools.ListSessions, map[string]any{}, &list)
	if list.Total != 5 || len(list.Sessions) != 5 || !strings.Contains(text, "- kyoto-trip: ") {
		t.Fatalf("list_sessions: %+v\n%s", list, text)
	}
	var st tools.NamespaceStats
	text = mcpStructured(t, cs, tools.MemoryStats, nil, &st)
	if st.Sessions != 5 || st.Messages != 22 || st.Embedder == "" {
		t.Errorf("memory_stats: %+v\n%s", st, text)
	}
	var tr tools.TimeRange
	mcpStructured(t, cs, tools.ResolveTime, map[string]any{"phrase": "上周三下午", "now": "2026-12-10T12:00:00Z"}, &tr)
	if want := (tools.TimeRange{Start: "2026-12-02T12:00:00Z", End: "2026-12-02T18:00:00Z", Granularity: "hour", Text: "上周三下午"}); tr != want {
		t.Errorf("resolve_time: %+v, want %+v", tr, want)
	}

	// export_session gives the anchors; recall_by_id walks them.
	var ex tools.SessionExport
	text = mcpStructured(t, cs, tools.ExportSession, map[string]any{"session": "kyoto-trip"}, &ex)
	m := anchorIDs.FindAllStringSubmatch(text, -1)
	if ex.Messages != 4 || len(m) != len(ex.Turns) || len(m) < 2 || !strings.Contains(text, "ryokan near Gion") {
		t.Fatalf("export_session: %d messages, %d anchors\n%s", ex.Messages, len(m), text)
	}
	if s := mcpOK(t, cs, tools.RecallByID, map[string]any{"turn_id": m[0][3]}); !strings.Contains(s, "[id:"+m[1][1]+" ") {
		t.Errorf("recall_by_id on the first turn's next %s:\n%s", m[0][3], s)
	}
	text = mcpStructured(t, cs, tools.ExportSession, map[string]any{"session": "kyoto-trip", "format": "jsonl"}, &ex)
	if n := strings.Count(ex.JSONL, "\n"); n != 4 {
		t.Errorf("jsonl export: %d lines\n%s", n, text)
	}
	cliOut, errs, code := cli(t, home, "export", "--session", "kyoto-trip")
	if code != 0 || cliOut != ex.JSONL {
		t.Errorf("huimem export --session differs from export_session: code %d %s\n%s", code, errs, cliOut)
	}

	// forget_memory: a dry run changes nothing, the forget is seen by
	// other processes at once.
	var fr struct {
		DryRun   bool              `json:"dry_run"`
		Messages []json.RawMessage `json:"messages"`
	}
	mcpStructured(t, cs, tools.ForgetMemory, map[string]any{"session": "kyoto-trip", "dry_run": true}, &fr)
	if !fr.DryRun || len(fr.Messages) != 4 {
		t.Errorf("dry run: %+v", fr)
	}
	if out, _, _ := cli(t, home, "recall", "ryokan near Gion"); !strings.Contains(out, "ryokan") {
		t.Fatalf("the dry run forgot:\n%s", out)
	}
	if s := mcpOK(t, cs, tools.ForgetMemory, map[string]any{"session": "kyoto-trip"}); !strings.HasPrefix(s, "Forgot 4 messages from 1 session for good") {
		t.Errorf("forget:\n%s", s)
	}
	if out, _, _ := cli(t, home, "recall", "ryokan near Gion"); strings.Contains(out, "ryokan near Gion") {
		t.Errorf("another process still recalls the forgotten session:\n%s", out)
	}
	if _, errs, code := cli(t, home, "export", "--session", "kyoto-trip"); code == 0 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, `session "kyoto-trip"`) {
		t.Errorf("export of a forgotten session: code %d, %q", code, errs)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{tools.ForgetMemory, map[string]any{}, "invalid_arguments: forget needs exactly one of"},
		{tools.ForgetMemory, map[string]any{"session": "book-club", "namespace": "other"}, `invalid_arguments: unknown argument "namespace"`},
		{tools.ExportSession, map[string]any{"session": "kyoto-trip"}, `not_found: session "kyoto-trip"`},
		{tools.ListSessions, map[string]any{"limit": 1000}, "invalid_arguments: limit 1000 is not between 1 and 200"},
		{tools.ResolveTime, map[string]any{"phrase": "the blue moon"}, "invalid_arguments: "},
	} {
		if s, isErr := mcpCall(t, cs, tc.tool, tc.args); !isErr || !strings.HasPrefix(s, tc.want) {
			t.Errorf("%s %v: error %v %q, want %q", tc.tool, tc.args, isErr, s, tc.want)
		}
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("huimem mcp did not exit cleanly: %v\n%s", err, stderr.String())
	}

	// A read-only server in another namespace sees none of this one and
	// cannot write.
	cmd = exec.Command(bin, "--home", home, "mcp", "-n", "alice", "--read-only")
	cmd.Stderr = &stderr
	cs = mcpClient(t, &mcp.CommandTransport{Command: cmd})
	defer cs.Close()
	want := []string{tools.ExportSession, tools.ListSessions, tools.MemoryStats, tools.RecallByID, tools.RecallMemory, tools.ResolveTime}
	if diff := cmp.Diff(want, toolNames(t, cs)); diff != "" {
		t.Errorf("tools with --read-only (-want +got):\n%s", diff)
	}
	if s := mcpOK(t, cs, tools.ListSessions, nil); !strings.HasPrefix(s, "No sessions in namespace alice match.") {
		t.Errorf("list_sessions in alice:\n%s", s)
	}
	if s, isErr := mcpCall(t, cs, tools.ExportSession, map[string]any{"session": "book-club"}); !isErr || !strings.HasPrefix(s, "not_found: ") {
		t.Errorf("export of the default namespace's session from alice: %v %q", isErr, s)
	}
	if s, isErr := mcpCall(t, cs, tools.ForgetMemory, map[string]any{"session": "book-club"}); !isErr || !strings.HasPrefix(s, `unknown_tool: unknown tool "forget_memory"`) {
		t.Errorf("forget on a read-only server: %v %q", isErr, s)
	}
}
