package chunkers

import (
	"bytes"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/archive/transcript"
	"github.com/huimemory/huimemory/core"
)

// This file holds the helpers all chunker tests share, and the tests of
// Turn and Message.

var base = time.Date(2026, 3, 5, 10, 0, 7, 0, time.FixedZone("", 8*3600))

// texts makes messages with the given texts, alternately from the user and
// the assistant, one minute apart.
func texts(ts ...string) []core.Message {
	msgs := make([]core.Message, len(ts))
	for i, t := range ts {
		role := core.RoleUser
		if i%2 == 1 {
			role = core.RoleAssistant
		}
		msgs[i] = core.Message{Session: "s1", Time: base.Add(time.Duration(i) * time.Minute), Role: role, Text: t}
	}
	return msgs
}

// layout returns msgs as a chunker sees them, placed by transcript.Layout.
func layout(msgs []core.Message) []core.SessionMessage {
	counts := make([]int, len(msgs))
	for i := range msgs {
		counts[i] = transcript.TextLines(msgs[i].Text)
	}
	out := make([]core.SessionMessage, len(msgs))
	for i, p := range transcript.Layout(counts) {
		out[i] = core.SessionMessage{Message: msgs[i], HeaderLine: p.Header, TextStart: p.TextStart, TextEnd: p.TextEnd}
	}
	return out
}

// renderLines renders msgs with transcript.Render and returns the lines;
// line n is lines[n-1].
func renderLines(t testing.TB, msgs []core.Message) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := transcript.Render(&buf, "", "s1", msgs); err != nil {
		t.Fatal(err)
	}
	return strings.Split(buf.String(), "\n")
}

// lines joins transcript lines a to b, inclusive.
func lines(tr []string, a, b int) string { return strings.Join(tr[a-1:b], "\n") }

// pos is a span without its text, for compact test tables.
type pos struct {
	From, To, LineStart, LineEnd int
	Section                      string
}

func positions(spans []core.Span) []pos {
	out := make([]pos, len(spans))
	for i, s := range spans {
		out[i] = pos{s.From, s.To, s.LineStart, s.LineEnd, s.Section}
	}
	return out
}

// owner returns the message whose header and text lines hold line n, or
// -1 for a separator line.
func owner(msgs []core.SessionMessage, n int) int {
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i].HeaderLine > n }) - 1
	if i < 0 || n > msgs[i].TextEnd {
		return -1
	}
	return i
}

// checkRules checks spans against every rule of the chunker contract and of
// the cut-out chunkers: core.CheckSpans; distinct (From, LineStart);
// From and To the messages holding the first and last line; and Text
// exactly the transcript lines, or, when empty, whole messages.
func checkRules(t testing.TB, spans []core.Span, msgs []core.SessionMessage, tr []string) {
	t.Helper()
	if err := core.CheckSpans(spans, msgs); err != nil {
		t.Fatalf("CheckSpans: %v\nspans: %v", err, positions(spans))
	}
	type key struct{ from, line int }
	seen := map[key]bool{}
	for i, sp := range spans {
		k := key{sp.From, sp.LineStart}
		if seen[k] {
			t.Fatalf("span %d: (From, LineStart) = (%d, %d) twice", i, sp.From, sp.LineStart)
		}
		seen[k] = true
		if o := owner(msgs, sp.LineStart); o != sp.From {
			t.Fatalf("span %d %v: line %d belongs to message %d, not From", i, positions(spans[i:i+1]), sp.LineStart, o)
		}
		if o := owner(msgs, sp.LineEnd); o != sp.To-1 {
			t.Fatalf("span %d %v: line %d belongs to message %d, not To-1", i, positions(spans[i:i+1]), sp.LineEnd, o)
		}
		if sp.Text == "" {
			if sp.LineStart != msgs[sp.From].HeaderLine || sp.LineEnd != msgs[sp.To-1].TextEnd {
				t.Fatalf("span %d %v has no text but does not cover whole messages", i, positions(spans[i:i+1]))
			}
			continue
		}
		if want := lines(tr, sp.LineStart, sp.LineEnd); sp.Text != want {
			t.Fatalf("span %d %v: Text is not the transcript's lines\n got: %.300q\nwant: %.300q", i, positions(spans[i:i+1]), sp.Text, want)
		}
	}
}

