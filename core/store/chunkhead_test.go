package store

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// TestChunkBrief checks that ChunkBrief reads every field of a stored
// chunk but its text and message references, and hands back a copy of
// the stored bytes.
func TestChunkBrief(t *testing.T) {
	s := openTest(t)
	c := &Chunk{
		ID: "a3f2c7", Prev: "k7f2a1", Next: "d2n7p3", Key: core.ChunkKey{1, 2, 3}, NS: "team", Session: "s1",
		Time: "2026-04-13T09:30:00+08:00", End: "2026-04-13T09:31:00+08:00", File: "sessions/x.md", LineStart: 3, LineEnd: 9,
		Msgs: []MsgRef{{T: 1, Q: 2}}, Text: `a "quoted" text with {"m": [1]} inside`, Section: "intro", Topic: "trip",
		Memories: []core.Memory{{Type: "preference", Topic: "tea", Entities: []string{"ann"}}}, Roles: []string{"user"}, Speakers: []string{"ann"},
		Hash: "abc", PendingExtract: []string{"topics"},
	}
	if err := s.Update(func(tx *Tx) error { return tx.PutChunk(c, true) }); err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var got *Chunk
	var raw []byte
	if err := s.View(func(tx *Tx) error {
		got, raw, err = tx.ChunkBrief(c.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if string(raw) != string(want) {
		t.Errorf("raw = %s, want %s", raw, want)
	}
	brief := *c
	brief.Msgs, brief.Text = nil, ""
	if diff := cmp.Diff(&brief, got); diff != "" {
		t.Errorf("ChunkBrief (-want +got):\n%s", diff)
	}
	if err := s.View(func(tx *Tx) error {
		_, _, err := tx.ChunkBrief("nosuch")
		if !errors.Is(err, core.ErrNotFound) {
			t.Errorf("ChunkBrief of a missing chunk: %v, want ErrNotFound", err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
