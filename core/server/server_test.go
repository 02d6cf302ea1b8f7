package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/render"
	"github.com/huimemory/huimemory/plugins/host"
)

var cst = time.FixedZone("CST", 8*3600)

func init() {
	// The export stream is text, one JSON object a line.
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
}

// seed is a small memory in three namespaces.
var seed = []core.Message{
	{Session: "deploy", Time: time.Date(2026, 11, 18, 15, 20, 0, 0, cst), Role: "user", Speaker: "Alice", Text: "部署的时候 Ollama 一直报 CUDA out of memory"},
	{Session: "deploy", Time: time.Date(2026, 11, 18, 15, 22, 0, 0, cst), Role: "assistant", Text: "把上下文长度从 32k 降到 8k"},
	{Session: "deploy", Time: time.Date(2026, 11, 18, 15, 30, 0, 0, cst), Role: "user", Speaker: "Alice", Text: "It works now, thanks. The GPU is an RTX 4090."},
	{Session: "deploy", Time: time.Date(2026, 11, 18, 15, 31, 0, 0, cst), Role: "assistant", Text: "Great, 24 GB is enough for an 8k context."},
	{Namespace: "alice", Session: "diary", Time: time.Date(2026, 11, 20, 9, 0, 0, 0, cst), Role: "user", Text: "My cat is called Mochi and she likes salmon."},
	{Namespace: "bob", Session: "secret", Time: time.Date(2026, 11, 21, 9, 0, 0, 0, cst), Role: "user", Text: "Bob's bank PIN is 4321, keep it secret."},
}

const (
	adminToken = "admin-token-0123456789"
	aliceToken = "alice-token-0123456789"
)

type fixture struct {
	eng    *engine.Engine
	srv    *Server
	url    string
	router routers.Router
}

func newFixture(t *testing.T, cfg core.ServerConfig) *fixture {
	t.Helper()
	return newFixtureWith(t, cfg, nil)
}

