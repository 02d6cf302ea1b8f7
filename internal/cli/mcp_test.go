package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/huimemory/huimemory/core/tools"
)

// lockedBuffer is a bytes.Buffer safe to write from one goroutine while
// another reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func mcpClient(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "huimem-test", Version: "v0"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("connecting to huimem mcp: %v", err)
	}
	return cs
}

// mcpCall calls a tool and returns its text and whether it was a tool
// error; a protocol error fails the test.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v", name, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T", name, res.Content[0])
	}
	return tc.Text, res.IsError
}

func mcpOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	s, isErr := mcpCall(t, cs, name, args)
	if isErr {
		t.Fatalf("%s %v: tool error %s", name, args, s)
	}
	return s
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names
}

var prevRE = regexp.MustCompile(`\[id:(\w+) \| prev: (\w+) \|`)

// exerciseMCP runs the tools the way an MCP host would on the quickstart
// home: recall, walk to the prev turn, remember, recall what was
// remembered, and a bad call.
func exerciseMCP(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	want := []string{tools.ExportSession, tools.ForgetMemory, tools.ListSessions, tools.MemoryStats, tools.RecallByID, tools.RecallMemory, tools.Remember, tools.ResolveTime}
	if diff := cmp.Diff(want, toolNames(t, cs)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	s := mcpOK(t, cs, tools.RecallMemory, map[string]any{"query": "ryokan near Gion", "top_k": 1})
	m := prevRE.FindStringSubmatch(s)
	if m == nil || !strings.Contains(s, "ryokan near Gion") {
		t.Fatalf("recall:\n%s", s)
	}
	s = mcpOK(t, cs, tools.RecallByID, map[string]any{"turn_id": m[2]})
	if !strings.Contains(s, "[id:"+m[2]+" ") || !strings.Contains(s, "next: "+m[1]) || !strings.Contains(s, "quiet temples") {
		t.Errorf("recall_by_id(%s), the prev of %s:\n%s", m[2], m[1], s)
	}
	mcpOK(t, cs, tools.Remember, map[string]any{"text": "My cat is called Mochi and she is allergic to chicken."})
	if s := mcpOK(t, cs, tools.RecallMemory, map[string]any{"query": "Mochi allergic"}); !strings.Contains(s, "allergic to chicken") {
		t.Errorf("recall after remember:\n%s", s)
	}
	s, isErr := mcpCall(t, cs, tools.RecallMemory, map[string]any{"query": "x", "top_k": "five"})
	if !isErr || s != `invalid_arguments: top_k must be an integer, not "five"` {
		t.Errorf("bad top_k: error %v, %q", isErr, s)
	}
	if s, isErr := mcpCall(t, cs, "nosuch", nil); !isErr || !strings.HasPrefix(s, `unknown_tool: unknown tool "nosuch"`) {
		t.Errorf("unknown tool: error %v, %q", isErr, s)
	}
}

// rememberedOnDisk checks, with a separate command that needs the home's
// lock, that the server released the home and stored what it was told.
func rememberedOnDisk(t *testing.T, home string) {
	t.Helper()
	out, errs, code := cli(t, home, "recall", "Mochi allergic")
	if code != 0 || !strings.Contains(out, "allergic to chicken") {
		t.Errorf("recall after the server stopped: code %d, %s\n%s", code, errs, out)
	}
}

func TestMCPStdioInProcess(t *testing.T) {
	home := ingested(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		code := run(t.Context(), []string{"--home", home, "mcp"}, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	cs := mcpClient(t, &mcp.IOTransport{Reader: outR, Writer: inW})
	exerciseMCP(t, cs)
	cs.Close() // closes stdin: the server stops
	if code := <-done; code != 0 {
		t.Fatalf("huimem mcp exited %d: %s", code, stderr.String())
	}
	errs := stderr.String()
	if !strings.Contains(errs, "huimem mcp: serving recall_memory, recall_by_id, remember, list_sessions, memory_stats, resolve_time, export_session, forget_memory on stdio") || !strings.Contains(errs, "stopping") {
		t.Errorf("stderr:\n%s", errs)
	}
	rememberedOnDisk(t, home)
}

func TestMCPStdioStopsOnCancel(t *testing.T) {
	home := ingested(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--home", home, "mcp", "--no-remember", "-n", "alice"}, inR, outW, &stderr)
	}()
	cs := mcpClient(t, &mcp.IOTransport{Reader: outR, Writer: inW})
	defer cs.Close()
	want := []string{tools.ExportSession, tools.ForgetMemory, tools.ListSessions, tools.MemoryStats, tools.RecallByID, tools.RecallMemory, tools.ResolveTime}
	if diff := cmp.Diff(want, toolNames(t, cs)); diff != "" {
		t.Errorf("tools with --no-remember (-want +got):\n%s", diff)
	}
	// Namespace alice is empty: the default namespace's turns are not hers.
	if s := mcpOK(t, cs, tools.RecallMemory, map[string]any{"query": "ryokan near Gion"}); !strings.HasPrefix(s, "No memories found") {
		t.Errorf("recall in namespace alice:\n%s", s)
	}
	cancel() // what SIGTERM does through main's signal context
	if code := <-done; code != 0 {
		t.Fatalf("huimem mcp exited %d after cancel: %s", code, stderr.String())
	}
	if out, errs, code := cli(t, home, "recall", "ryokan"); code != 0 || !strings.Contains(out, "ryokan") {
		t.Errorf("home not released: code %d %s", code, errs)
	}
}

func TestMCPBadFlags(t *testing.T) {
	home := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "-n", "a/b"}, "mcp: --namespace"},
		{[]string{"mcp", "extra"}, `unknown command "extra" for "huimem mcp"`},
		{[]string{"mcp", "--top-k", "3"}, "unknown flag: --top-k"},
	} {
		_, errs, code := cli(t, home, tt.args...)
		if code != exitUsage || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: code %d, stderr %q, want %q", tt.args, code, errs, tt.want)
		}
	}
}

