package tools_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/jsonl"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/plugins/host"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var cst = time.FixedZone("CST", 8*3600)

// testNow is the dispatcher's clock: Thursday 2026-12-10, so "上周" is
// 2026-11-30 .. 2026-12-06, a week with no messages in the sample.
var testNow = time.Date(2026, 12, 10, 12, 0, 0, 0, cst)

const sampleFile = "../../examples/quickstart/conversation.jsonl"

// bobSecret is only in namespace "bob".
const bobSecret = "My bank PIN is 4921 and the vault password is swordfish."

// newMemory opens an engine on a fresh home holding the sample
// conversation in namespace "alice" and one secret session in namespace
// "bob".
func newMemory(t *testing.T) *engine.Engine {
	t.Helper()
	e, err := host.Open(t.Context(), core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}, engine.Options{Logf: t.Logf}, host.Options{})
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	data, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := jsonl.Read(bytes.NewReader(data), sampleFile, jsonl.Options{Namespace: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, cst)
	msgs = append(msgs,
		core.Message{Namespace: "bob", Session: "bob-secret", Time: at, Role: core.RoleUser, Speaker: "Bob", Text: bobSecret},
		core.Message{Namespace: "bob", Session: "bob-secret", Time: at.Add(time.Minute), Role: core.RoleAssistant, Text: "Noted, Bob: PIN and swordfish password stored."})
	if _, err := e.Ingest(t.Context(), msgs); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	return e
}

func newDispatcher(mem tools.Memory, opts tools.Options) *tools.Dispatcher {
	if opts.Namespace == "" {
		opts.Namespace = "alice"
	}
	opts.Now = func() time.Time { return testNow }
	opts.Location = cst
	return tools.New(mem, opts)
}

