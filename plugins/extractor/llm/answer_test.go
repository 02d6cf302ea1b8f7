package llm_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/huimemory/huimemory/plugins/extractor/llm"
)

// FuzzParseAnswer: any content gives either an error that wraps
// ErrBadAnswer or memories within every documented limit; never a panic.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		goodAnswer, `{"memories": []}`, `{"memories": null}`, "", "```json\n{}\n```",
		`{"memories": [{"type": "problem", "facts": ["构建失败"], "entities": ["CI"], "topic": "构建"}]}`,
		`{"memories": [{"type": "decision", "facts": [" "], "entities": [], "topic": ""}]} x`,
		`{"memories": [{"type": 1, "facts": [2]}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		mems, err := llm.ParseAnswer(content)
		if err != nil {
			if !errors.Is(err, llm.ErrBadAnswer) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line wrapping ErrBadAnswer", err)
			}
			return
		}
		if len(mems) > llm.MaxMemories {
			t.Fatalf("%d memories", len(mems))
		}
		for _, m := range mems {
			if !slices.Contains(llm.Types, m.Type) || m.Extractor != llm.Name ||
				len(m.Facts) == 0 || len(m.Facts) > llm.MaxFacts || len(m.Entities) > llm.MaxEntities ||
				utf8.RuneCountInString(m.Topic) > llm.MaxTopicRunes {
				t.Fatalf("memory out of bounds: %+v", m)
			}
			for _, s := range append(slices.Clone(m.Facts), m.Entities...) {
				if strings.TrimSpace(s) == "" || s != strings.TrimSpace(s) || utf8.RuneCountInString(s) > llm.MaxFactRunes {
					t.Fatalf("bad string %q in %+v", s, m)
				}
			}
		}
	})
}