func newFixtureWith(t *testing.T, cfg core.ServerConfig, takeover *core.TakeoverConfig) *fixture {
	t.Helper()
	ctx := t.Context()
	e, err := host.Open(ctx, core.Config{Storage: core.StorageConfig{Home: t.TempDir()}}, engine.Options{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Ingest(ctx, seed); err != nil {
		t.Fatal(err)
	}
	cfg.MaxBodyMB = max(cfg.MaxBodyMB, 1)
	now := time.Date(2026, 11, 29, 15, 0, 0, 0, cst)
	s, err := New(e, Options{Config: cfg, Tools: tools.Options{Remember: true, Manage: true, Forget: true, Location: cst, Now: func() time.Time { return now }}, Version: "test", Takeover: takeover})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	router, err := gorillamux.NewRouter(loadDoc(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{eng: e, srv: s, url: hs.URL, router: router}
}

// do sends a request and checks request and response against the OpenAPI
// document: the document must describe what the server really does.
func (f *fixture) do(t *testing.T, method, path, token, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, f.url+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	route, params, err := f.router.FindRoute(req)
	if err != nil {
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s %s is not in the OpenAPI document but answered %d", method, path, resp.StatusCode)
		}
		return resp.StatusCode, data
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(data)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s %s: response %d does not match the OpenAPI document: %v\n%s", method, path, resp.StatusCode, err, data)
	}
	return resp.StatusCode, data
}

func errCode(t *testing.T, data []byte) string {
	t.Helper()
	var e ErrorBody
	if err := json.Unmarshal(data, &e); err != nil || e.Error.Code == "" {
		t.Fatalf("not an error body: %s", data)
	}
	return e.Error.Code
}

func TestEndpoints(t *testing.T) {
	f := newFixture(t, core.ServerConfig{})
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string // error code, for errors
		contains                 string // in the body, for successes
	}{
		{"health", "GET", "/healthz", "", 200, "", `"status":"ok"`},
		{"openapi", "GET", "/openapi.json", "", 200, "", `"openapi":"3.0.3"`},
		{"recall", "POST", "/v1/recall", `{"query":"CUDA out of memory","top_k":2}`, 200, "", "Ollama"},
		{"recall with a time phrase", "POST", "/v1/recall", `{"query":"上周三下午部署的问题","now":"2026-11-29T15:00:00+08:00"}`, 200, "", `"resolved_time"`},
		{"recall filter_expr", "POST", "/v1/recall", `{"query":"GPU","filter_expr":"role = 'user'"}`, 200, "", "RTX 4090"},
		{"recall older batch names", "POST", "/v1/recall", `{"query":"GPU","filter":"role = 'user'","context":1}`, 200, "", "RTX 4090"},
		{"recall bad filter", "POST", "/v1/recall", `{"query":"GPU","filter_expr":"role = 'user' ANDD x"}`, 400, tools.CodeInvalidArguments, ""},
		{"recall missing query", "POST", "/v1/recall", `{"top_k":3}`, 400, tools.CodeInvalidArguments, ""},
		{"recall wrong type", "POST", "/v1/recall", `{"query":"GPU","top_k":"five"}`, 400, tools.CodeInvalidArguments, ""},
		{"recall unknown field", "POST", "/v1/recall", `{"query":"GPU","topk":3}`, 400, tools.CodeInvalidArguments, ""},
		{"malformed JSON", "POST", "/v1/recall", `{"query":`, 400, CodeBadJSON, ""},
		{"not an object", "POST", "/v1/recall", `["GPU"]`, 400, CodeBadJSON, ""},
		{"empty body", "POST", "/v1/recall", ``, 400, CodeBadJSON, ""},
		{"unknown id", "GET", "/v1/turns/zzzzzz", "", 404, tools.CodeNotFound, ""},
		{"bad context", "GET", "/v1/turns/zzzzzz?context=x", "", 400, tools.CodeInvalidArguments, ""},
		{"unknown tool", "POST", "/v1/tools/forget_everything", `{}`, 404, tools.CodeUnknownTool, ""},
		{"tool recall", "POST", "/v1/tools/recall_memory", `{"query":"CUDA"}`, 200, "", "[id:"},
		{"tool bad args", "POST", "/v1/tools/recall_memory", `{"query":"CUDA","top_k":500}`, 400, tools.CodeInvalidArguments, ""},
		{"append one", "POST", "/v1/messages", `{"session":"s1","role":"user","text":"I switched to the Q4_K_M quantisation.","time":"2026-11-29T10:00:00+08:00"}`, 201, "", `"added":1`},
		{"append batch", "POST", "/v1/messages", `{"messages":[{"session":"s2","role":"user","text":"one"},{"session":"s2","role":"assistant","text":"two"}]}`, 201, "", `"added":2`},
		{"append bad batch item", "POST", "/v1/messages", `{"messages":[{"session":"s2","role":"user","text":"ok"},{"session":"s2","role":"robot","text":"x"}]}`, 400, tools.CodeInvalidArguments, ""},
		{"append no text", "POST", "/v1/messages", `{"session":"s1"}`, 400, tools.CodeInvalidArguments, ""},
		{"stats", "GET", "/v1/stats", "", 200, "", `"chunks"`},
		{"no route", "GET", "/v2/anything", "", 404, CodeNoRoute, ""},
		{"wrong method", "DELETE", "/v1/recall", "", 405, CodeMethodNotAllowed, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, data := f.do(t, tc.method, tc.path, "", tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, data)
			}
			if tc.code != "" {
				if got := errCode(t, data); got != tc.code {
					t.Errorf("code %q, want %q: %s", got, tc.code, data)
				}
			}
			if tc.contains != "" && !strings.Contains(string(data), tc.contains) {
				t.Errorf("body lacks %q: %s", tc.contains, data)
			}
		})
	}
}

