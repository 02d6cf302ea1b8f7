package formats

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

// TestStreamFileMatchesReadFile reads every fixture both ways.
func TestStreamFileMatchesReadFile(t *testing.T) {
	for _, file := range []string{
		"chatgpt/conversations.json", "claude/conversations.json",
		"claude-code/4c1e6a9b-2f3d-4e5a-8b7c-9d0e1f2a3b4c.jsonl",
		"codex/rollout-2026-11-18T09-30-12-019a8f3c-7d21-7e40-b5a1-3c2d1e0f9a8b.jsonl",
		"slack/export/general/2026-11-19.json", "text/prefixed.txt", "markdown/chat_deploy-bug.md", "jsonl/conversation.jsonl",
	} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join("testdata", filepath.FromSlash(file))
			opts := Options{Namespace: "ns", Location: time.UTC, ModTime: fixedModTime}
			want, wf, err := ReadFile(path, "", opts)
			if err != nil {
				t.Fatal(err)
			}
			f, seq, err := StreamFile(path, "", opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := collect(seq)
			if err != nil {
				t.Fatal(err)
			}
			if f.Name != wf.Name {
				t.Errorf("format %s, want %s", f.Name, wf.Name)
			}
			if len(want) == 0 {
				t.Fatal("the fixture holds no messages")
			}
			if diff := cmp.Diff(toGolden(want), toGolden(got)); diff != "" {
				t.Errorf("(-ReadFile +StreamFile):\n%s", diff)
			}
			// Stopping early is fine.
			for range seq {
				break
			}
		})
	}
}

// failAfter reads r and then fails, as a file cut off or unreadable after
// its first bytes.
type failAfter struct{ r io.Reader }

func (f *failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errors.New("disk gone")
	}
	return n, err
}

// TestStreamsYieldBeforeTheEnd checks that the long formats hand out
// messages as they read, before they reach the end of the input: a
// stream that fails at the end has yielded everything before it first.
func TestStreamsYieldBeforeTheEnd(t *testing.T) {
	conv := func(i int) string {
		return fmt.Sprintf(`{"id":"c%d","mapping":{"a":{"id":"a","message":{"id":"m%d","author":{"role":"user"},"create_time":%d,"content":{"content_type":"text","parts":["hello %d"]}}}},"current_node":"a"}`, i, i, 1700000000+i, i)
	}
	line := func(i int) string {
		return fmt.Sprintf(`{"session":"s","time":"2026-01-01T00:00:%02dZ","role":"user","text":"hello %d"}`, i, i)
	}
	var gpt, jl []string
	for i := range 50 {
		gpt, jl = append(gpt, conv(i)), append(jl, line(i))
	}
	for _, tt := range []struct{ format, in string }{
		{"chatgpt", "[" + strings.Join(gpt, ",\n")},
		{"jsonl", strings.Join(jl, "\n") + "\n"},
	} {
		f, _ := Lookup(tt.format)
		n := 0
		var last error
		for m, err := range f.stream(&failAfter{strings.NewReader(tt.in)}, "x", Options{Location: time.UTC}) {
			if err != nil {
				last = err
				break
			}
			if m.Validate() != nil {
				t.Errorf("%s: invalid message %+v", tt.format, m)
			}
			n++
		}
		if n != 50 || last == nil {
			t.Errorf("%s: %d messages before the error %v, want 50 and an error", tt.format, n, last)
		}
		var ie *core.InputError
		if tt.format == "chatgpt" && !errors.As(last, &ie) {
			t.Errorf("%s: error %v does not name the file", tt.format, last)
		}
	}
}