// buildHuimem builds the huimem binary into a temporary directory.
func buildHuimem(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "huimem")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/huimem").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestMCPSubprocess(t *testing.T) {
	bin := buildHuimem(t)
	home := ingested(t)

	t.Run("until EOF", func(t *testing.T) {
		cmd := exec.Command(bin, "--home", home, "mcp")
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		cs := mcpClient(t, &mcp.CommandTransport{Command: cmd})
		exerciseMCP(t, cs)
		if err := cs.Close(); err != nil { // closes stdin and waits for the exit
			t.Fatalf("huimem mcp did not exit cleanly: %v\n%s", err, stderr.String())
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("exit code %d:\n%s", code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "the client closed the connection; stopping") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
		rememberedOnDisk(t, home)
	})

	t.Run("SIGTERM", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("no SIGTERM on windows")
		}
		cmd := exec.Command(bin, "--home", home, "mcp", "--namespace", "work")
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		cs := mcpClient(t, &mcp.CommandTransport{Command: cmd})
		mcpOK(t, cs, tools.Remember, map[string]any{"text": "The quarterly report is due on Friday.", "session": "work-notes"})
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		err := cs.Close()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("close: %v", err)
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("exit code %d after SIGTERM:\n%s", code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "stopping") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
		// Durable, in its namespace only.
		out, errs, code := cli(t, home, "recall", "--json", "-n", "work", "quarterly report")
		var res struct {
			Results []struct{ Session, Namespace string }
		}
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) == 0 ||
			res.Results[0].Session != "work-notes" || res.Results[0].Namespace != "work" {
			t.Errorf("after SIGTERM: code %d %s\n%s", code, errs, out)
		}
		if out, _, _ := cli(t, home, "recall", "quarterly report due Friday"); strings.Contains(out, "work-notes") {
			t.Errorf("the default namespace holds namespace work's message:\n%s", out)
		}
	})
}
