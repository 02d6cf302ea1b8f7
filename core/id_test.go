package core

import (
	"fmt"
	"strings"
	"testing"
)

func TestChunkKeyID(t *testing.T) {
	k := NewChunkKey("", "s1", (&Message{Session: "s1", Text: "x"}).Key(), 0)
	tests := []struct {
		n, wantLen int
	}{{0, MinIDLen}, {6, 6}, {7, 7}, {25, 25}, {99, MaxIDLen}}
	for _, tt := range tests {
		id := k.ID(tt.n)
		if len(id) != tt.wantLen || !ValidID(id) {
			t.Errorf("ID(%d) = %q, want a valid id of length %d", tt.n, id, tt.wantLen)
		}
	}
	if k.ID(6) != k.ID(9)[:6] {
		t.Errorf("longer ids must extend shorter ones: %s vs %s", k.ID(6), k.ID(9))
	}
	if k2 := NewChunkKey("", "s1", (&Message{Session: "s1", Text: "x"}).Key(), 0); k2.ID(6) != k.ID(6) {
		t.Errorf("ids are not stable")
	}
	if k3 := NewChunkKey("ns", "s1", (&Message{Session: "s1", Text: "x"}).Key(), 0); k3 == k {
		t.Errorf("namespace not part of the key")
	}
}

func TestValidID(t *testing.T) {
	for _, tt := range []struct {
		id   string
		want bool
	}{
		{"a3f2c7", true}, {"k7f2a1x", true}, {"a3f2c", false}, {"A3F2C7", false},
		{"a3f2ci", false}, {"a3f2cl", false}, {"a3f2co", false}, {"a3f2cu", false}, {"", false},
		{"../../x", false}, {"0123456789abcdefghjkmnpqrs", false},
	} {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestAnchorString(t *testing.T) {
	for _, tt := range []struct {
		a    Anchor
		want string
	}{
		{Anchor{"a3f2c7", "k7f2a1", "d2n7p3"}, "[id:a3f2c7 | prev: k7f2a1 | next: d2n7p3]"},
		{Anchor{"a3f2c7", "", ""}, "[id:a3f2c7 | prev: - | next: -]"},
	} {
		if got := tt.a.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.a, got, tt.want)
		}
	}
}

func TestMessageValidate(t *testing.T) {
	ok := Message{Session: "s", Time: mustTime("2026-03-05T10:00:00Z"), Role: RoleUser, Text: "hi"}
	tests := []struct {
		name    string
		mutate  func(*Message)
		wantErr string
	}{
		{"ok", func(*Message) {}, ""},
		{"speaker only", func(m *Message) { m.Role, m.Speaker = "", "Bob" }, ""},
		{"no session", func(m *Message) { m.Session = "" }, "missing session"},
		{"newline in session", func(m *Message) { m.Session = "a\nb" }, "control characters"},
		{"no time", func(m *Message) { m.Time = m.Time.AddDate(-3000, 0, 0) }, "outside the years"},
		{"no text", func(m *Message) { m.Text = "" }, "missing text"},
		{"bad utf8", func(m *Message) { m.Text = "\xff" }, "not valid UTF-8"},
		{"no role or speaker", func(m *Message) { m.Role = "" }, "missing role and speaker"},
		{"bad role", func(m *Message) { m.Role = "bot" }, `unknown role "bot"`},
		{"bad namespace", func(m *Message) { m.Namespace = "a/b" }, "namespace"},
		{"long namespace", func(m *Message) { m.Namespace = fmt.Sprintf("%065d", 0) }, "longer than 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ok
			tt.mutate(&m)
			err := m.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}
