package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/archive/transcript"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// fixedModTime stands in for the file time of plain-text fixtures, whose
// mtime changes with every checkout.
var fixedModTime = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// goldenMessage is a message as the golden files hold it: times as RFC
// 3339 with their offset, so that a change of location shows.
type goldenMessage struct {
	Namespace string `json:"namespace,omitempty"`
	Session   string `json:"session"`
	Time      string `json:"time"`
	Role      string `json:"role,omitempty"`
	Speaker   string `json:"speaker,omitempty"`
	Text      string `json:"text"`
	Ref       string `json:"ref,omitempty"`
}

func toGolden(msgs []core.Message) []goldenMessage {
	out := make([]goldenMessage, len(msgs))
	for i, m := range msgs {
		out[i] = goldenMessage{m.Namespace, m.Session, m.Time.Format(time.RFC3339Nano), string(m.Role), m.Speaker, m.Text, m.Ref}
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, tt := range []struct {
		file, format, golden string
	}{
		{"chatgpt/conversations.json", "chatgpt", "chatgpt"},
		{"claude/conversations.json", "claude", "claude"},
		{"claude-code/4c1e6a9b-2f3d-4e5a-8b7c-9d0e1f2a3b4c.jsonl", "claude-code", "claude-code"},
		{"codex/rollout-2026-11-18T09-30-12-019a8f3c-7d21-7e40-b5a1-3c2d1e0f9a8b.jsonl", "codex", "codex"},
		{"slack/export/general/2026-11-19.json", "slack", "slack-general"},
		{"slack/export/D024BE91L/2026-11-20.json", "slack", "slack-dm"},
		{"text/mempalace-style.txt", "text", "text-mempalace"},
		{"text/prefixed.txt", "text", "text-prefixed"},
		{"text/中文对话.txt", "text", "text-chinese"},
		{"markdown/chat_deploy-bug.md", "markdown", "markdown"},
		{"jsonl/conversation.jsonl", "jsonl", "jsonl"},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			path := filepath.Join("testdata", filepath.FromSlash(tt.file))
			msgs, f, err := ReadFile(path, "", Options{Namespace: "", Location: time.UTC, ModTime: fixedModTime})
			if err != nil {
				t.Fatal(err)
			}
			if f.Name != tt.format {
				t.Errorf("detected format %q, want %q", f.Name, tt.format)
			}
			got := toGolden(msgs)
			gpath := filepath.Join("testdata", "golden", tt.golden+".json")
			if *update {
				data, err := json.MarshalIndent(got, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(gpath, append(data, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(gpath)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			var want []goldenMessage
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("messages differ from %s (-want +got):\n%s", gpath, diff)
			}
			// The same file read with --format gives the same messages.
			forced, _, err := ReadFile(path, tt.format, Options{Location: time.UTC, ModTime: fixedModTime})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, toGolden(forced)); diff != "" {
				t.Errorf("with --format %s (-detected +forced):\n%s", tt.format, diff)
			}
		})
	}
}

// TestMarkdownRoundTrip renders the messages read from a transcript with
// transcript.Render and gets the fixture back byte for byte.
func TestMarkdownRoundTrip(t *testing.T) {
	path := filepath.Join("testdata", "markdown", "chat_deploy-bug.md")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	msgs, _, err := ReadFile(path, "markdown", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := transcript.Render(&buf, "", "deploy-bug", msgs); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("re-rendered transcript differs (-fixture +rendered):\n%s", diff)
	}
}

func TestStripNoise(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain text\n", "plain text\n"},
		{"a <b> c", "a <b> c"},
		{"question\n\n<system-reminder>\nremember X\n</system-reminder>", "question"},
		{"<system-reminder>x</system-reminder>\nhello", "hello"},
		{"\x1b[31mFAIL\x1b[0m done", "FAIL done"},
		{"\x1b]0;title\x07ok", "ok"},
		{"<user-prompt-submit-hook>lint ok</user-prompt-submit-hook>\nfix it", "fix it"},
		{"<system-reminder>only noise</system-reminder>", ""},
	} {
		if got := StripNoise(tt.in); got != tt.want {
			t.Errorf("StripNoise(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, tt := range []struct{ name, head, want string }{
		{"x.jsonl", `{"session":"s","time":"2026-01-01T00:00:00Z","role":"user","text":"hi"}`, "jsonl"},
		{"c.json", `[{"title":"t","mapping":{}}]`, "chatgpt"},
		{"c.json", `{"title":"t","mapping":{},"current_node":"a"}`, "chatgpt"},
		{"c.json", `[{"uuid":"u","chat_messages":[]}]`, "claude"},
		{"s.jsonl", `{"type":"summary","summary":"x","leafUuid":"u"}`, "claude-code"},
		{"r.jsonl", `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{}}`, "codex"},
		{"r.jsonl", `{"id":"x","timestamp":"2025-05-01T00:00:00Z","instructions":null}`, "codex"},
		{"general/2026-01-01.json", `[{"type":"message","ts":"1.0","text":"x"}]`, "slack"},
		{"general/2026-01-02.json", `[]`, "slack"},
		{"cut.jsonl", `{"session":"s","time":"2026-01-01T00:00`, "jsonl"}, // the JSONL reader names the bad line
		{"t.txt", "> hi\nhello\n", "text"},
		{"t.txt", "User: hi\nAssistant: hello\n", "text"},
		{"chat_x.md", "# chat_x\n\n- session: x\n\n### a · 2026-01-01 Thu 00:00:00 +00:00\nhi\n", "markdown"},
	} {
		f, err := Detect(tt.name, []byte(tt.head))
		if err != nil {
			t.Errorf("Detect(%q, %q): %v", tt.name, tt.head, err)
			continue
		}
		if f.Name != tt.want {
			t.Errorf("Detect(%q, %q) = %s, want %s", tt.name, tt.head, f.Name, tt.want)
		}
	}
	for _, head := range []string{"", "just some notes\n", `{"hello":"world"}`, `[1,2,3]`, "> a quote with nothing after"} {
		_, err := Detect("notes.txt", []byte(head))
		if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "chatgpt, claude, claude-code, codex, slack, markdown, text, jsonl") ||
			!strings.HasPrefix(err.Error(), "notes.txt: ") {
			t.Errorf("Detect(%q) error %v, want an unknown format error naming the file and listing the formats", head, err)
		}
	}
	if _, err := Lookup("whatsapp"); err == nil || !strings.Contains(err.Error(), "supported formats are chatgpt, claude") {
		t.Errorf("Lookup(whatsapp) error %v, want a list of formats", err)
	}
}

func TestErrors(t *testing.T) {
	for _, tt := range []struct{ name, format, in, want string }{
		{"c.json", "chatgpt", "[{\"id\":\"a\",\n\"mapping\": {,}}]", "c.json:2: invalid JSON at byte offset 25"},
		{"c.json", "chatgpt", `[{"id":"a","mapping":{"n":{"id":"n"}},"current_node":"zz"}]`, `c.json: conversation 1 (""): current_node "zz" is not in the mapping`},
		{"c.json", "chatgpt", `[{"id":"a","mapping":{"n":{"id":"n","parent":"n"}},"current_node":"n"}]`, `has a cycle at node "n"`},
		{"c.json", "chatgpt", "[{\"id\":\"a\",\n\"mapping\":{}", "c.json:2: invalid JSON at byte offset 24: unexpected end of file"},
		{"c.json", "chatgpt", `[] []`, "c.json:1: unexpected data after the JSON document at byte offset"},
		{"c.json", "claude", `[{"uuid":"u","chat_messages":[{"uuid":"m","text":"x","sender":"robot","created_at":"2026-01-01T00:00:00Z"}]}]`, `c.json: conversation 1 (""): message "m": unknown sender "robot"`},
		{"c.json", "claude", `{"uuid":"u"}`, "c.json:1: invalid JSON at byte offset 1: field \"\" must be []formats.claudeConversation, not object"},
		{"s.jsonl", "claude-code", "{\"type\":\"summary\"}\n{\"type\":\"user\",\"sessionId\":\"s\",\"uuid\":\"u\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"", "s.jsonl:2: invalid JSON: unexpected end of line (truncated?)"},
		{"s.jsonl", "claude-code", `{"type":"user","sessionId":"s","uuid":"u","timestamp":"yesterday","message":{"role":"user","content":"hi"}}`, `s.jsonl:1: bad timestamp "yesterday"`},
		{"s.jsonl", "claude-code", `{"type":"user","sessionId":"s","uuid":"u","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":7}}`, "s.jsonl:1: message content must be a string or an array of blocks"},
		{"r.jsonl", "codex", "{\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"x\"}}\n\n{\"timestamp\":\"bad\",\"type\":\"response_item\",\"payload\":{}}", `r.jsonl:3: bad timestamp "bad"`},
		{"r.jsonl", "codex", "{\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"x\"}} {}", "r.jsonl:1: unexpected data after the JSON object at column"},
		{"ch/2026-01-01.json", "slack", `[{"type":"message","ts":"soon","user":"U1","text":"x"}]`, `ch/2026-01-01.json: message 1: bad ts "soon"`},
		{"t.txt", "text", "nothing marked here\n", ""},
		{"chat_x.md", "markdown", "no title\n", "chat_x.md:1: not a HuiMemory transcript"},
		{"x.jsonl", "jsonl", `{"session":"s"}`, "x.jsonl:1: missing time"},
	} {
		_, _, err := Read([]byte(tt.in), tt.name, tt.format, Options{})
		if tt.want == "" {
			// A text file with no markers is one system message, not an error.
			if err != nil {
				t.Errorf("%s %q: %v", tt.format, tt.in, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %q: error %v, want %q", tt.format, tt.in, err, tt.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.name) {
			t.Errorf("%s: error %q does not start with the file name", tt.format, err)
		}
		if !errors.Is(err, core.ErrInvalid) {
			t.Errorf("%s: error %v does not wrap core.ErrInvalid", tt.format, err)
		}
	}
}

// fuzzJSON checks that a normaliser never panics, returns all or nothing,
// returns only valid messages and reports errors as InputErrors.
func fuzzJSON(f *testing.F, format, name string, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		msgs, _, err := Read([]byte(in), name, format, Options{})
		if err != nil {
			var ie *core.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an InputError", err, err)
			}
			if msgs != nil {
				t.Fatal("messages returned with an error")
			}
			return
		}
		for i := range msgs {
			if err := msgs[i].Validate(); err != nil {
				t.Fatalf("message %d accepted but invalid: %v", i, err)
			}
		}
	})
}

func seed(f *testing.F, path string) string {
	data, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(path)))
	if err != nil {
		f.Fatal(err)
	}
	return string(data)
}