func TestTurnWalk(t *testing.T) {
	f := newFixture(t, core.ServerConfig{})
	_, data := f.do(t, "POST", "/v1/recall", "", `{"query":"RTX 4090","top_k":1}`)
	var res render.JSONResults
	if err := json.Unmarshal(data, &res); err != nil || len(res.Results) != 1 {
		t.Fatalf("recall: %v %s", err, data)
	}
	prev := res.Results[0].Prev
	if prev == "" {
		t.Fatalf("the hit has no prev: %s", data)
	}
	// Ids are matched case-insensitively.
	status, data := f.do(t, "GET", "/v1/turns/"+strings.ToUpper(prev)+"?context=1", "", "")
	if status != 200 || !strings.Contains(string(data), "CUDA out of memory") || !strings.Contains(string(data), `"context_role":"neighbor"`) {
		t.Fatalf("walk to %s: %d %s", prev, status, data)
	}
	status, data = f.do(t, "POST", "/v1/tools/recall_by_id", "", fmt.Sprintf(`{"turn_id":%q}`, prev))
	var tr ToolResponse
	json.Unmarshal(data, &tr)
	if status != 200 || !strings.Contains(tr.Text, "[id:"+prev) {
		t.Fatalf("tool recall_by_id: %d %s", status, data)
	}
}

func TestReadYourWrites(t *testing.T) {
	f := newFixture(t, core.ServerConfig{})
	for i := range 5 {
		word := fmt.Sprintf("zanzibar%dquokka", i)
		status, data := f.do(t, "POST", "/v1/messages", "", fmt.Sprintf(`{"session":"rw","role":"user","text":"note %s"}`, word))
		if status != 201 {
			t.Fatalf("append: %d %s", status, data)
		}
		_, data = f.do(t, "POST", "/v1/recall", "", fmt.Sprintf(`{"query":%q,"top_k":1}`, word))
		if !strings.Contains(string(data), word) {
			t.Fatalf("recall right after append misses %s: %s", word, data)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	f := newFixture(t, core.ServerConfig{MaxBodyMB: 1})
	big := `{"session":"s","role":"user","text":"` + strings.Repeat("x", 2<<20) + `"}`
	status, data := f.do(t, "POST", "/v1/messages", "", big)
	if status != http.StatusRequestEntityTooLarge || errCode(t, data) != CodeTooLarge {
		t.Fatalf("status %d: %s", status, data)
	}
}

// TestNamespaceIsolation sends hostile requests with a token bound to
// "alice": none may read or write another namespace.
func TestNamespaceIsolation(t *testing.T) {
	f := newFixture(t, core.ServerConfig{Token: adminToken, Tokens: []core.TokenSpec{{Token: aliceToken, Namespace: "alice"}}})
	// Bob's chunk id, found with the admin token.
	_, data := f.do(t, "POST", "/v1/recall", adminToken, `{"query":"bank PIN","namespace":"bob","top_k":1}`)
	var res render.JSONResults
	json.Unmarshal(data, &res)
	if len(res.Results) != 1 || !strings.Contains(string(data), "4321") {
		t.Fatalf("admin cannot read bob: %s", data)
	}
	bobID := res.Results[0].ID

	hostile := []struct {
		name, method, path, body string
		status                   int
	}{
		{"namespace argument", "POST", "/v1/recall", `{"query":"bank PIN","namespace":"bob"}`, 403},
		{"default namespace argument", "POST", "/v1/recall", `{"query":"CUDA","namespace":""}`, 200},
		{"filter on namespace", "POST", "/v1/recall", `{"query":"bank PIN","filter_expr":"namespace = 'bob'"}`, 200},
		{"filter with OR", "POST", "/v1/recall", `{"query":"bank PIN 4321","filter_expr":"namespace = 'bob' OR namespace = 'alice' OR namespace = ''"}`, 200},
		{"bob's id", "GET", "/v1/turns/" + bobID, "", 404},
		{"bob's id with namespace", "GET", "/v1/turns/" + bobID + "?namespace=bob", "", 403},
		{"tool with namespace", "POST", "/v1/tools/recall_memory", `{"query":"bank PIN","namespace":"bob"}`, 400},
		{"tool by id", "POST", "/v1/tools/recall_by_id", `{"turn_id":"` + bobID + `"}`, 404},
		{"list bob's sessions", "POST", "/v1/tools/list_sessions", `{"namespace":"bob"}`, 400},
		{"export bob's session", "POST", "/v1/tools/export_session", `{"session":"secret"}`, 404},
		{"export bob's session over GET", "GET", "/v1/export?session=secret", "", 404},
		{"forget bob's session by tool", "POST", "/v1/tools/forget_memory", `{"session":"secret"}`, 404},
		{"write into bob", "POST", "/v1/messages", `{"session":"x","role":"user","text":"planted","namespace":"bob"}`, 403},
		{"write into bob in a batch", "POST", "/v1/messages", `{"messages":[{"session":"x","role":"user","text":"planted"},{"session":"x","role":"user","text":"planted 2","namespace":"bob"}]}`, 403},
	}
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			status, data := f.do(t, tc.method, tc.path, aliceToken, tc.body)
			if status != tc.status {
				t.Errorf("status %d, want %d: %s", status, tc.status, data)
			}
			for _, h := range resultsOf(data) {
				if h.Namespace != "alice" {
					t.Errorf("alice read namespace %q: %s", h.Namespace, data)
				}
			}
		})
	}
	// Alice reads her own memory; her writes land in her namespace.
	if _, data := f.do(t, "POST", "/v1/recall", aliceToken, `{"query":"Mochi"}`); !strings.Contains(string(data), "salmon") {
		t.Errorf("alice cannot read her own memory: %s", data)
	}
	if status, data := f.do(t, "POST", "/v1/messages", aliceToken, `{"session":"x","role":"user","text":"Mochi weighs four kilos"}`); status != 201 {
		t.Fatalf("alice append: %d %s", status, data)
	}
	hits, err := f.eng.Recall(t.Context(), core.Query{Text: "Mochi weighs", Namespace: "alice"})
	if err != nil || len(hits.Hits) == 0 || hits.Hits[0].Namespace != "alice" {
		t.Errorf("alice's write is not in alice: %+v %v", hits, err)
	}
	if _, data := f.do(t, "POST", "/v1/recall", adminToken, `{"query":"planted","namespace":"bob"}`); len(resultsOf(data)) > 0 {
		t.Errorf("a write reached bob: %s", data)
	}
	// Stats show alice only her own namespace.
	_, data = f.do(t, "GET", "/v1/stats", aliceToken, "")
	var st StatsResponse
	json.Unmarshal(data, &st)
	if len(st.Namespaces) != 1 || st.Namespaces["alice"] == 0 {
		t.Errorf("alice's stats: %s", data)
	}
}

