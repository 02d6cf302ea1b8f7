package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/mcpserver"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/render"
	"github.com/huimemory/huimemory/plugins/host"
)

var (
	cst = time.FixedZone("CST", 8*3600)
	// now is the dispatchers' clock: a few days after the conversations.
	now = time.Date(2026, 6, 22, 9, 0, 0, 0, cst)
)

// conversation returns a small conversation in namespace ns: three
// exchanges about a trip to Kyoto, and two about a database migration.
func conversation(ns string) []core.Message {
	at := time.Date(2026, 6, 18, 20, 0, 0, 0, cst)
	var msgs []core.Message
	add := func(session string, min int, role core.Role, text string) {
		msgs = append(msgs, core.Message{Namespace: ns, Session: session, Time: at.Add(time.Duration(min) * time.Minute), Role: role, Text: text})
	}
	add("kyoto", 0, core.RoleUser, "I am planning a trip to Kyoto in autumn, which temples should I visit?")
	add("kyoto", 1, core.RoleAssistant, "Kiyomizu-dera and Fushimi Inari are the classics; Tofuku-ji is best for autumn leaves.")
	add("kyoto", 5, core.RoleUser, "Can you suggest a ryokan near Gion for three nights?")
	add("kyoto", 6, core.RoleAssistant, "Try a small ryokan on Hanamikoji street, a short walk from Gion corner.")
	add("kyoto", 10, core.RoleUser, "What budget should I plan for food each day?")
	add("kyoto", 11, core.RoleAssistant, "About 6000 yen a day covers breakfast, a bento lunch and a kaiseki dinner now and then.")
	add("db", 60, core.RoleUser, "We decided to migrate the billing database from MySQL to Postgres in July.")
	add("db", 61, core.RoleAssistant, "Noted: the billing migration to Postgres is planned for July.")
	add("db", 65, core.RoleUser, "The migration dry run failed with a foreign key error on the invoices table.")
	add("db", 66, core.RoleAssistant, "Disable the constraint during the copy and re-enable it with NOT VALID, then validate.")
	return msgs
}

// openHome opens an engine on a fresh home holding the conversation in
// each of the given namespaces ("" is the default one).
func openHome(t *testing.T, namespaces ...string) *engine.Engine {
	t.Helper()
	var cfg core.Config
	cfg.Storage.Home = t.TempDir()
	e, err := host.Open(t.Context(), cfg, engine.Options{Logf: t.Logf}, host.Options{})
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	for _, ns := range namespaces {
		if _, err := e.Ingest(t.Context(), conversation(ns)); err != nil {
			t.Fatalf("Ingest(%q): %v", ns, err)
		}
	}
	return e
}

func dispatcher(mem tools.Memory, opts tools.Options) *tools.Dispatcher {
	opts.Location = cst
	opts.Now = func() time.Time { return now }
	return tools.New(mem, opts)
}

// connect serves d over in-memory transports and returns a client session
// of the SDK's own client.
func connect(t *testing.T, d *tools.Dispatcher) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(d, "v-test").Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	return clientSession(t, ct)
}

func clientSession(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "huimemory-test", Version: "v0"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("client Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and fails the test on a protocol error.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s, %v): protocol error %v", name, args, err)
	}
	return res
}

// text returns a result's only text content.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d content items, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// okText returns the text of a successful result.
func okText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	s := text(t, res)
	if res.IsError {
		t.Fatalf("tool error: %s", s)
	}
	return s
}

// structured decodes a result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
}

// toolErr checks that res is a tool error and returns its code and text.
func toolErr(t *testing.T, res *mcp.CallToolResult) (code, msg string) {
	t.Helper()
	s := text(t, res)
	if !res.IsError {
		t.Fatalf("want a tool error, got success:\n%s", s)
	}
	var body struct{ Error mcpserver.ErrorDetail }
	structured(t, res, &body)
	if want := body.Error.Code + ": " + body.Error.Message; s != want {
		t.Errorf("error text %q, want %q (code and message)", s, want)
	}
	return body.Error.Code, s
}

var anchorRE = regexp.MustCompile(`\[id:(\w+) \| prev: ([\w-]+) \| next: ([\w-]+)`)

// anchors returns the [id, prev, next] of each anchor in a result's text.
func anchors(s string) [][3]string {
	var out [][3]string
	for _, m := range anchorRE.FindAllStringSubmatch(s, -1) {
		out = append(out, [3]string{m[1], m[2], m[3]})
	}
	return out
}