// code returns the tools error code of err, or "" when err is nil or not
// an *tools.Error.
func code(err error) string {
	var te *tools.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

func intp(n int) *int { return &n }

func TestToolsDecodeRecall(t *testing.T) {
	for _, tc := range []struct {
		name    string
		raw     string
		dialect tools.Dialect
		allowNS bool
		want    tools.RecallRequest
		wantErr string // substring; "" means success
	}{
		{"all tool arguments", `{"query":"q","filter_expr":"role = 'user'","top_k":3,"since":"2026-04-06","before":"last week","context_window":2}`, tools.DialectTool, false,
			tools.RecallRequest{Query: "q", FilterExpr: "role = 'user'", TopK: 3, Since: "2026-04-06", Before: "last week", ContextWindow: intp(2)}, ""},
		{"empty input means no arguments", ``, tools.DialectTool, false, tools.RecallRequest{}, ""},
		{"integral float is an integer", `{"query":"q","top_k":4.0}`, tools.DialectTool, false, tools.RecallRequest{Query: "q", TopK: 4}, ""},
		{"context_window 0 is not absent", `{"query":"q","context_window":0}`, tools.DialectTool, false, tools.RecallRequest{Query: "q", ContextWindow: intp(0)}, ""},
		{"null is absent", `{"query":"q","filter_expr":null,"top_k":null,"since":null,"before":null,"context_window":null}`, tools.DialectTool, false,
			tools.RecallRequest{Query: "q"}, ""},
		{"unknown argument", `{"query":"q","limit":3}`, tools.DialectTool, false, tools.RecallRequest{}, `unknown argument "limit" (arguments: query, filter_expr, top_k, since, before, context_window)`},
		{"top_k as a string", `{"query":"q","top_k":"3"}`, tools.DialectTool, false, tools.RecallRequest{}, `top_k must be an integer, not "3"`},
		{"top_k fractional", `{"query":"q","top_k":2.5}`, tools.DialectTool, false, tools.RecallRequest{}, `top_k must be an integer, not 2.5`},
		{"top_k huge", `{"query":"q","top_k":1e12}`, tools.DialectTool, false, tools.RecallRequest{}, `top_k must be an integer`},
		{"query as a number", `{"query":42}`, tools.DialectTool, false, tools.RecallRequest{}, `query must be a string, not 42`},
		{"query as an object", `{"query":{"text":"q"}}`, tools.DialectTool, false, tools.RecallRequest{}, `query must be a string`},
		{"not an object", `["q"]`, tools.DialectTool, false, tools.RecallRequest{}, `arguments must be a JSON object`},
		{"broken JSON", `{"query":"q"`, tools.DialectTool, false, tools.RecallRequest{}, `arguments are not valid JSON`},
		{"API alias filter in the tool dialect", `{"query":"q","filter":"role = 'user'"}`, tools.DialectTool, false, tools.RecallRequest{}, `unknown argument "filter"`},
		{"API alias context in the tool dialect", `{"query":"q","context":1}`, tools.DialectTool, false, tools.RecallRequest{}, `unknown argument "context"`},
		{"API aliases filter and context", `{"query":"q","filter":"role = 'user'","context":1}`, tools.DialectAPI, false,
			tools.RecallRequest{Query: "q", FilterExpr: "role = 'user'", ContextWindow: intp(1)}, ""},
		{"duplicate alias filter", `{"query":"q","filter":"a","filter_expr":"b"}`, tools.DialectAPI, false, tools.RecallRequest{}, `arguments "filter" and "filter_expr" both set filter_expr`},
		{"duplicate alias context", `{"query":"q","context_window":1,"context":2}`, tools.DialectAPI, false, tools.RecallRequest{}, `both set context_window`},
		{"program-only fields in the API dialect", `{"query":"q","now":"2026-04-06T10:00:00+08:00","no_time":true}`, tools.DialectAPI, false,
			tools.RecallRequest{Query: "q", Now: "2026-04-06T10:00:00+08:00", NoTime: true}, ""},
		{"program-only field in the tool dialect", `{"query":"q","now":"2026-04-06"}`, tools.DialectTool, false, tools.RecallRequest{}, `unknown argument "now"`},
		{"no_time not a bool", `{"query":"q","no_time":"yes"}`, tools.DialectAPI, false, tools.RecallRequest{}, `no_time must be true or false, not "yes"`},
		{"namespace not allowed", `{"query":"q","namespace":"bob"}`, tools.DialectTool, false, tools.RecallRequest{}, `unknown argument "namespace"`},
		{"namespace allowed", `{"query":"q","namespace":"bob"}`, tools.DialectTool, true, tools.RecallRequest{Query: "q", Namespace: "bob"}, ""},
		{"namespace in the API dialect", `{"query":"q","namespace":"bob"}`, tools.DialectAPI, false, tools.RecallRequest{Query: "q", Namespace: "bob"}, ""},
		{"long bad value is clipped", `{"query":"q","top_k":"` + strings.Repeat("x", 100) + `"}`, tools.DialectTool, false, tools.RecallRequest{}, `"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tools.DecodeRecall([]byte(tc.raw), tc.dialect, tc.allowNS)
			checkDecode(t, got, tc.want, err, tc.wantErr)
		})
	}
}

func checkDecode[T any](t *testing.T, got, want T, err error, wantErr string) {
	t.Helper()
	if wantErr == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("decoded (-want +got):\n%s", d)
		}
		return
	}
	if err == nil {
		t.Fatalf("decoded %+v, want an error with %q", got, wantErr)
	}
	if !strings.Contains(err.Error(), wantErr) {
		t.Errorf("error %q, want it to contain %q", err, wantErr)
	}
	if c := code(err); c != tools.CodeInvalidArguments {
		t.Errorf("error code %q, want %q", c, tools.CodeInvalidArguments)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
}

func TestToolsDecodeByID(t *testing.T) {
	for _, tc := range []struct {
		name    string
		raw     string
		dialect tools.Dialect
		allowNS bool
		want    tools.ByIDRequest
		wantErr string
	}{
		{"turn_id and window", `{"turn_id":"a3f2c7","context_window":1}`, tools.DialectTool, false, tools.ByIDRequest{TurnID: "a3f2c7", ContextWindow: intp(1)}, ""},
		{"null window is absent", `{"turn_id":"a3f2c7","context_window":null}`, tools.DialectTool, false, tools.ByIDRequest{TurnID: "a3f2c7"}, ""},
		{"turn_id as a number", `{"turn_id":123456}`, tools.DialectTool, false, tools.ByIDRequest{}, `turn_id must be a string, not 123456`},
		{"alias id in the tool dialect", `{"id":"a3f2c7"}`, tools.DialectTool, false, tools.ByIDRequest{}, `unknown argument "id" (arguments: turn_id, context_window)`},
		{"alias context in the API dialect", `{"turn_id":"a3f2c7","context":2}`, tools.DialectAPI, false, tools.ByIDRequest{TurnID: "a3f2c7", ContextWindow: intp(2)}, ""},
		{"id is not turn_id, even in the API dialect", `{"id":"a3f2c7"}`, tools.DialectAPI, false, tools.ByIDRequest{}, `unknown argument "id"`},
		{"duplicate alias context", `{"turn_id":"a","context":1,"context_window":2}`, tools.DialectAPI, false, tools.ByIDRequest{}, `arguments "context" and "context_window" both set context_window`},
		{"window as a bool", `{"turn_id":"a","context_window":true}`, tools.DialectTool, false, tools.ByIDRequest{}, `context_window must be an integer, not true`},
		{"namespace not allowed", `{"turn_id":"a","namespace":"bob"}`, tools.DialectTool, false, tools.ByIDRequest{}, `unknown argument "namespace"`},
		{"namespace allowed", `{"turn_id":"a","namespace":"bob"}`, tools.DialectTool, true, tools.ByIDRequest{TurnID: "a", Namespace: "bob"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tools.DecodeByID([]byte(tc.raw), tc.dialect, tc.allowNS)
			checkDecode(t, got, tc.want, err, tc.wantErr)
		})
	}
}

func TestToolsDecodeRemember(t *testing.T) {
	for _, tc := range []struct {
		name    string
		raw     string
		dialect tools.Dialect
		want    tools.RememberRequest
		wantErr string
	}{
		{"all tool arguments", `{"text":"hi","role":"user","speaker":"Alice","session":"s","time":"2026-04-06T10:00:00Z"}`, tools.DialectTool,
			tools.RememberRequest{Text: "hi", Role: "user", Speaker: "Alice", Session: "s", Time: "2026-04-06T10:00:00Z"}, ""},
		{"ref is program-only", `{"text":"hi","ref":"r1"}`, tools.DialectTool, tools.RememberRequest{}, `unknown argument "ref"`},
		{"ref in the API dialect", `{"text":"hi","ref":"r1"}`, tools.DialectAPI, tools.RememberRequest{Text: "hi", Ref: "r1"}, ""},
		{"text as an array", `{"text":["hi"]}`, tools.DialectTool, tools.RememberRequest{}, `text must be a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tools.DecodeRemember([]byte(tc.raw), tc.dialect, false)
			checkDecode(t, got, tc.want, err, tc.wantErr)
		})
	}
}

