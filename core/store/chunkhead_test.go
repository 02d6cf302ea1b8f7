package store

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// checkHead checks that parseChunkHead reads from c's record the fields
// that the full decoder reads.
func checkHead(t testing.TB, c Chunk) {
	t.Helper()
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Chunk
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	want := ChunkHead{Prev: back.Prev, Next: back.Next, NS: back.NS, Session: back.Session, Asks: back.Asks, Time: back.StartTime()}
	got, err := parseChunkHead(raw)
	if err != nil {
		t.Fatalf("parseChunkHead(%s): %v", raw, err)
	}
	if got.Prev != want.Prev || got.Next != want.Next || got.NS != want.NS || got.Session != want.Session || got.Asks != want.Asks || !got.Time.Equal(want.Time) {
		t.Errorf("got %+v, want %+v from %s", got, want, raw)
	}
}

func TestParseChunkHead(t *testing.T) {
	base := Chunk{
		ID: "a3f2c7", Key: core.ChunkKey{1, 2, 3, 250}, Session: "s1",
		Time: "2026-04-13T09:30:00.123+08:00", End: "2026-04-13T09:31:00+08:00",
		File: "sessions/2026-W16/2026-04-13/chat_s1.md", LineStart: 3, LineEnd: 9,
		Msgs: []MsgRef{{}}, Text: `a "quoted" reply, with {braces} and [brackets]`,
		Roles: []string{"user", "assistant"},
	}
	tests := []struct {
		name string
		edit func(*Chunk)
	}{
		{"first chunk of a session", func(c *Chunk) { c.Next = "k7f2a1" }},
		{"middle chunk", func(c *Chunk) { c.Prev, c.Next = "k7f2a1", "d2n7p3" }},
		{"last chunk", func(c *Chunk) { c.Prev = "k7f2a1" }},
		{"alone", func(c *Chunk) {}},
		{"namespace", func(c *Chunk) { c.NS, c.Prev = "team-a", "k7f2a1" }},
		{"escaped session", func(c *Chunk) { c.Session = "chat \"x\"\\y\u00e9\u4f60\t\n" }},
		{"unicode namespace and session", func(c *Chunk) { c.NS, c.Session = "团队", "会话<1>&" }},
		{"UTC time", func(c *Chunk) { c.Time = "2026-01-01T00:00:00Z" }},
		{"a question without roles", func(c *Chunk) { c.Roles, c.Asks, c.Next = nil, true, "d2n7p3" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c)
			checkHead(t, c)
		})
	}
}

func TestParseChunkHeadErrors(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{``, "expected '{' at byte 0"},
		{`[1]`, "expected '{' at byte 0"},
		{`{"id":"x","prev":`, "expected a string at byte 17"},
		{`{"id":"x","prev":"abc`, "unterminated string at byte 17"},
		{`{"id" "x"}`, "expected ':' at byte 6"},
		{`{"k":[1,2,"x`, "unterminated string at byte 10"},
		{`{"k":[1,2`, "unterminated value at byte 9"},
		{`{"id":"x" "t":"2026"}`, "expected ',' or '}' at byte 10"},
		{`{"t":"yesterday"}`, "time at byte 16"},
		{`{"q":yes,"t":"2026"}`, "expected true or false at byte 5"},
		{`{"q":true "t":"2026"}`, "expected ',' or '}' at byte 10"},
	} {
		_, err := parseChunkHead([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseChunkHead(%q) = %v, want an error with %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseChunkHead checks that any record the store writes gives the
// head the full decoder gives, and that no input makes the parser panic.
func FuzzParseChunkHead(f *testing.F) {
	f.Add("k7f2a1", "d2n7p3", "", "s1", `text "with" {json} [chars]`, int64(1776000000))
	f.Add("", "", "团队", "会话\\\"", "", int64(0))
	f.Fuzz(func(t *testing.T, prev, next, ns, session, text string, sec int64) {
		c := Chunk{
			ID: "a3f2c7", Prev: prev, Next: next, NS: ns, Session: session, Asks: sec%2 == 0,
			Time: time.Unix(sec%(1<<34), 0).UTC().Format(time.RFC3339Nano), Text: text,
			Msgs: []MsgRef{{}},
		}
		checkHead(t, c)
		parseChunkHead([]byte(text)) // any bytes: an error, never a panic
	})
}