func FuzzChatGPT(f *testing.F) {
	fuzzJSON(f, "chatgpt", "conversations.json", seed(f, "chatgpt/conversations.json"),
		`{"id":"c","create_time":1,"mapping":{"a":{"id":"a","message":{"id":"a","author":{"role":"user"},"content":{"content_type":"text","parts":["hi"]}}}},"current_node":"a"}`)
}

func FuzzClaude(f *testing.F) {
	fuzzJSON(f, "claude", "conversations.json", seed(f, "claude/conversations.json"),
		`[{"uuid":"u","chat_messages":[{"uuid":"m","text":"x","sender":"human","created_at":"2026-01-01T00:00:00Z"}]}]`)
}

func FuzzClaudeCode(f *testing.F) {
	fuzzJSON(f, "claude-code", "s.jsonl", seed(f, "claude-code/4c1e6a9b-2f3d-4e5a-8b7c-9d0e1f2a3b4c.jsonl"),
		`{"type":"user","sessionId":"s","uuid":"u","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`)
}

func FuzzCodex(f *testing.F) {
	fuzzJSON(f, "codex", "rollout.jsonl", seed(f, "codex/rollout-2026-11-18T09-30-12-019a8f3c-7d21-7e40-b5a1-3c2d1e0f9a8b.jsonl"),
		"{\"id\":\"x\",\"timestamp\":\"2025-05-01T00:00:00Z\",\"instructions\":null}\n{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"hi\"}]}")
}

func FuzzSlack(f *testing.F) {
	fuzzJSON(f, "slack", "general/2026-11-19.json", seed(f, "slack/export/general/2026-11-19.json"),
		`[{"type":"message","ts":"1763517720.1234","user":"U1","text":"hi"}]`)
}

func FuzzJSONL(f *testing.F) {
	fuzzJSON(f, "jsonl", "x.jsonl", seed(f, "jsonl/conversation.jsonl"))
}

// FuzzDetect runs detection and then the detected reader on any input.
func FuzzDetect(f *testing.F) {
	fuzzJSON(f, "", "in.txt", seed(f, "text/prefixed.txt"), seed(f, "markdown/chat_deploy-bug.md"), "> q\na\n")
}