// FuzzToolsDecodeRecall checks that no input makes the decoder panic and that
// every failure is an invalid_arguments error on one line.
func FuzzToolsDecodeRecall(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"query":"q","top_k":3}`, `{"query":null}`, `[1]`, `{"filter":"x","filter_expr":"y"}`, `{"top_k":1e300}`, `"q"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, d := range []tools.Dialect{tools.DialectTool, tools.DialectAPI} {
			_, err := tools.DecodeRecall([]byte(raw), d, false)
			if err != nil && code(err) != tools.CodeInvalidArguments {
				t.Errorf("DecodeRecall(%q): error %v has code %q", raw, err, code(err))
			}
		}
	})
}

// TestSchemas checks each format's shape, that every schema is a JSON
// Schema object the decoders agree with, and which tools the options add.
func TestToolsSchemas(t *testing.T) {
	for _, opts := range []tools.Options{{}, {AllowNamespace: true, Remember: true, MaxTopK: 20, MaxContext: 3},
		{Manage: true, Forget: true}, {AllowNamespace: true, Manage: true}} {
		defs := tools.Definitions(opts)
		wantNames := []string{tools.RecallMemory, tools.RecallByID}
		if opts.Remember {
			wantNames = append(wantNames, tools.Remember)
		}
		if opts.Manage {
			wantNames = append(wantNames, tools.ListSessions, tools.MemoryStats, tools.ResolveTime, tools.ExportSession)
		}
		if opts.Forget {
			wantNames = append(wantNames, tools.ForgetMemory)
		}
		for _, f := range tools.Formats {
			t.Run(fmt.Sprintf("%s/remember=%v/manage=%v/ns=%v", f, opts.Remember, opts.Manage, opts.AllowNamespace), func(t *testing.T) {
				data, err := tools.SchemasJSON(defs, f)
				if err != nil {
					t.Fatal(err)
				}
				var got []map[string]any
				if err := json.Unmarshal(data, &got); err != nil {
					t.Fatalf("SchemasJSON is not JSON: %v", err)
				}
				var names []string
				for _, entry := range got {
					name, desc, params := unwrap(t, f, entry)
					names = append(names, name)
					if len(desc) < 40 {
						t.Errorf("%s: description %q is too short to teach an LLM anything", name, desc)
					}
					checkObjectSchema(t, name, params)
					checkDecoderAgrees(t, name, params, opts.AllowNamespace)
					props := params["properties"].(map[string]any)
					nsTool := name != tools.RecallByID && name != tools.Remember && name != tools.ResolveTime
					if _, ok := props["namespace"]; ok != (opts.AllowNamespace && nsTool) {
						t.Errorf("%s: namespace argument present = %v with AllowNamespace %v", name, ok, opts.AllowNamespace)
					}
					if name == tools.RecallMemory {
						topK := props["top_k"].(map[string]any)
						if want := float64(maxOr(opts.MaxTopK, tools.DefaultMaxTopK)); topK["maximum"] != want {
							t.Errorf("top_k maximum %v, want %v", topK["maximum"], want)
						}
					}
				}
				if d := cmp.Diff(wantNames, names); d != "" {
					t.Errorf("tool names (-want +got):\n%s", d)
				}
			})
		}
	}
	if _, err := tools.Schemas(tools.Definitions(tools.Options{}), "gemini"); err == nil || !strings.Contains(err.Error(), `unknown schema format "gemini"`) {
		t.Errorf("Schemas(gemini) error = %v", err)
	}
}

