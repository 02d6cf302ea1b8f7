package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core/tools"
)

func TestToolsSchemas(t *testing.T) {
	for _, tc := range []struct {
		args []string
		f    tools.Format
		opts tools.Options
	}{
		{[]string{"tools"}, tools.FormatOpenAI, tools.Options{}},
		{[]string{"tools", "--format", "openai"}, tools.FormatOpenAI, tools.Options{}},
		{[]string{"tools", "--format", "anthropic"}, tools.FormatAnthropic, tools.Options{}},
		{[]string{"tools", "--format", "mcp", "--remember"}, tools.FormatMCP, tools.Options{Remember: true}},
		{[]string{"tools", "--namespace-arg"}, tools.FormatOpenAI, tools.Options{AllowNamespace: true}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			// The home does not exist and must not be created.
			home := filepath.Join(t.TempDir(), "nohome")
			out, errs, code := cli(t, home, tc.args...)
			if code != 0 || errs != "" {
				t.Fatalf("code %d, stderr %q", code, errs)
			}
			if _, err := os.Stat(home); !os.IsNotExist(err) {
				t.Errorf("huimem tools touched the home: %v", err)
			}
			var got any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, out)
			}
			want := schemasAsJSON(t, tc.f, tc.opts)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("schemas (-want +got):\n%s", d)
			}
			if !strings.HasSuffix(out, "]\n") {
				t.Errorf("output does not end in one newline: %q", out[max(0, len(out)-10):])
			}
		})
	}
}

// schemasAsJSON is what tools.Schemas gives, as generic JSON values.
func schemasAsJSON(t *testing.T, f tools.Format, opts tools.Options) any {
	t.Helper()
	s, err := tools.Schemas(tools.Definitions(opts), f)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(s)
	var v any
	json.Unmarshal(data, &v)
	return v
}

func TestToolsOpenAIShape(t *testing.T) {
	out, _, code := cli(t, t.TempDir(), "tools")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	var got []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range got {
		names = append(names, g.Type+":"+g.Function.Name)
		if g.Function.Parameters["type"] != "object" || g.Function.Description == "" {
			t.Errorf("%s: parameters %v", g.Function.Name, g.Function.Parameters)
		}
	}
	if d := cmp.Diff([]string{"function:recall_memory", "function:recall_by_id"}, names); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
}

func TestToolsPrompt(t *testing.T) {
	for _, tc := range []struct {
		args []string
		lang string
	}{
		{[]string{"tools", "--prompt"}, "en"},
		{[]string{"tools", "--prompt", "--lang", "en"}, "en"},
		{[]string{"tools", "--prompt", "--lang", "zh"}, "zh"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "nohome")
			out, errs, code := cli(t, home, tc.args...)
			if code != 0 || errs != "" {
				t.Fatalf("code %d, stderr %q", code, errs)
			}
			want, err := tools.Prompt(tc.lang)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(strings.TrimRight(want, "\n")+"\n", out); d != "" {
				t.Errorf("prompt (-want +got):\n%s", d)
			}
			if _, err := os.Stat(home); !os.IsNotExist(err) {
				t.Errorf("huimem tools --prompt touched the home: %v", err)
			}
		})
	}
}

func TestToolsUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"tools", "--format", "gemini"}, `tools: unknown --format "gemini" (want openai, anthropic or mcp)`},
		{[]string{"tools", "--format", ""}, `tools: unknown --format ""`},
		{[]string{"tools", "--prompt", "--lang", "fr"}, `tools: unknown --lang "fr" (want en or zh)`},
		{[]string{"tools", "--prompt", "--lang", ""}, `tools: unknown --lang ""`},
		{[]string{"tools", "--lang", "zh"}, "tools: --lang goes with --prompt"},
		{[]string{"tools", "--prompt", "--format", "mcp"}, "tools: --prompt prints the prompt, not schemas"},
		{[]string{"tools", "extra"}, "tools: unknown command"},
		{[]string{"tools", "--frobnicate"}, "unknown flag: --frobnicate"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errs, code := cli(t, t.TempDir(), tc.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d (stderr %q)", code, exitUsage, errs)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "huimem: ") || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("stderr %q, want one line with %q", errs, tc.wantErr)
			}
		})
	}
}
