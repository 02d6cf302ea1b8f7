package builtin_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/builtin"
)

func TestNames(t *testing.T) {
	for kind, want := range map[string][]string{
		builtin.KindEmbedder:  {"hash", "openai", "use-lite"},
		builtin.KindChunker:   {"markdown", "message", "turn", "window"},
		builtin.KindExtractor: {"general", "llm", "topic"},
		"renderer":            nil,
	} {
		if d := cmp.Diff(want, builtin.Names(kind)); d != "" {
			t.Errorf("Names(%q) (-want +got):\n%s", kind, d)
		}
	}
	if !builtin.Known("chunker", "window") || builtin.Known("chunker", "hash") {
		t.Error("Known mixes up kinds")
	}
}

func TestOptionErrors(t *testing.T) {
	ctx := t.Context()
	window, _ := builtin.Chunker("window")
	for _, tc := range []struct {
		name    string
		build   func() error
		want    string
		invalid bool
	}{
		{"window: bad number and unknown key", func() error {
			_, err := window(ctx, map[string]string{"size": "big", "step": "2"})
			return err
		}, `chunker window: option size: "big" is not a whole number; option step: unknown: the window chunker takes size, overlap`, true},
		{"turn takes max_chars only", func() error {
			f, _ := builtin.Chunker("turn")
			_, err := f(ctx, map[string]string{"size": "1"})
			return err
		}, "chunker turn: option size: unknown: the turn chunker takes max_chars", true},
		{"turn: max_chars not a number", func() error {
			f, _ := builtin.Chunker("turn")
			_, err := f(ctx, map[string]string{"max_chars": "long"})
			return err
		}, `chunker turn: option max_chars: "long" is not a whole number`, true},
		{"turn: max_chars -1 keeps exchanges whole", func() error {
			f, _ := builtin.Chunker("turn")
			_, err := f(ctx, map[string]string{"max_chars": "-1"})
			return err
		}, "", false},
		{"hash: dimension out of range", func() error {
			f, _ := builtin.Embedder("hash")
			_, err := f(ctx, map[string]string{"dim": "3"})
			return err
		}, "embedder hash: hash embedder: dimension 3 is not between 8 and 65536", false},
		{"hash ignores other embedding settings", func() error {
			f, _ := builtin.Embedder("hash")
			_, err := f(ctx, map[string]string{"dim": "64", "api_key_env": "OPENAI_API_KEY", "batch_size": "64"})
			return err
		}, "", false},
		{"use-lite has 512 dimensions", func() error {
			f, _ := builtin.Embedder("use-lite")
			_, err := f(ctx, map[string]string{"dim": "256"})
			return err
		}, "embedder use-lite: option dim: 256: use-lite has 512 dimensions", true},
		{"openai: bad duration", func() error {
			f, _ := builtin.Embedder("openai")
			_, err := f(ctx, map[string]string{"base_url": "http://127.0.0.1:1", "model": "m", "timeout": "soon"})
			return err
		}, `embedder openai: option timeout: "soon" is not a duration such as 30s`, true},
		{"general takes no options", func() error {
			f, _ := builtin.Extractor("general")
			_, err := f(ctx, map[string]string{"lang": "en"})
			return err
		}, "extractor general: option lang: unknown: the general extractor takes no options", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.build()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			if errors.Is(err, core.ErrInvalid) != tc.invalid {
				t.Errorf("errors.Is(err, core.ErrInvalid) = %v, want %v", !tc.invalid, tc.invalid)
			}
		})
	}
}

func ExampleEmbedderOptions() {
	var cfg core.Config
	cfg.Embedding.Name = "openai"
	cfg.Embedding.Model = "nomic-embed-text"
	cfg.Embedding.BaseURL = "http://localhost:11434"
	cfg.Embedding.Options = map[string]string{"max_retries": "2"}
	cfg.SetDefaults()
	// The map the built-in receives, in process or in its Configure call.
	fmt.Println(builtin.EmbedderOptions(cfg.Embedding))
	// Output: map[api_key_env:OPENAI_API_KEY base_url:http://localhost:11434 batch_size:64 max_retries:2 model:nomic-embed-text]
}

// TestTurnMaxChars checks that the turn chunker's max_chars option reaches
// the chunker: by default a long exchange is cut into a chunk per message,
// with -1 it stays whole.
func TestTurnMaxChars(t *testing.T) {
	f, _ := builtin.Chunker("turn")
	msgs := []core.SessionMessage{
		{Message: core.Message{Role: core.RoleUser, Text: "q"}, HeaderLine: 1, TextStart: 2, TextEnd: 2},
		{Message: core.Message{Role: core.RoleAssistant, Text: strings.Repeat("a", 3000)}, HeaderLine: 4, TextStart: 5, TextEnd: 5},
	}
	for _, tc := range []struct {
		options map[string]string
		chunks  int
	}{{nil, 2}, {map[string]string{"max_chars": "-1"}, 1}, {map[string]string{"max_chars": "5000"}, 1}} {
		c, err := f(t.Context(), tc.options)
		if err != nil {
			t.Fatal(err)
		}
		spans, err := c.Chunk(t.Context(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if len(spans) != tc.chunks {
			t.Errorf("options %v: %d chunks, want %d", tc.options, len(spans), tc.chunks)
		}
	}
}
