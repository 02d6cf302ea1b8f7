package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/huimemory/huimemory/core/kernel"
)

func TestTakeoverRecallsSessionOne(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out, t.TempDir(), 3000, false); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	sys, _, _ := strings.Cut(text, "--- user ---")
	for _, want := range []string{"## Memories recalled for this message", "chat_s1-moving.md", "allergic to peanuts", "[id:"} {
		if !strings.Contains(sys, want) {
			t.Errorf("session 3's system message lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "staging cluster") {
		t.Errorf("session 2's unrelated turn was recalled:\n%s", sys)
	}
	for _, want := range []string{"recall_memory\nrecall_by_id\n", "--- tokens ---\nbudget 3000, total "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

func TestTakeoverBudgetHolds(t *testing.T) {
	tok, err := kernel.NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{120, 400, 1000, 3000, 8000} {
		var out bytes.Buffer
		if err := run(t.Context(), &out, t.TempDir(), budget, true); err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		var a kernel.Assembled
		if err := json.Unmarshal(out.Bytes(), &a); err != nil {
			t.Fatalf("budget %d: %v\n%s", budget, err, out.String())
		}
		// Count again, independently of the kernel's own figures.
		n := 0
		for _, m := range a.Messages {
			n += tok.Count(m.Content) + kernel.MessageOverhead
		}
		if len(a.Tools) > 0 {
			b, _ := json.Marshal(a.Tools)
			n += tok.Count(string(b))
		}
		if n > budget || a.Tokens.Total != n {
			t.Errorf("budget %d: counted %d tokens, the kernel says %d", budget, n, a.Tokens.Total)
		}
		if last := a.Messages[len(a.Messages)-1]; last.Role != "user" || !strings.Contains(last.Content, "allergic") {
			t.Errorf("budget %d: the question is not last: %+v", budget, last)
		}
	}
}