func maxOr(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// unwrap checks one schema entry's envelope for format f and returns its
// name, description and parameters schema.
func unwrap(t *testing.T, f tools.Format, entry map[string]any) (string, string, map[string]any) {
	t.Helper()
	fn, paramsKey := entry, map[tools.Format]string{tools.FormatOpenAI: "parameters", tools.FormatAnthropic: "input_schema", tools.FormatMCP: "inputSchema"}[f]
	if f == tools.FormatOpenAI {
		if d := cmp.Diff([]string{"function", "type"}, sortedKeys(entry)); d != "" {
			t.Fatalf("openai entry keys (-want +got):\n%s", d)
		}
		if entry["type"] != "function" {
			t.Errorf(`openai entry type %v, want "function"`, entry["type"])
		}
		fn = entry["function"].(map[string]any)
	}
	want := []string{"description", "name", paramsKey}
	slices.Sort(want)
	if d := cmp.Diff(want, sortedKeys(fn)); d != "" {
		t.Fatalf("%s tool keys (-want +got):\n%s", f, d)
	}
	name, _ := fn["name"].(string)
	desc, _ := fn["description"].(string)
	params, ok := fn[paramsKey].(map[string]any)
	if !ok {
		t.Fatalf("%s: %s is %T, want an object", name, paramsKey, fn[paramsKey])
	}
	if !regexp.MustCompile(`^[a-z_]{1,64}$`).MatchString(name) {
		t.Errorf("tool name %q is not a valid function name", name)
	}
	return name, desc, params
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkObjectSchema checks the JSON Schema shape function calling wants:
// an object with typed, described properties, required names that exist,
// and no additional properties.
func checkObjectSchema(t *testing.T, name string, s map[string]any) {
	t.Helper()
	if s["type"] != "object" {
		t.Errorf("%s: schema type %v, want object", name, s["type"])
	}
	if s["additionalProperties"] != false {
		t.Errorf("%s: additionalProperties %v, want false", name, s["additionalProperties"])
	}
	props, ok := s["properties"].(map[string]any)
	if !ok || len(props) == 0 && name != tools.MemoryStats {
		t.Fatalf("%s: properties %v", name, s["properties"])
	}
	for pname, p := range props {
		p, ok := p.(map[string]any)
		if !ok {
			t.Errorf("%s.%s: property is not an object", name, pname)
			continue
		}
		typ, _ := p["type"].(string)
		if !slices.Contains([]string{"string", "integer", "boolean"}, typ) {
			t.Errorf("%s.%s: type %q", name, pname, typ)
		}
		if d, _ := p["description"].(string); d == "" {
			t.Errorf("%s.%s: no description", name, pname)
		}
		if typ == "integer" {
			lo, _ := p["minimum"].(float64)
			hi, ok := p["maximum"].(float64)
			if !ok || hi < lo {
				t.Errorf("%s.%s: bounds %v..%v", name, pname, p["minimum"], p["maximum"])
			}
		}
	}
	// The tools that act on one thing require it; the listing ones
	// require nothing, but still say so with an empty list, never null.
	wantRequired := 1
	if slices.Contains([]string{tools.ListSessions, tools.MemoryStats, tools.ForgetMemory}, name) {
		wantRequired = 0
	}
	req, ok := s["required"].([]any)
	if !ok || len(req) != wantRequired {
		t.Fatalf("%s: required %v, want %d arguments", name, s["required"], wantRequired)
	}
	for _, r := range req {
		if _, ok := props[r.(string)]; !ok {
			t.Errorf("%s: required %q is not a property", name, r)
		}
	}
}

// checkDecoderAgrees passes every schema property to the tool's decoder
// in the tool dialect: what the schema offers, the decoder must accept.
func checkDecoderAgrees(t *testing.T, name string, s map[string]any, allowNS bool) {
	t.Helper()
	args := map[string]any{}
	for pname, p := range s["properties"].(map[string]any) {
		switch p.(map[string]any)["type"] {
		case "integer":
			args[pname] = 1
		case "boolean":
			args[pname] = true
		default:
			args[pname] = "user"
		}
	}
	raw, _ := json.Marshal(args)
	var err error
	switch name {
	case tools.RecallMemory:
		_, err = tools.DecodeRecall(raw, tools.DialectTool, allowNS)
	case tools.RecallByID:
		_, err = tools.DecodeByID(raw, tools.DialectTool, allowNS)
	case tools.Remember:
		_, err = tools.DecodeRemember(raw, tools.DialectTool, allowNS)
	case tools.ListSessions:
		_, err = tools.DecodeSessions(raw, tools.DialectTool, allowNS)
	case tools.MemoryStats:
		_, err = tools.DecodeStats(raw, tools.DialectTool, allowNS)
	case tools.ResolveTime:
		_, err = tools.DecodeTime(raw, tools.DialectTool)
	case tools.ExportSession:
		_, err = tools.DecodeExport(raw, tools.DialectTool, allowNS)
	case tools.ForgetMemory:
		_, err = tools.DecodeForget(raw, tools.DialectTool, allowNS)
	default:
		t.Errorf("%s: no decoder checked", name)
	}
	if err != nil {
		t.Errorf("%s: the decoder rejects the schema's own arguments %s: %v", name, raw, err)
	}
}

func TestToolsPrompt(t *testing.T) {
	for _, lang := range []string{"en", "zh", ""} {
		p, err := tools.Prompt(lang)
		if err != nil {
			t.Fatalf("Prompt(%q): %v", lang, err)
		}
		for _, want := range []string{tools.RecallMemory, tools.RecallByID, "prev", "filter_expr", "[id:"} {
			if !strings.Contains(p, want) {
				t.Errorf("Prompt(%q) does not mention %q", lang, want)
			}
		}
	}
	zh, _ := tools.Prompt("zh")
	if !strings.Contains(zh, "记忆") {
		t.Errorf("Prompt(zh) is not Chinese:\n%s", zh)
	}
	if _, err := tools.Prompt("fr"); err == nil || !strings.Contains(err.Error(), `"fr"`) {
		t.Errorf("Prompt(fr) error = %v", err)
	}
}

func TestToolsFormatRange(t *testing.T) {
	day := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, cst) }
	for _, tc := range []struct {
		start, end time.Time
		want       string
	}{
		{day(16, 0, 0), day(23, 0, 0), "2026-11-16 .. 2026-11-22 (UTC+08:00)"},
		{day(18, 0, 0), day(19, 0, 0), "2026-11-18 (UTC+08:00)"},
		{day(18, 12, 0), day(18, 18, 0), "2026-11-18 12:00 .. 18:00 (UTC+08:00)"},
		{day(18, 12, 0), day(20, 9, 30), "2026-11-18 12:00 .. 2026-11-20 09:30 (UTC+08:00)"},
		{time.Time{}, day(20, 0, 0), "up to 2026-11-19 (UTC+08:00)"},
		{time.Time{}, day(20, 15, 0), "before 2026-11-20 15:00 (UTC+08:00)"},
		{day(20, 0, 0), time.Time{}, "an open range"},
	} {
		if got := tools.FormatRange(tc.start, tc.end); got != tc.want {
			t.Errorf("FormatRange(%v, %v) = %q, want %q", tc.start, tc.end, got, tc.want)
		}
	}
}

