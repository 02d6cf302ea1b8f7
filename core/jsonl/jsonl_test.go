package jsonl

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

func TestRead(t *testing.T) {
	sh := time.FixedZone("", 8*3600)
	in := "\xef\xbb\xbf" + `{"session":"s1","time":"2026-03-05T10:00:07+08:00","role":"User","speaker":"Alice","text":"你好\n\nworld","ref":"D1:3","namespace":"alice"}

{"session":"s1","time":"2026-03-05 10:01","speaker":"Bob","text":"hi"}
`
	got, err := Read(strings.NewReader(in), "in.jsonl", Options{Location: sh, Namespace: "dflt"})
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Message{
		{Namespace: "alice", Session: "s1", Time: time.Date(2026, 3, 5, 10, 0, 7, 0, sh), Role: core.RoleUser, Speaker: "Alice", Text: "你好\n\nworld", Ref: "D1:3"},
		{Namespace: "dflt", Session: "s1", Time: time.Date(2026, 3, 5, 10, 1, 0, 0, sh), Speaker: "Bob", Text: "hi"},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"session":"s"`, "f:1: invalid JSON: unexpected end of line"},
		{`[1,2]`, "f:1: each line must be a JSON object, not array"},
		{`{"session":"s","time":"2026-03-05T10:00:07Z","role":"user","text":""}`, "f:1: missing text"},
		{"\n\n" + `{"session":"s","time":"2026-03-05T10:00:07Z","text":"x"}`, "f:3: missing role and speaker"},
		{`{"session":"s","time":"2026-02-30T10:00:07Z","role":"user","text":"x"}`, `f:1: bad time "2026-02-30T10:00:07Z"`},
		{`{"session":"s","role":"user","text":"x"}`, "f:1: missing time"},
		{`{"session":"s","time":"2026-03-05T10:00:07Z","role":"user","text":"x","namespace":"../x"}`, "f:1: namespace"},
		{`{"session":"s","time":"2026-03-05T10:00:07Z","role":"user","text":"x"}{}`, "f:1: unexpected data after the JSON object"},
		{"\n\n" + `{"session":"s","time":"2026-03-05T10:00:07Z","role":"user","text":"x","namepsace":"alice"}`, `f:3: unknown field "namepsace" (did you mean "namespace"?)`},
		{`{"session":"s","time":"2026-03-05T10:00:07Z","role":"user","text":"x","extra":1}`, `f:1: unknown field "extra": a line has only namespace, session, time, role, speaker, text, ref`},
		{`{"session":"s","time":"2026-03-05T10:00:07Z","role":"user","text":"x","Txet":"y"}`, `f:1: unknown field "Txet" (did you mean "text"?)`},
	} {
		_, err := Read(strings.NewReader(tt.in), "f", Options{})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Read(%q) error %v, want prefix %q", tt.in, err, tt.want)
		}
		var ie *core.InputError
		if !errors.As(err, &ie) || !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Read(%q) error %T is not an InputError wrapping ErrInvalid", tt.in, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(`{"session":"s1","time":"2026-03-05T10:00:07+08:00","role":"user","speaker":"Alice","text":"hi","ref":"D1:3"}`)
	f.Add(`{"session":"s","time":"2026-03-05 10:01","speaker":"B","text":"x"}` + "\n\n{}")
	f.Add("\xef\xbb\xbf[]")
	f.Add(`{"session":"s","time":"2026-03-05T10:00:07Z","role":"user","text":"x","namepsace":"a","\u00e9":1}`)
	f.Fuzz(func(t *testing.T, in string) {
		msgs, err := Read(strings.NewReader(in), "f", Options{})
		if err != nil {
			var ie *core.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an InputError", err)
			}
			if msgs != nil {
				t.Fatalf("messages returned with an error")
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