// resultsOf returns the hits in a recall, get or tool response body.
func resultsOf(data []byte) []render.JSONHit {
	var r struct {
		render.JSONResults
		Result *render.JSONResults `json:"result"`
	}
	json.Unmarshal(data, &r)
	if r.Result != nil {
		return r.Result.Results
	}
	return r.Results
}

func TestAuth(t *testing.T) {
	f := newFixture(t, core.ServerConfig{Token: adminToken, Tokens: []core.TokenSpec{{Token: aliceToken, Namespace: "alice"}}})
	for _, tc := range []struct {
		name, token string
		status      int
	}{
		{"no token", "", 401},
		{"wrong token", "admin-token-0123456780", 401},
		{"prefix of a token", "admin-token", 401},
		{"admin", adminToken, 200},
		{"bound", aliceToken, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, data := f.do(t, "POST", "/v1/recall", tc.token, `{"query":"Mochi"}`)
			if status != tc.status {
				t.Errorf("status %d, want %d: %s", status, tc.status, data)
			}
		})
	}
	if status, _ := f.do(t, "GET", "/healthz", "", ""); status != 200 {
		t.Errorf("healthz needs no token, got %d", status)
	}
}

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		cfg core.ServerConfig
		ok  bool
	}{
		{core.ServerConfig{Addr: "127.0.0.1:7878"}, true},
		{core.ServerConfig{Addr: "localhost:7878"}, true},
		{core.ServerConfig{Addr: "[::1]:7878"}, true},
		{core.ServerConfig{Addr: "0.0.0.0:7878"}, false},
		{core.ServerConfig{Addr: ":7878"}, false},
		{core.ServerConfig{Addr: "192.168.1.5:7878"}, false},
		{core.ServerConfig{Addr: "0.0.0.0:7878", Token: adminToken}, true},
		{core.ServerConfig{Addr: "0.0.0.0:7878", Tokens: []core.TokenSpec{{Token: aliceToken, Namespace: "alice"}}}, true},
		{core.ServerConfig{Addr: "nonsense"}, false},
	} {
		if err := CheckAddr(tc.cfg); (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%+v) = %v, want ok %v", tc.cfg, err, tc.ok)
		}
	}
}