// anchorLine matches the anchor line HuiMemory prints before each turn.
var anchorLine = regexp.MustCompile(`(?m)^\[id:([0-9a-z]+) \| prev: ([0-9a-z]+|-) \| next: ([0-9a-z]+|-)( \| [^\]]+)?\]$`)

func TestToolsDispatchRecall(t *testing.T) {
	d := newDispatcher(newMemory(t), tools.Options{})
	ctx := t.Context()
	res, err := d.Call(ctx, tools.RecallMemory, []byte(`{"query":"ryokan near Gion","top_k":2}`))
	if err != nil {
		t.Fatal(err)
	}
	text, err := d.Dispatch(ctx, tools.RecallMemory, `{"query":"ryokan near Gion","top_k":2}`)
	if err != nil || text != res.Text {
		t.Fatalf("Dispatch and Call disagree (err %v):\n%s\n---\n%s", err, text, res.Text)
	}
	if !strings.HasPrefix(text, `Found 2 memories for "ryokan near Gion" (searched all of memory).`) {
		t.Errorf("first line:\n%s", text)
	}
	if len(res.Recall.Hits) != 2 {
		t.Fatalf("%d hits, want 2", len(res.Recall.Hits))
	}
	if got := anchorLine.FindAllString(text, -1); len(got) != 2 {
		t.Errorf("%d anchor lines, want 2:\n%s", len(got), text)
	}
	for _, h := range res.Recall.Hits {
		if !strings.Contains(text, "["+h.Anchor.Fields()+" | 相似度: ") {
			t.Errorf("text lacks the anchor line of hit %s:\n%s", h.ID, text)
		}
	}
	for _, want := range []string{"Book a ryokan near Gion for April 3 to April 7.", "call recall_by_id with its prev or next id"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}

	// context_window adds neighbours, marked as context.
	res, err = d.Call(ctx, tools.RecallMemory, []byte(`{"query":"ryokan near Gion","top_k":1,"context_window":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Text, " | 上下文]"); n != 1 {
		t.Errorf("%d neighbours with context_window 1 on the session's last chunk, want 1:\n%s", n, res.Text)
	}
	if !strings.HasPrefix(res.Text, "Found 1 memory for") {
		t.Errorf("neighbours are counted as memories:\n%s", res.Text)
	}
}

func TestToolsDispatchNothingFound(t *testing.T) {
	d := newDispatcher(newMemory(t), tools.Options{})
	for _, tc := range []struct{ args, want string }{
		// "last week" from Thursday 2026-12-10 is 2026-11-30 .. 2026-12-06:
		// no messages, and nothing anywhere about narwhals.
		{`{"query":"what did we say about the narwhal last week?"}`, `No memories found for "what did we say about the narwhal last week?" (searched "last week": 2026-11-30 .. 2026-12-06 (UTC+08:00)).`},
		// The deploy bug was two weeks ago; since bounds the search.
		{`{"query":"CUDA out of memory","since":"2026-12-01"}`, `No memories found for "CUDA out of memory" (searched all of memory).`},
	} {
		text, err := d.Dispatch(t.Context(), tools.RecallMemory, tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		if !strings.HasPrefix(text, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.args, text, tc.want)
		}
		if !strings.Contains(text, "do not guess") || anchorLine.MatchString(text) {
			t.Errorf("%s: nothing-found text shows turns or does not warn against guessing:\n%s", tc.args, text)
		}
	}
	// A time phrase whose week holds nothing widens to other times, and
	// says so: the deploy bug was two weeks before "上周", the book a week.
	for _, tc := range []struct{ args, scope, has string }{
		{`{"query":"上周部署的时候出了什么问题"}`, `"上周": 2026-11-30 .. 2026-12-06 (UTC+08:00); nothing relevant there, so widened to other times`, "OLLAMA_NUM_PARALLEL=1"},
		{`{"query":"what did I read last week?"}`, `"last week": 2026-11-30 .. 2026-12-06 (UTC+08:00); nothing relevant there, so widened to other times`, "The Three-Body Problem"},
	} {
		text, err := d.Dispatch(t.Context(), tools.RecallMemory, tc.args)
		if err != nil || !strings.HasPrefix(text, "Found ") || !strings.Contains(text, "(searched "+tc.scope+").") || !strings.Contains(text, tc.has) {
			t.Errorf("%s widened: err %v\n%s\nwant the scope %s and %q", tc.args, err, text, tc.scope, tc.has)
		}
	}
	// The same topic two weeks back is found: the range, not the words,
	// made the since-bounded search above come back empty.
	text, err := d.Dispatch(t.Context(), tools.RecallMemory, `{"query":"CUDA out of memory","since":"2026-11-16","before":"2026-11-23"}`)
	if err != nil || !strings.Contains(text, "OLLAMA_NUM_PARALLEL=1") {
		t.Errorf("CUDA in its week: err %v\n%s", err, text)
	}
}

func TestToolsDispatchRecallByIDWalk(t *testing.T) {
	d := newDispatcher(newMemory(t), tools.Options{})
	ctx := t.Context()
	res, err := d.Call(ctx, tools.RecallMemory, []byte(`{"query":"ryokan near Gion","top_k":1}`))
	if err != nil {
		t.Fatal(err)
	}
	hit := res.Recall.Hits[0]
	if hit.Prev == "" {
		t.Fatalf("hit %s has no prev", hit.ID)
	}
	// Walk back with prev (in upper case: ids are case-insensitive), then
	// forward with next, reading the ids from the text as an LLM would.
	text, err := d.Dispatch(ctx, tools.RecallByID, fmt.Sprintf(`{"turn_id":%q}`, strings.ToUpper(hit.Prev)))
	if err != nil {
		t.Fatal(err)
	}
	m := anchorLine.FindStringSubmatch(text)
	if m == nil || m[1] != hit.Prev || m[3] != hit.ID || m[4] != "" {
		t.Fatalf("recall_by_id(prev) anchor %q, want id %s, next %s and no score:\n%s", m, hit.Prev, hit.ID, text)
	}
	if !strings.Contains(text, "I prefer quiet temples") {
		t.Errorf("prev turn text missing:\n%s", text)
	}
	golden(t, "recall_by_id_prev.txt", text)

	var walked []string
	for id := m[1]; id != "-"; {
		text, err := d.Dispatch(ctx, tools.RecallByID, fmt.Sprintf(`{"turn_id":%q}`, id))
		if err != nil {
			t.Fatalf("walking to %s: %v", id, err)
		}
		walked = append(walked, id)
		id = anchorLine.FindStringSubmatch(text)[3]
		if len(walked) > 10 {
			t.Fatal("the walk does not end")
		}
	}
	if d := cmp.Diff([]string{hit.Prev, hit.ID}, walked); d != "" {
		t.Errorf("walk over the kyoto-trip session (-want +got):\n%s", d)
	}

	res, err = d.Call(ctx, tools.RecallByID, []byte(fmt.Sprintf(`{"turn_id":" %s ","context_window":1}`, hit.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Turns) != 2 || strings.Count(res.Text, "[id:") != 2 {
		t.Errorf("context_window 1 on the last chunk: %d turns\n%s", len(res.Turns), res.Text)
	}
}

func TestToolsDispatchErrors(t *testing.T) {
	mem := newMemory(t)
	d := newDispatcher(mem, tools.Options{MaxTopK: 8, MaxContext: 2})
	for _, tc := range []struct {
		name, tool, args string
		code, want       string
	}{
		{"unknown tool", "search_web", `{}`, tools.CodeUnknownTool, `unknown tool "search_web" (tools: recall_memory, recall_by_id)`},
		{"remember not enabled", tools.Remember, `{"text":"hi"}`, tools.CodeUnknownTool, `unknown tool "remember"`},
		{"empty query", tools.RecallMemory, `{"query":"  "}`, tools.CodeInvalidArguments, "query is empty"},
		{"missing query", tools.RecallMemory, `{}`, tools.CodeInvalidArguments, "query is empty"},
		{"top_k over the max", tools.RecallMemory, `{"query":"q","top_k":9}`, tools.CodeInvalidArguments, "top_k 9 is not between 1 and 8"},
		{"negative top_k", tools.RecallMemory, `{"query":"q","top_k":-1}`, tools.CodeInvalidArguments, "top_k -1 is not between 1 and 8"},
		{"context_window over the max", tools.RecallMemory, `{"query":"q","context_window":3}`, tools.CodeInvalidArguments, "context_window 3 is not between 0 and 2"},
		{"negative context_window", tools.RecallByID, `{"turn_id":"abc","context_window":-1}`, tools.CodeInvalidArguments, "context_window -1 is not between 0 and 2"},
		{"bad filter_expr", tools.RecallMemory, `{"query":"q","filter_expr":"type = 'decision' ANDD role = 'user'"}`, tools.CodeInvalidArguments, `filter: unexpected "ANDD" at column 19`},
		{"unknown filter field", tools.RecallMemory, `{"query":"q","filter_expr":"colour = 'red'"}`, tools.CodeInvalidArguments, "filter: "},
		{"bad since", tools.RecallMemory, `{"query":"q","since":"someday"}`, tools.CodeInvalidArguments, `since "someday": want a date`},
		{"since after before", tools.RecallMemory, `{"query":"q","since":"2026-05-01","before":"2026-04-01"}`, tools.CodeInvalidArguments, "is not before before"},
		{"empty turn_id", tools.RecallByID, `{"turn_id":""}`, tools.CodeInvalidArguments, "turn_id is empty"},
		{"unknown id", tools.RecallByID, `{"turn_id":"zzzzzz"}`, tools.CodeNotFound, `chunk "zzzzzz": not found`},
		{"wrong type", tools.RecallByID, `{"turn_id":["a"]}`, tools.CodeInvalidArguments, "turn_id must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := d.Dispatch(t.Context(), tc.tool, tc.args)
			if err == nil {
				t.Fatalf("no error; text:\n%s", text)
			}
			if c := code(err); c != tc.code {
				t.Errorf("code %q, want %q (%v)", c, tc.code, err)
			}
			if text != "error: "+err.Error() || !strings.Contains(text, tc.want) {
				t.Errorf("text %q, want \"error: \" and %q", text, tc.want)
			}
			if strings.Contains(text, "\n") {
				t.Errorf("error text is not one line: %q", text)
			}
		})
	}
	// top_k within bounds returns exactly that many hits; 0 means the default.
	for _, tc := range []struct{ args, want string }{
		{`{"query":"Kyoto Ollama book club","top_k":1}`, "Found 1 memory"},
		{`{"query":"Kyoto Ollama book club","top_k":3}`, "Found 3 memories"},
		{`{"query":"Kyoto Ollama book club","top_k":0}`, "Found 5 memories"},
		{`{"query":"Kyoto Ollama book club"}`, "Found 5 memories"},
	} {
		text, err := d.Dispatch(t.Context(), tools.RecallMemory, tc.args)
		if err != nil || !strings.HasPrefix(text, tc.want) {
			t.Errorf("%s: err %v, text:\n%s", tc.args, err, text)
		}
	}
}

// TestDispatchNamespaces attacks namespace isolation: a dispatcher bound to
// "alice" must never show bob's memory, whatever the call says.
func TestToolsDispatchNamespaces(t *testing.T) {
	mem := newMemory(t)
	ctx := t.Context()
	alice := newDispatcher(mem, tools.Options{Namespace: "alice", Remember: true})
	admin := newDispatcher(mem, tools.Options{Namespace: "alice", AllowNamespace: true})

	// Bob's secret is really there, for a caller allowed to read it.
	res, err := admin.Call(ctx, tools.RecallMemory, []byte(`{"query":"swordfish password PIN","namespace":"bob","top_k":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, bobSecret) || !leaked(res.Text) {
		t.Fatalf("bob's secret not found with namespace bob:\n%s", res.Text)
	}
	bobID := res.Recall.Hits[0].ID

	// The LLM cannot even name a namespace: the argument does not exist.
	for _, tc := range []struct{ tool, args string }{
		{tools.RecallMemory, `{"query":"swordfish","namespace":"bob"}`},
		{tools.RecallByID, fmt.Sprintf(`{"turn_id":%q,"namespace":"bob"}`, bobID)},
		{tools.Remember, `{"text":"x","namespace":"bob"}`},
	} {
		_, err := alice.Dispatch(ctx, tc.tool, tc.args)
		if code(err) != tools.CodeInvalidArguments || !strings.Contains(err.Error(), `unknown argument "namespace"`) {
			t.Errorf("%s %s: err %v, want unknown argument namespace", tc.tool, tc.args, err)
		}
	}
	// A program asking for bob through the dispatcher gets forbidden.
	if _, err := alice.Recall(ctx, tools.RecallRequest{Query: "swordfish", Namespace: "bob"}); code(err) != tools.CodeForbidden {
		t.Errorf("Recall in bob: err %v, want forbidden", err)
	}
	if _, err := alice.ByID(ctx, tools.ByIDRequest{TurnID: bobID, Namespace: "bob"}); code(err) != tools.CodeForbidden {
		t.Errorf("ByID in bob: err %v, want forbidden", err)
	}
	if _, err := alice.Remember(ctx, tools.RememberRequest{Text: "planted", Namespace: "bob"}); code(err) != tools.CodeForbidden {
		t.Errorf("Remember in bob: err %v, want forbidden", err)
	}
	if _, err := alice.Namespace("alice"); err != nil {
		t.Errorf("own namespace by name: %v", err)
	}
	// Searches, filters and ids that point at bob find nothing of his.
	for _, tc := range []struct{ tool, args string }{
		{tools.RecallMemory, `{"query":"swordfish password PIN 4921","top_k":50}`},
		{tools.RecallMemory, `{"query":"Bob","filter_expr":"session = 'bob-secret'"}`},
		{tools.RecallMemory, `{"query":"password","filter_expr":"speaker = 'Bob' OR session = 'bob-secret' OR NOT role = 'system'","top_k":50,"context_window":2}`},
		{tools.RecallMemory, fmt.Sprintf(`{"query":"swordfish","filter_expr":"id = '%s'"}`, bobID)},
		{tools.RecallByID, fmt.Sprintf(`{"turn_id":%q,"context_window":2}`, bobID)},
		{tools.RecallByID, fmt.Sprintf(`{"turn_id":%q}`, strings.ToUpper(bobID))},
	} {
		text, err := alice.Dispatch(ctx, tc.tool, tc.args)
		if leaked(text) {
			t.Errorf("%s %s leaked bob's memory:\n%s", tc.tool, tc.args, text)
		}
		if tc.tool == tools.RecallByID && code(err) != tools.CodeNotFound {
			t.Errorf("%s %s: err %v, want not_found", tc.tool, tc.args, err)
		}
	}
	// What alice remembers stays hers.
	if _, err := alice.Dispatch(ctx, tools.Remember, `{"text":"Alice's locker code is 7788","speaker":"Alice"}`); err != nil {
		t.Fatal(err)
	}
	text, _ := admin.Dispatch(ctx, tools.RecallMemory, `{"query":"locker code 7788","namespace":"bob","top_k":50}`)
	if strings.Contains(text, "Alice's locker code") {
		t.Errorf("alice's remembered message is visible in bob:\n%s", text)
	}
	if _, err := admin.Dispatch(ctx, tools.RecallMemory, `{"query":"x","namespace":"a/b"}`); code(err) != tools.CodeInvalidArguments {
		t.Errorf("namespace a/b: err %v, want invalid_arguments", err)
	}
}

// leaked reports whether a tool text shows any of bob's stored turns (the
// query, echoed in the first line, is not his memory).
func leaked(text string) bool {
	for _, s := range []string{"My bank PIN", "vault password", "Noted, Bob", "@bob/", "bob-secret.md"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

func TestToolsDispatchRememberThenRecall(t *testing.T) {
	d := newDispatcher(newMemory(t), tools.Options{Remember: true, RememberSession: "notes"})
	ctx := t.Context()
	args := `{"text":"My dentist is Dr. Okafor on Elm Street, appointments on Tuesdays.","speaker":"Alice","role":"user"}`
	text, err := d.Dispatch(ctx, tools.Remember, args)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Remembered in session notes at 2026-12-10T12:00:00+08:00.\n"; text != want {
		t.Errorf("remember: %q, want %q", text, want)
	}
	if text, _ := d.Dispatch(ctx, tools.Remember, args); !strings.HasPrefix(text, "Already remembered") {
		t.Errorf("remember twice: %q", text)
	}
	res, err := d.Call(ctx, tools.RecallMemory, []byte(`{"query":"who is my dentist?","top_k":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "Dr. Okafor on Elm Street") || res.Recall.Hits[0].Session != "notes" {
		t.Errorf("recall after remember:\n%s", res.Text)
	}
	for _, tc := range []struct{ args, want string }{
		{`{"text":""}`, "text is empty"},
		{`{"text":"x","role":"robot"}`, "robot"},
		{`{"text":"x","time":"yesterday-ish"}`, "time: "},
	} {
		if _, err := d.Dispatch(ctx, tools.Remember, tc.args); code(err) != tools.CodeInvalidArguments || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("remember %s: err %v, want invalid_arguments with %q", tc.args, err, tc.want)
		}
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s (-want +got):\n%s", path, d)
	}
}