func TestTurn(t *testing.T) {
	user := func(s string) core.Message { return core.Message{Role: core.RoleUser, Text: s} }
	asst := func(s string) core.Message { return core.Message{Role: core.RoleAssistant, Text: s} }
	sys := func(s string) core.Message { return core.Message{Role: core.RoleSystem, Text: s} }
	spk := func(who, s string) core.Message { return core.Message{Speaker: who, Text: s} }
	tests := []struct {
		name string
		msgs []core.Message
		want []pos
	}{
		{"pairs", []core.Message{user("q1"), asst("a1"), user("q2"), asst("a2\nmore")},
			[]pos{{0, 2, 9, 13, ""}, {2, 4, 15, 20, ""}}},
		{"several replies", []core.Message{user("q"), asst("a"), asst("b"), user("q2")},
			[]pos{{0, 3, 9, 16, ""}, {3, 4, 18, 19, ""}}},
		{"leading assistant", []core.Message{asst("hello"), asst("again"), user("q")},
			[]pos{{0, 2, 9, 13, ""}, {2, 3, 15, 16, ""}}},
		{"system stands alone", []core.Message{sys("be brief"), user("q"), asst("a"), sys("note"), asst("late")},
			[]pos{{0, 1, 9, 10, ""}, {1, 3, 12, 16, ""}, {3, 4, 18, 19, ""}, {4, 5, 21, 22, ""}}},
		{"people chatting", []core.Message{spk("Alice", "hi"), spk("Bob", "hey"), spk("Alice", "bye")},
			[]pos{{0, 1, 9, 10, ""}, {1, 2, 12, 13, ""}, {2, 3, 15, 16, ""}}},
		{"empty", nil, []pos{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.msgs {
				tt.msgs[i].Session, tt.msgs[i].Time = "s1", base.Add(time.Duration(i)*time.Minute)
			}
			sms := layout(tt.msgs)
			spans, err := Turn{}.Chunk(t.Context(), sms)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, positions(spans)); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
			checkRules(t, spans, sms, renderLines(t, tt.msgs))
		})
	}
}

func TestTurnMaxChars(t *testing.T) {
	user := func(s string) core.Message { return core.Message{Role: core.RoleUser, Text: s} }
	asst := func(s string) core.Message { return core.Message{Role: core.RoleAssistant, Text: s} }
	sys := func(s string) core.Message { return core.Message{Role: core.RoleSystem, Text: s} }
	long := strings.Repeat("x", DefaultTurnMaxChars)
	tests := []struct {
		name string
		max  int
		msgs []core.Message
		want [][2]int // [From, To) of each span
	}{
		{"at the limit, one chunk", 10, []core.Message{user("12345"), asst("67890")}, [][2]int{{0, 2}}},
		{"over the limit, a chunk per message", 9, []core.Message{user("12345"), asst("67890")}, [][2]int{{0, 1}, {1, 2}}},
		{"characters, not bytes", 4, []core.Message{user("你好"), asst("世界")}, [][2]int{{0, 2}}},
		{"several replies count together", 10, []core.Message{user("q"), asst("12345"), asst("67890"), user("q2"), asst("a")},
			[][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 5}}},
		{"leading replies under the same limit", 5, []core.Message{asst("hello"), asst("again"), user("q")},
			[][2]int{{0, 1}, {1, 2}, {2, 3}}},
		{"system messages stand alone and do not count", 4, []core.Message{user("ab"), sys("a long system note"), asst("cd")},
			[][2]int{{0, 1}, {1, 2}, {2, 3}}},
		{"zero means the default: a long reply stands alone", 0, []core.Message{user("q"), asst(long), user("q2"), asst("short")},
			[][2]int{{0, 1}, {1, 2}, {2, 4}}},
		{"negative keeps every exchange whole", -1, []core.Message{user("q"), asst(long + long)}, [][2]int{{0, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.msgs {
				tt.msgs[i].Session, tt.msgs[i].Time = "s1", base.Add(time.Duration(i)*time.Minute)
			}
			sms := layout(tt.msgs)
			spans, err := Turn{MaxChars: tt.max}.Chunk(t.Context(), sms)
			if err != nil {
				t.Fatal(err)
			}
			got := make([][2]int, len(spans))
			for i, sp := range spans {
				got[i] = [2]int{sp.From, sp.To}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
			checkRules(t, spans, sms, renderLines(t, tt.msgs))
		})
	}
}

func TestMessage(t *testing.T) {
	msgs := texts("one", "two\nlines", "three")
	sms := layout(msgs)
	spans, err := Message{}.Chunk(t.Context(), sms)
	if err != nil {
		t.Fatal(err)
	}
	want := []pos{{0, 1, 9, 10, ""}, {1, 2, 12, 14, ""}, {2, 3, 16, 17, ""}}
	if diff := cmp.Diff(want, positions(spans)); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	checkRules(t, spans, sms, renderLines(t, msgs))
}
