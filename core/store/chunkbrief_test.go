package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/huimemory/huimemory/core"
)

// briefSeeds are chunk records as the store writes them and as it does
// not.
func briefSeeds(t testing.TB) []string {
	var out []string
	for _, c := range []Chunk{
		{ID: "a3f2c7", Prev: "k7f2a1", Next: "d2n7p3", Key: core.ChunkKey{1, 2, 3, 250}, NS: "team", Session: "s1", Asks: true,
			Time: "2026-04-13T09:30:00.123+08:00", End: "2026-04-13T09:31:00+08:00", File: "sessions/2026-W16/2026-04-13/chat_s1.md",
			LineStart: 3, LineEnd: -9, Msgs: []MsgRef{{T: 1, Q: 2}, {T: -5, Q: 1 << 63}}, Text: "line\nbreak \"quoted\" back\\slash\ttab <b>&amp;</b> \u2028 中文 😀 \x01",
			Section: "intro", Topic: "trip", Memories: []core.Memory{{Type: "preference", Topic: "tea", Entities: []string{"ann"}}},
			Roles: []string{"user", "assistant"}, Speakers: []string{"Ann", "会话<1>&"}, Hash: "abc", PendingExtract: []string{"topics"}},
		{ID: "b", Session: "s", Time: "t", Msgs: []MsgRef{}, Roles: []string{}, Memories: []core.Memory{}},
		{Session: "bad utf-8: \xff\xfe", Text: "bad utf-8: \xff\xfe"},
		{},
	} {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return append(out,
		`{"id":"a","x":"\ud83d\ude00 pair, \ud83d lone"}`, `{"ID":"upper-case key"}`, `{"id":"a","other":1}`,
		`{"ls":01}`, `{"ls":-1}`, `{"ls":1.5}`, `{"le":1e3}`, `{"ls":99999999999999999999}`,
		`{"m":[[1,2]]}`, `{"m":[[1,2],[3,4]]}`, `{"m":[[1.5,2]]}`, `{"m":[[1]]}`, `{"m":[[-1,2]]}`, `{"m":null}`, `{"m":{}}`, `{"m":[[1,2],]}`,
		`{"m":[[18446744073709551615,0]]}`, `{"m":[[18446744073709551616,0]]}`, `{"m":[[1e3,0]]}`, `{"m":[[1.0,0]]}`, `{"m":[[01,1]]}`, `{"m":[[-0,1]]}`, `{"m":[ [ 1 , 2 ] ]}`,
		`{"x":null}`, `{"x":1}`, `{"x":"a\qb"}`, `{"x":"tab	inside"}`, `{"x":"\u00e9"}`, `{"x":"\u12"}`, `{"x":"\u12G4"}`, `{"x":"a\"`,
		`{"k":"0102"}`, `{"k":"zz"}`, `{"k":null}`, `{"q":1}`, `{"q":null}`,
		`{"roles":null}`, `{"roles":["a",1]}`, `{"roles":["a","b"],"roles":["c"]}`, `{"spk":[]}`, `{"px":["x"]}`,
		`{"mem":[{"type":"fact"}]}`, `{"mem":[{"type":1}]}`, `{"mem":{}}`, `{"mem":null}`,
		`{"id":"a"} trailing`, `{"id":"a",}`, `{"id":"a"`, `{`, ``, `[]`, `{}`, ` { "id" : "spaced" } `,
		`{"id":"a","id":"second wins"}`,
	)
}

// TestDecodeChunkBrief checks decodeChunkBrief against json.Unmarshal on
// records the store writes and on every kind of record it does not.
func TestDecodeChunkBrief(t *testing.T) {
	for _, s := range briefSeeds(t) {
		t.Run(s, func(t *testing.T) { checkDecodeChunkBrief(t, []byte(s)) })
	}
}

// TestParseChunkBriefTakesStoreRecords checks that the records the store
// writes take the one-pass path, not encoding/json.
func TestParseChunkBriefTakesStoreRecords(t *testing.T) {
	for _, s := range briefSeeds(t)[:4] {
		var c Chunk
		if !parseChunkBrief([]byte(s), &c) {
			t.Errorf("parseChunkBrief handed %s to encoding/json", s)
		}
	}
	for _, s := range []string{`{"ID":"a"}`, `{"x":null}`, `{"m":[[1.5,2]]}`, `{"id":"a"} trailing`} {
		var c Chunk
		if parseChunkBrief([]byte(s), &c) {
			t.Errorf("parseChunkBrief took %s, which is not a store record", s)
		}
	}
}

func FuzzDecodeChunkBrief(f *testing.F) {
	for _, s := range briefSeeds(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeChunkBrief(t, b) })
}

func checkDecodeChunkBrief(t *testing.T, b []byte) {
	t.Helper()
	got, err := decodeChunkBrief(b)
	var want chunkBrief
	wantErr := json.Unmarshal(b, &want)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("decodeChunkBrief(%q) error %v, json.Unmarshal's %v", b, err, wantErr)
	}
	if err != nil {
		if err.Error() != wantErr.Error() {
			t.Fatalf("decodeChunkBrief(%q) error %q, json.Unmarshal's %q", b, err, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(got, want.Chunk) {
		t.Fatalf("decodeChunkBrief(%q) = %+v, json.Unmarshal gives %+v", b, got, want.Chunk)
	}
}

func BenchmarkChunkBrief(b *testing.B) {
	c := Chunk{ID: "a3f2c7", Prev: "k7f2a1", Next: "d2n7p3", Key: core.ChunkKey{1, 2, 3}, Session: "s1",
		Time: "2026-04-13T09:30:00+08:00", End: "2026-04-13T09:31:00+08:00", File: "sessions/2026-W16/2026-04-13/chat_s1.md",
		LineStart: 3, LineEnd: 9, Msgs: []MsgRef{{T: 1776000000000000000, Q: 7}, {T: 1776000060000000000, Q: 8}},
		Roles: []string{"user", "assistant"}, Hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}
	for range 20 {
		c.Text += "How do I roll back the deploy? Revert the tag and redeploy the previous image. "
	}
	raw, err := json.Marshal(c)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("one-pass", func(b *testing.B) {
		for range b.N {
			if _, err := decodeChunkBrief(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for range b.N {
			var cb chunkBrief
			if err := json.Unmarshal(raw, &cb); err != nil {
				b.Fatal(err)
			}
		}
	})
}