// asJSON round-trips v through JSON, as a client sees it.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMCPListTools(t *testing.T) {
	e := openHome(t)
	for _, tt := range []struct {
		name  string
		opts  tools.Options
		names []string
	}{
		{"read only", tools.Options{}, []string{"recall_by_id", "recall_memory"}},
		{"remember", tools.Options{Remember: true}, []string{"recall_by_id", "recall_memory", "remember"}},
		{"namespaces and limits", tools.Options{Remember: true, AllowNamespace: true, MaxTopK: 20, DefaultTopK: 3, MaxContext: 4},
			[]string{"recall_by_id", "recall_memory", "remember"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := dispatcher(e, tt.opts)
			cs := connect(t, d)
			list, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			var names []string
			got := map[string]any{}
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
				got[tool.Name] = map[string]any{"name": tool.Name, "description": tool.Description, "inputSchema": tool.InputSchema}
			}
			if diff := cmp.Diff(tt.names, names); diff != "" {
				t.Errorf("tool names (-want +got):\n%s", diff)
			}
			schemas, err := tools.Schemas(tools.Definitions(d.Options()), tools.FormatMCP)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{}
			for _, s := range schemas {
				want[s["name"].(string)] = asJSON(t, s)
			}
			if diff := cmp.Diff(want, asJSON(t, got)); diff != "" {
				t.Errorf("tools differ from tools.Definitions (-want +got):\n%s", diff)
			}
			init := cs.InitializeResult()
			if init.ServerInfo.Name != mcpserver.Name || init.ServerInfo.Version != "v-test" || !strings.Contains(init.Instructions, "recall_memory") {
				t.Errorf("initialize: server %+v, instructions %q", init.ServerInfo, init.Instructions)
			}
		})
	}
}

func TestMCPRecallAndWalk(t *testing.T) {
	cs := connect(t, dispatcher(openHome(t, ""), tools.Options{}))

	res := callTool(t, cs, tools.RecallMemory, map[string]any{"query": "ryokan near Gion", "top_k": 1})
	s := okText(t, res)
	if !strings.HasPrefix(s, `Found 1 memory for "ryokan near Gion"`) || !strings.Contains(s, "Hanamikoji") {
		t.Fatalf("recall text:\n%s", s)
	}
	as := anchors(s)
	if len(as) != 1 {
		t.Fatalf("anchors %v in:\n%s", as, s)
	}
	hit := as[0]
	if hit[1] == "-" || hit[2] == "-" {
		t.Fatalf("the middle exchange should have both neighbours: %v", hit)
	}
	var rec render.JSONResults
	structured(t, res, &rec)
	if len(rec.Results) != 1 || rec.Results[0].ID != hit[0] || rec.Results[0].Prev != hit[1] || rec.Results[0].Next != hit[2] {
		t.Errorf("structured content %+v does not match the anchor %v", rec, hit)
	}

	// Walk back with the prev id read from the text.
	res = callTool(t, cs, tools.RecallByID, map[string]any{"turn_id": hit[1]})
	s = okText(t, res)
	prev := anchors(s)
	if len(prev) != 1 || prev[0][0] != hit[1] || prev[0][2] != hit[0] || !strings.Contains(s, "which temples") {
		t.Errorf("recall_by_id(prev %s): anchors %v, want its next to point back to %s:\n%s", hit[1], prev, hit[0], s)
	}
	var byID mcpserver.ByIDResults
	structured(t, res, &byID)
	if len(byID.Results) != 1 || byID.Results[0].ID != hit[1] {
		t.Errorf("structured by-id %+v", byID)
	}

	// Forward, upper-cased as an LLM might, with one turn of context.
	s = okText(t, callTool(t, cs, tools.RecallByID, map[string]any{"turn_id": strings.ToUpper(hit[2]), "context_window": 1}))
	var ids []string
	for _, a := range anchors(s) {
		ids = append(ids, a[0])
	}
	if diff := cmp.Diff([]string{hit[0], hit[2]}, ids); diff != "" || !strings.Contains(s, "6000 yen") {
		t.Errorf("recall_by_id(next, context 1) ids (-want +got):\n%s\n%s", diff, s)
	}

	s = okText(t, callTool(t, cs, tools.RecallMemory, map[string]any{"query": "quantum chromodynamics lecture", "filter_expr": "session = 'nosuch'"}))
	if !strings.HasPrefix(s, "No memories found") || len(anchors(s)) != 0 {
		t.Errorf("empty recall:\n%s", s)
	}
}

func TestMCPRememberThenRecall(t *testing.T) {
	e := openHome(t, "")
	cs := connect(t, dispatcher(e, tools.Options{Remember: true}))
	res := callTool(t, cs, tools.Remember, map[string]any{"text": "My cat is called Mochi and she is allergic to chicken.", "speaker": "Alice"})
	s := okText(t, res)
	if !strings.HasPrefix(s, "Remembered in session memory at 2026-06-22T09:00:00+08:00") {
		t.Errorf("remember text %q", s)
	}
	var st tools.Stored
	structured(t, res, &st)
	if st.Ingest.Added != 1 || st.Message.Session != "memory" || st.Message.Speaker != "Alice" {
		t.Errorf("structured remember %+v", st)
	}
	s = okText(t, callTool(t, cs, tools.RecallMemory, map[string]any{"query": "Mochi allergic"}))
	if !strings.Contains(s, "allergic to chicken") {
		t.Errorf("recall after remember did not find it:\n%s", s)
	}
	// Remembering the same message again stores nothing new.
	s = okText(t, callTool(t, cs, tools.Remember, map[string]any{"text": "My cat is called Mochi and she is allergic to chicken.", "speaker": "Alice"}))
	if !strings.HasPrefix(s, "Already remembered") {
		t.Errorf("second remember %q", s)
	}
}