// TestConcurrentAndShutdown runs recalls in parallel with appends, then
// shuts the server down while appends are in flight: every append that
// was answered 201 is in the store afterwards.
func TestConcurrentAndShutdown(t *testing.T) {
	home := t.TempDir()
	ctx := t.Context()
	e, err := host.Open(ctx, core.Config{Storage: core.StorageConfig{Home: home}}, engine.Options{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.Ingest(ctx, seed)
	s, err := New(e, Options{Tools: tools.Options{Remember: true}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Serve(sctx, ln) }()
	url := "http://" + ln.Addr().String()

	var mu sync.Mutex
	var accepted []string
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				var resp *http.Response
				var err error
				word := fmt.Sprintf("w%dn%dmarker", w, i)
				if i%3 == 0 {
					resp, err = http.Post(url+"/v1/messages", "application/json", strings.NewReader(fmt.Sprintf(`{"session":"c%d","role":"user","text":"%s"}`, w, word)))
				} else {
					resp, err = http.Post(url+"/v1/recall", "application/json", strings.NewReader(`{"query":"CUDA memory"}`))
				}
				if err != nil {
					return // the server is gone
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 500 && resp.StatusCode != 503 {
					t.Errorf("status %d", resp.StatusCode)
				}
				if i%3 == 0 && resp.StatusCode == 201 {
					mu.Lock()
					accepted = append(accepted, word)
					mu.Unlock()
				}
				if i > 300 {
					return
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	stop()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	wg.Wait()
	e.Close()
	if len(accepted) == 0 {
		t.Fatal("no append was accepted before the shutdown")
	}
	e, err = host.Open(ctx, core.Config{Storage: core.StorageConfig{Home: home}}, engine.Options{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, word := range accepted {
		res, err := e.Recall(ctx, core.Query{Text: word, TopK: 1})
		if err != nil || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Messages[0].Text, word) {
			t.Errorf("accepted append %s is lost", word)
		}
	}
	t.Logf("%d appends accepted before shutdown, all durable", len(accepted))
}

// TestGroupCommit sends many concurrent appends, some repeated: each
// request's counts are its own, and every message is stored once.
func TestGroupCommit(t *testing.T) {
	f := newFixture(t, core.ServerConfig{})
	const n = 40
	var wg sync.WaitGroup
	results := make([]MessagesResponse, 2*n)
	for i := range 2 * n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Requests i and i+n send the same message.
			body := fmt.Sprintf(`{"session":"g%d","role":"user","text":"group commit %dkiwi","time":"2026-11-29T10:00:00+08:00"}`, i%n, i%n)
			req, _ := http.NewRequest("POST", f.url+"/v1/messages", strings.NewReader(body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != 201 {
				t.Errorf("status %d", resp.StatusCode)
			}
			json.NewDecoder(resp.Body).Decode(&results[i])
		}()
	}
	wg.Wait()
	for i := range n {
		a, b := results[i], results[i+n]
		if a.Messages != 1 || b.Messages != 1 || a.Added+b.Added != 1 || a.Duplicates+b.Duplicates != 1 {
			t.Errorf("message %d: counts %+v and %+v, want one added and one duplicate", i, a, b)
		}
		if a.Stored[0].Duplicate == (a.Added == 1) {
			t.Errorf("message %d: duplicate flag %+v", i, a)
		}
	}
	st, err := f.eng.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := len(seed) + n; st.Messages != want {
		t.Errorf("%d messages stored, want %d", st.Messages, want)
	}
}

// TestTakeoverEndpoints drives the kernel through its plain JSON
// endpoints: a fact stated in one session is in the context assembled for
// another, sessions list and read back in order, and a closed session
// refuses appends.
func TestTakeoverEndpoints(t *testing.T) {
	f := newFixtureWith(t, core.ServerConfig{Token: adminToken, Tokens: []core.TokenSpec{{Token: aliceToken, Namespace: "alice"}}}, &core.TakeoverConfig{})
	for _, m := range []string{
		`{"role":"user","text":"My sister Lena lives in Porto and loves sardines.","time":"2026-11-20T10:00:00+08:00"}`,
		`{"role":"assistant","text":"Noted: Lena, Porto, sardines.","time":"2026-11-20T10:01:00+08:00"}`,
	} {
		if status, data := f.do(t, "POST", "/v1/sessions/t1/messages", aliceToken, m); status != 201 {
			t.Fatalf("append: %d %s", status, data)
		}
	}
	status, data := f.do(t, "POST", "/v1/sessions/t2/context", aliceToken, `{"message":"What does Lena like to eat in Porto?","budget":3000}`)
	if status != 200 || !strings.Contains(string(data), "sardines") {
		t.Fatalf("context: %d %s", status, data)
	}
	var asm struct {
		Messages []struct{ Role, Content string }
		Tokens   struct{ Budget, Total int }
	}
	json.Unmarshal(data, &asm)
	if asm.Tokens.Total > asm.Tokens.Budget || asm.Messages[len(asm.Messages)-1].Content != "What does Lena like to eat in Porto?" {
		t.Errorf("assembled %+v", asm)
	}
	if status, data := f.do(t, "GET", "/v1/sessions", aliceToken, ""); status != 200 || !strings.Contains(string(data), `"session":"t1"`) {
		t.Errorf("list: %d %s", status, data)
	}
	// Another namespace's token sees none of alice's sessions.
	if _, data := f.do(t, "GET", "/v1/sessions", adminToken, ""); strings.Contains(string(data), `"t1"`) {
		t.Errorf("the default namespace lists alice's session: %s", data)
	}
	status, data = f.do(t, "GET", "/v1/sessions/t1", aliceToken, "")
	if status != 200 || strings.Index(string(data), "Lena lives") > strings.Index(string(data), "Noted: Lena") {
		t.Errorf("read: %d %s", status, data)
	}
	if status, data := f.do(t, "POST", "/v1/sessions/t1/close", aliceToken, ""); status != 200 {
		t.Fatalf("close: %d %s", status, data)
	}
	status, data = f.do(t, "POST", "/v1/sessions/t1/messages", aliceToken, `{"role":"user","text":"more"}`)
	if status != 409 || errCode(t, data) != CodeSessionClosed {
		t.Errorf("append to a closed session: %d %s", status, data)
	}
	if status, _ := f.do(t, "GET", "/v1/sessions/nope", aliceToken, ""); status != 404 {
		t.Errorf("unknown session: %d", status)
	}
}

// TestForgetAndExport forgets over HTTP within the token's namespace only,
// and exports the caller's memory as JSON Lines.
func TestForgetAndExport(t *testing.T) {
	f := newFixture(t, core.ServerConfig{Token: adminToken, Tokens: []core.TokenSpec{{Token: aliceToken, Namespace: "alice"}}})
	// Alice cannot reach bob's memory, whatever she names.
	if status, _ := f.do(t, "POST", "/v1/forget", aliceToken, `{"all_namespace":true,"namespace":"bob"}`); status != 403 {
		t.Errorf("alice forgetting bob: %d", status)
	}
	status, data := f.do(t, "POST", "/v1/forget", aliceToken, `{"filter_expr":"session = 'diary'","dry_run":true}`)
	if status != 200 || !strings.Contains(string(data), "Mochi") || !strings.Contains(string(data), `"dry_run":true`) {
		t.Fatalf("dry run: %d %s", status, data)
	}
	if status, data := f.do(t, "POST", "/v1/forget", aliceToken, `{"session":"diary"}`); status != 200 {
		t.Fatalf("forget: %d %s", status, data)
	}
	if _, data := f.do(t, "POST", "/v1/recall", aliceToken, `{"query":"Mochi salmon"}`); len(resultsOf(data)) != 0 {
		t.Errorf("a forgotten message is still recalled: %s", data)
	}
	if _, data := f.do(t, "POST", "/v1/recall", adminToken, `{"query":"bank PIN","namespace":"bob"}`); len(resultsOf(data)) == 0 {
		t.Errorf("bob's memory went with alice's forget: %s", data)
	}
	if status, _ := f.do(t, "POST", "/v1/forget", aliceToken, `{"id":"zzzzzz"}`); status != 404 {
		t.Errorf("unknown id: %d", status)
	}
	if status, _ := f.do(t, "POST", "/v1/forget", aliceToken, `{}`); status != 400 {
		t.Errorf("no selector: %d", status)
	}
	// Export: the default namespace for the admin, nothing of bob's.
	status, data = f.do(t, "GET", "/v1/export", adminToken, "")
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if status != 200 || len(lines) != 4 || !strings.Contains(lines[0], `"session":"deploy"`) || strings.Contains(string(data), "4321") {
		t.Fatalf("export: %d %d lines\n%s", status, len(lines), data)
	}
	if status, _ := f.do(t, "GET", "/v1/export?namespace=bob", aliceToken, ""); status != 403 {
		t.Errorf("alice exporting bob: %d", status)
	}
	// One session: the same lines, and a clean 404 for an unknown one.
	status, one := f.do(t, "GET", "/v1/export?session=deploy", adminToken, "")
	if status != 200 || string(one) != string(data) {
		t.Errorf("export of session deploy: %d\n%s", status, one)
	}
	if status, data := f.do(t, "GET", "/v1/export?session=nope", adminToken, ""); status != 404 || !strings.Contains(string(data), `"not_found"`) {
		t.Errorf("export of an unknown session: %d %s", status, data)
	}
}

// TestManageTools runs the tools that look after memory through
// POST /v1/tools/{name}, with the same dispatcher the MCP server uses.
func TestManageTools(t *testing.T) {
	f := newFixture(t, core.ServerConfig{Token: adminToken, Tokens: []core.TokenSpec{{Token: aliceToken, Namespace: "alice"}}})
	call := func(token, name, args string) (int, ToolResponse) {
		t.Helper()
		status, data := f.do(t, "POST", "/v1/tools/"+name, token, args)
		var r ToolResponse
		json.Unmarshal(data, &r)
		return status, r
	}
	status, r := call(aliceToken, tools.ListSessions, `{}`)
	if status != 200 || !strings.Contains(r.Text, "1 session in namespace alice") || !strings.Contains(r.Text, "- diary: ") || strings.Contains(r.Text, "secret") {
		t.Errorf("alice's sessions: %d %+v", status, r)
	}
	status, r = call(adminToken, tools.MemoryStats, `{"namespace":"bob"}`)
	if status != 200 || !strings.HasPrefix(r.Text, "Namespace bob holds 1 message in 1 session") {
		t.Errorf("admin's stats of bob: %d %+v", status, r)
	}
	status, r = call(aliceToken, tools.ResolveTime, `{"phrase":"上周三下午"}`)
	if res, _ := r.Result.(map[string]any); status != 200 || res["start"] != "2026-11-18T12:00:00+08:00" {
		t.Errorf("resolve_time: %d %+v", status, r)
	}
	status, r = call(aliceToken, tools.ExportSession, `{"session":"diary"}`)
	if status != 200 || !strings.Contains(r.Text, "Mochi") || !strings.Contains(r.Text, "[id:") {
		t.Errorf("export_session: %d %+v", status, r)
	}
	status, r = call(aliceToken, tools.ForgetMemory, `{"session":"diary","dry_run":true}`)
	if status != 200 || !strings.HasPrefix(r.Text, "Dry run: forgetting would remove 1 message") {
		t.Errorf("forget_memory dry run: %d %+v", status, r)
	}
	if status, r = call(aliceToken, tools.ForgetMemory, `{"session":"diary"}`); status != 200 || !strings.HasPrefix(r.Text, "Forgot 1 message") {
		t.Errorf("forget_memory: %d %+v", status, r)
	}
	if status, _ := call(aliceToken, tools.ExportSession, `{"session":"diary"}`); status != 404 {
		t.Errorf("export of the forgotten session: %d", status)
	}
}
