package store

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// msgSeeds are records as the store writes them and as it does not.
func msgSeeds(t testing.TB) []string {
	var out []string
	for _, m := range []Message{
		{Seq: 7, NS: "bob", Session: "s1", Time: "2026-04-13T09:00:00.5+08:00", Role: "user", Speaker: "Ann", Text: "plain text", Ref: "r1", Lines: 1},
		{Seq: 1 << 63, Session: "s", Time: "t", Text: "line\nbreak \"quoted\" back\\slash\ttab <b>&amp;</b> \u2028 中文 😀 \x01", Lines: -3, Sealed: true},
		{Session: "s", Text: "bad utf-8: \xff\xfe"},
		{},
	} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return append(out,
		`{"q":1,"s":"a","x":"\ud83d\ude00 pair, \ud83d lone, \ude00 low"}`,
		`{"Q":2,"S":"upper-case keys"}`,
		`{"q":01}`, `{"q":-1}`, `{"q":1.5}`, `{"q":1e3}`, `{"l":-0}`, `{"q":18446744073709551616}`,
		`{"x":null}`, `{"z":null}`, `{"z":1}`, `{"x":1}`,
		`{"x":"a\qb"}`, `{"x":"tab	inside"}`, `{"x":"\u00e9\u0041"}`, `{"x":"\uD83D"}`,
		`{"x":"a"} trailing`, `{"x":"a",}`, `{"x":"a"`, `{"x":"a}`, `{`, ``, `[]`, `{}`, ` { "x" : "spaced" } `,
		`{"x":"a","x":"second wins"}`, `{"other":{"nested":[1,2]},"x":"a"}`,
	)
}

// TestDecodeMessage checks decodeMessage against json.Unmarshal on
// records the store writes and on every kind of record it does not.
func TestDecodeMessage(t *testing.T) {
	for _, s := range msgSeeds(t) {
		t.Run(s, func(t *testing.T) { checkDecodeMessage(t, []byte(s)) })
	}
}

// TestParseMessageTakesStoreRecords checks that the records the store
// writes take the one-pass path, not encoding/json.
func TestParseMessageTakesStoreRecords(t *testing.T) {
	for _, s := range msgSeeds(t)[:4] {
		var m Message
		if !parseMessage([]byte(s), &m) {
			t.Errorf("parseMessage handed %s to encoding/json", s)
		}
	}
	for _, s := range []string{`{"Q":2}`, `{"x":null}`, `{"q":01}`, `{"x":"a"} trailing`} {
		var m Message
		if parseMessage([]byte(s), &m) {
			t.Errorf("parseMessage took %s, which is not a store record", s)
		}
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range msgSeeds(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeMessage(t, b) })
}

func checkDecodeMessage(t *testing.T, b []byte) {
	t.Helper()
	got, err := decodeMessage(b)
	var want Message
	wantErr := json.Unmarshal(b, &want)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("decodeMessage(%q) error %v, json.Unmarshal's %v", b, err, wantErr)
	}
	if err != nil {
		if err.Error() != wantErr.Error() {
			t.Fatalf("decodeMessage(%q) error %q, json.Unmarshal's %q", b, err, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeMessage(%q) = %+v, json.Unmarshal gives %+v", b, got, want)
	}
}

// TestUnquote checks the string decoder on its own, against encoding/json.
func TestUnquote(t *testing.T) {
	for _, s := range []string{``, `abc`, `a\"b`, `\\\/\b\f\n\r\t`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ud83dx`, `\ude00\ud83d`, `é 中`} {
		got, ok := unquote([]byte(s))
		var want string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &want); err != nil {
			t.Fatalf("%q is not a JSON string: %v", s, err)
		}
		if !ok || got != want {
			t.Errorf("unquote(%q) = %q, %v; want %q", s, got, ok, want)
		}
	}
	for _, s := range []string{`\`, `\q`, `\u12`, `\u12G4`, "\x01", "\xff", strings.Repeat("a", 3) + "\xc3"} {
		if got, ok := unquote([]byte(s)); ok {
			t.Errorf("unquote(%q) = %q, true; want false", s, got)
		}
	}
}

// BenchmarkDecodeMessage decodes a message record whose text is a reply
// with code in it, by size, one pass and with encoding/json.
func BenchmarkDecodeMessage(b *testing.B) {
	line := "Here is the `User` model:\n```python\nclass User(db.Model):\n    name = db.Column(db.String(80), unique=True)  # \"quoted\" <b>\n```\n"
	for _, size := range []int{100, 2000, 20000} {
		text := strings.Repeat(line, size/len(line)+1)[:size]
		rec, err := json.Marshal(Message{Seq: 12, Session: "budget-tracker", Time: "2024-03-15T09:00:00Z", Role: "assistant", Speaker: "assistant", Text: text, Ref: "100K-1-111", Lines: 40})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("bytes="+strconv.Itoa(size)+"/onepass", func(b *testing.B) {
			b.SetBytes(int64(len(rec)))
			for b.Loop() {
				if _, err := decodeMessage(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("bytes="+strconv.Itoa(size)+"/encoding_json", func(b *testing.B) {
			b.SetBytes(int64(len(rec)))
			for b.Loop() {
				var m Message
				if err := json.Unmarshal(rec, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