func TestMCPToolErrors(t *testing.T) {
	e := openHome(t, "")
	cs := connect(t, dispatcher(e, tools.Options{}))
	for _, tt := range []struct {
		name string
		tool string
		args any
		code string
		want string // in the message
	}{
		{"top_k not an integer", "recall_memory", map[string]any{"query": "kyoto", "top_k": "five"}, tools.CodeInvalidArguments, `top_k must be an integer, not "five"`},
		{"top_k too big", "recall_memory", map[string]any{"query": "kyoto", "top_k": 500}, tools.CodeInvalidArguments, "top_k 500 is not between 1 and 50"},
		{"missing query", "recall_memory", map[string]any{"top_k": 2}, tools.CodeInvalidArguments, "query is empty"},
		{"no arguments", "recall_memory", nil, tools.CodeInvalidArguments, "query is empty"},
		{"unknown argument", "recall_memory", map[string]any{"query": "kyoto", "filter": "x"}, tools.CodeInvalidArguments, `unknown argument "filter"`},
		{"namespace not allowed", "recall_memory", map[string]any{"query": "kyoto", "namespace": "bob"}, tools.CodeInvalidArguments, `unknown argument "namespace"`},
		{"bad filter", "recall_memory", map[string]any{"query": "kyoto", "filter_expr": "role = "}, tools.CodeInvalidArguments, "filter"},
		{"bad since", "recall_memory", map[string]any{"query": "kyoto", "since": "someday"}, tools.CodeInvalidArguments, `since "someday"`},
		{"unknown id", "recall_by_id", map[string]any{"turn_id": "zzzzzz"}, tools.CodeNotFound, "zzzzzz"},
		{"empty id", "recall_by_id", map[string]any{"turn_id": ""}, tools.CodeInvalidArguments, "turn_id is empty"},
		{"bad context", "recall_by_id", map[string]any{"turn_id": "abc", "context_window": -1}, tools.CodeInvalidArguments, "context_window -1"},
		{"unknown tool", "forget_everything", map[string]any{}, tools.CodeUnknownTool, `unknown tool "forget_everything" (tools: recall_memory, recall_by_id)`},
		{"remember not served", "remember", map[string]any{"text": "hi"}, tools.CodeUnknownTool, `unknown tool "remember"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := toolErr(t, callTool(t, cs, tt.tool, tt.args))
			if code != tt.code || !strings.Contains(msg, tt.want) {
				t.Errorf("got %s %q, want code %s and %q", code, msg, tt.code, tt.want)
			}
		})
	}
	// The session survives every error.
	if s := okText(t, callTool(t, cs, tools.RecallMemory, map[string]any{"query": "Postgres migration"})); !strings.Contains(s, "Postgres") {
		t.Errorf("recall after errors:\n%s", s)
	}
}

// brokenMemory fails or panics on every call it defines; the embedded
// nil Memory stands for the methods these tests never reach.
type brokenMemory struct {
	tools.Memory
	panics bool
}

func (b brokenMemory) fail() error {
	if b.panics {
		panic("index exploded")
	}
	return errors.New("disk on fire")
}

func (b brokenMemory) Recall(context.Context, core.Query) (*core.Results, error) {
	return nil, b.fail()
}
func (b brokenMemory) RecallByID(context.Context, string, string, int) ([]core.Hit, error) {
	return nil, b.fail()
}
func (b brokenMemory) Ingest(context.Context, []core.Message) (engine.IngestResult, error) {
	return engine.IngestResult{}, b.fail()
}

func TestMCPInternalErrorsAreToolErrors(t *testing.T) {
	for _, tt := range []struct {
		mem  brokenMemory
		want string
	}{
		{brokenMemory{}, "internal: memory error: disk on fire"},
		{brokenMemory{panics: true}, "internal: internal error in recall_memory: index exploded"},
	} {
		cs := connect(t, dispatcher(tt.mem, tools.Options{}))
		code, msg := toolErr(t, callTool(t, cs, tools.RecallMemory, map[string]any{"query": "anything"}))
		if code != tools.CodeInternal || msg != tt.want {
			t.Errorf("got %s %q, want %q", code, msg, tt.want)
		}
	}
}
