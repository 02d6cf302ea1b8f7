package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// TestAppendWritesOnlyWhatChanged checks that an append to a long session
// writes the chunks it changes and no other: the plan compares each chunk
// it makes with the stored record.
func TestAppendWritesOnlyWhatChanged(t *testing.T) {
	e := openTest(t)
	base := time.Date(2026, 4, 13, 9, 0, 0, 0, time.UTC)
	msg := func(i int, role core.Role, text string) core.Message {
		return core.Message{Session: "s1", Time: base.Add(time.Duration(i) * time.Minute), Role: role, Text: text}
	}
	var msgs []core.Message
	for i := range 20 {
		msgs = append(msgs, msg(2*i, core.RoleUser, fmt.Sprintf("question %d about the deploy", i)),
			msg(2*i+1, core.RoleAssistant, fmt.Sprintf("answer %d: use the staging cluster", i)))
	}
	if res := ingest(t, e, msgs); res.Chunks != 20 {
		t.Fatalf("first ingest wrote %d chunks, want 20", res.Chunks)
	}
	for _, tt := range []struct {
		name string
		m    core.Message
		want int
	}{
		// The new chunk, and the last one, whose next link changes.
		{"a new user message", msg(40, core.RoleUser, "question 20 about the rollback"), 2},
		// The last chunk, whose reply grows.
		{"the reply to it", msg(41, core.RoleAssistant, "answer 20: revert the tag"), 1},
		{"the same reply again", msg(41, core.RoleAssistant, "answer 20: revert the tag"), 0},
	} {
		if res := ingest(t, e, []core.Message{tt.m}); res.Chunks != tt.want {
			t.Errorf("%s: wrote %d chunks, want %d", tt.name, res.Chunks, tt.want)
		}
	}
	if ids := chainOf(t, e, "", "s1"); len(ids) != 21 {
		t.Errorf("session has %d chunks, want 21", len(ids))
	}
}
