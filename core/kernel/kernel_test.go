package kernel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/plugins/host"
)

var cst = time.FixedZone("CST", 8*3600)

func openEngine(t testing.TB) *engine.Engine {
	t.Helper()
	cfg := core.Config{Storage: core.StorageConfig{Home: t.TempDir()}, Extractors: []core.PluginSpec{{Name: "general"}}}
	e, err := host.Open(t.Context(), cfg, engine.Options{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// newKernel returns a kernel whose clock starts at start and moves one
// minute per call.
func newKernel(t testing.TB, e *engine.Engine, start time.Time) *Kernel {
	t.Helper()
	now := start
	k, err := New(e, Options{Tools: tools.Options{Location: cst, Now: func() time.Time { now = now.Add(time.Minute); return now }}})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func say(t testing.TB, k *Kernel, session string, pairs ...string) {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		for j, role := range []string{"user", "assistant"} {
			if i+j >= len(pairs) {
				break
			}
			if _, _, err := k.Append(t.Context(), session, Message{Role: role, Text: pairs[i+j]}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestTokenizer(t *testing.T) {
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Hello, world!", 4},
	} {
		if got := tok.Count(tc.s); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
	zh := "我的猫叫 Mochi，她喜欢吃三文鱼。"
	if n := tok.Count(zh); n < 8 || n > 20 {
		t.Errorf("Count(%q) = %d, want a count between 8 and 20", zh, n)
	}
	for _, n := range []int{0, 1, 3, 7} {
		cut := tok.Cut(zh, n)
		if tok.Count(cut) > n || !strings.HasPrefix(zh, cut) {
			t.Errorf("Cut(%q, %d) = %q: not a prefix of at most %d tokens", zh, n, cut, n)
		}
	}
	if _, err := NewTokenizer("gpt2"); err == nil {
		t.Error("unknown encoding accepted")
	}
}

// TestThreeSessions: the context for session 3 recalls a fact stated in
// session 1, with its anchor, and never repeats a turn of the window.
func TestThreeSessions(t *testing.T) {
	e := openEngine(t)
	k := newKernel(t, e, time.Date(2026, 11, 2, 9, 0, 0, 0, cst))
	say(t, k, "s1",
		"I prefer quiet temples over crowded places when I travel to Kyoto.", "Noted: quiet temples such as Honen-in.",
		"我的猫叫 Mochi，她喜欢吃三文鱼。", "记住了：Mochi 喜欢三文鱼。")
	say(t, k, "s2", "Let's talk about the deploy: Ollama reports CUDA out of memory.", "Lower the context to 8k.")
	say(t, k, "s3", "Hi again!", "Hello! How can I help?")
	const q = "Which temples in Kyoto would I like?"
	if _, _, err := k.Append(t.Context(), "s3", Message{Role: "user", Text: q}); err != nil {
		t.Fatal(err)
	}
	a, err := k.Context(t.Context(), "s3", q, 4000)
	if err != nil {
		t.Fatal(err)
	}
	if a.Messages[0].Role != "system" || !strings.Contains(a.Messages[0].Content, "Honen-in") {
		t.Fatalf("the memory block lacks session 1's fact:\n%s", a.Messages[0].Content)
	}
	if !strings.Contains(a.Messages[0].Content, "[id:") {
		t.Errorf("recalled turns carry no anchors:\n%s", a.Messages[0].Content)
	}
	last := a.Messages[len(a.Messages)-1]
	if last.Role != "user" || last.Content != q {
		t.Errorf("last message %+v, want the new user message", last)
	}
	if n := strings.Count(joined(a), q); n != 1 {
		t.Errorf("the new message appears %d times:\n%s", n, joined(a))
	}
	// The window holds s3's earlier turn; the memory block does not.
	if a.RecentTurns != 1 || a.Messages[1].Content != "Hi again!" {
		t.Errorf("recent window %d turns: %+v", a.RecentTurns, a.Messages)
	}
	turns, _ := e.SessionTurns(t.Context(), "", "s3", 0)
	for _, id := range a.Recalled {
		for _, tr := range turns {
			if tr.ID == id && strings.Contains(tr.Content(), "Hi again") {
				t.Errorf("turn %s is both recalled and in the window", id)
			}
		}
	}
	if len(a.Tools) != 2 {
		t.Errorf("tools %d, want recall_memory and recall_by_id", len(a.Tools))
	}
	checkUsage(t, k, a)
}

// TestProfile: lasting facts from extractor memories make up the profile.
func TestProfile(t *testing.T) {
	e := openEngine(t)
	k := newKernel(t, e, time.Date(2026, 11, 2, 9, 0, 0, 0, cst))
	say(t, k, "s1", "I prefer green tea over coffee in the morning.", "Got it.",
		"We decided to use PostgreSQL for the billing service.", "Good choice.")
	a, err := k.Context(t.Context(), "s2", "What should I drink?", 4000)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Profile) == 0 || !strings.Contains(strings.Join(a.Profile, "\n"), "green tea") {
		t.Fatalf("profile %q lacks the preference", a.Profile)
	}
	if !strings.Contains(a.Messages[0].Content, "What you know about the user") {
		t.Errorf("no profile block:\n%s", a.Messages[0].Content)
	}
}

func joined(a *Assembled) string {
	var b strings.Builder
	for _, m := range a.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// checkUsage recounts an assembled context and checks it fits its budget.
func checkUsage(t *testing.T, k *Kernel, a *Assembled) {
	t.Helper()
	total := a.Tokens.Tools
	for _, m := range a.Messages {
		total += k.tok.Count(m.Content) + MessageOverhead
	}
	if total != a.Tokens.Total {
		t.Errorf("reported total %d, recounted %d", a.Tokens.Total, total)
	}
	if total > a.Tokens.Budget {
		t.Errorf("total %d exceeds the budget %d", total, a.Tokens.Budget)
	}
}

// TestBudgetHolds assembles contexts for many budgets and message sizes,
// in Chinese and English: the total never exceeds the budget, a message
// larger than the budget is cut with a marker, and storage keeps it whole.
func TestBudgetHolds(t *testing.T) {
	e := openEngine(t)
	k := newKernel(t, e, time.Date(2026, 11, 2, 9, 0, 0, 0, cst))
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"deploy", "memory", "Kyoto", "temple", "部署", "记忆", "京都", "寺庙", "猫", "Mochi", "budget", "上下文"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	for s := range 3 {
		for i := range 12 {
			say(t, k, fmt.Sprintf("b%d", s), text(5+rng.IntN(300)), text(5+rng.IntN(600)))
			_ = i
		}
	}
	huge := strings.Repeat("一个非常长的消息 with mixed English words. ", 4000)
	for _, budget := range []int{64, 100, 256, 500, 1000, 2000, 4000, 8000, 32000} {
		for _, msg := range []string{"京都的寺庙", "Tell me about the deploy budget", text(400), huge} {
			t.Run(fmt.Sprintf("budget=%d/len=%d", budget, len(msg)), func(t *testing.T) {
				a, err := k.Context(t.Context(), "b1", msg, budget)
				if err != nil {
					t.Fatal(err)
				}
				checkUsage(t, k, a)
				last := a.Messages[len(a.Messages)-1].Content
				if msg == huge {
					if !a.Truncated || !strings.Contains(last, "tokens cut …]") {
						t.Errorf("a message larger than the budget is not cut with a marker: truncated=%v, %q", a.Truncated, clip(last))
					}
				} else if budget >= 1000 && last != msg {
					t.Errorf("the new message was changed: %q", clip(last))
				}
			})
		}
	}
	// Storage keeps a huge message whole.
	if _, _, err := k.Append(t.Context(), "big", Message{Role: "user", Text: huge}); err != nil {
		t.Fatal(err)
	}
	msgs, err := k.Read(t.Context(), "big")
	if err != nil || len(msgs) != 1 || msgs[0].Text != huge {
		t.Fatalf("stored message changed: %v", err)
	}
	a, err := k.Context(t.Context(), "big", "next question", 500)
	if err != nil {
		t.Fatal(err)
	}
	checkUsage(t, k, a)
	if a.RecentTurns != 1 || !a.Truncated {
		t.Errorf("the newest turn should be cut to fit, not dropped: %d turns, truncated %v", a.RecentTurns, a.Truncated)
	}
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TestRecentWindow keeps whole turns, newest first, in order.
func TestRecentWindow(t *testing.T) {
	e := openEngine(t)
	k := newKernel(t, e, time.Date(2026, 11, 2, 9, 0, 0, 0, cst))
	for i := range 30 {
		say(t, k, "w", fmt.Sprintf("question number %d about gardening", i), fmt.Sprintf("answer number %d", i))
	}
	a, err := k.Context(t.Context(), "w", "what next?", 300)
	if err != nil {
		t.Fatal(err)
	}
	checkUsage(t, k, a)
	var recent []ChatMessage
	for _, m := range a.Messages[1 : len(a.Messages)-1] {
		recent = append(recent, m)
	}
	if len(recent) == 0 || len(recent)%2 != 0 {
		t.Fatalf("recent messages %d: not whole turns", len(recent))
	}
	if recent[len(recent)-1].Content != "answer number 29" {
		t.Errorf("newest turn missing: %+v", recent[len(recent)-1])
	}
	first := len(recent) / 2
	if want := fmt.Sprintf("question number %d about gardening", 30-first); recent[0].Content != want {
		t.Errorf("window starts with %q, want %q", recent[0].Content, want)
	}
	if a.RecentTurns != first || a.RecentTurns >= 30 {
		t.Errorf("recent turns %d", a.RecentTurns)
	}
}

func TestSessionsAndClose(t *testing.T) {
	e := openEngine(t)
	k := newKernel(t, e, time.Date(2026, 11, 2, 9, 0, 0, 0, cst))
	say(t, k, "a", "alpha one", "alpha two")
	say(t, k, "b", "the zebra likes quantum physics", "noted")
	list, err := k.Sessions(t.Context())
	if err != nil || len(list) != 2 || list[0].Session != "b" {
		t.Fatalf("sessions %+v %v", list, err)
	}
	msgs, err := k.Read(t.Context(), "a")
	if err != nil || len(msgs) != 2 || msgs[0].Text != "alpha one" || msgs[1].Text != "alpha two" {
		t.Fatalf("read %+v %v", msgs, err)
	}
	if err := k.Close(t.Context(), "b"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.Append(t.Context(), "b", Message{Role: "user", Text: "more"}); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("append to a closed session: %v", err)
	}
	res, err := e.Recall(t.Context(), core.Query{Text: "zebra quantum"})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Session != "b" {
		t.Errorf("a closed session's turns are not recallable: %+v %v", res, err)
	}
	if err := k.Close(t.Context(), "nope"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("closing an unknown session: %v", err)
	}
	if _, err := k.Read(t.Context(), "nope"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("reading an unknown session: %v", err)
	}
}

// TestTimePhraseFallback: a time phrase in a chat message that names an
// empty window ("tonight") does not hide the memories that answer it.
func TestTimePhraseFallback(t *testing.T) {
	e := openEngine(t)
	k := newKernel(t, e, time.Date(2026, 11, 2, 9, 0, 0, 0, cst))
	say(t, k, "s1", "My favourite dinner is mushroom risotto with parmesan.", "Noted: mushroom risotto.")
	a, err := k.Context(t.Context(), "s2", "Any mushroom risotto ideas for tonight?", 4000)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Recalled) == 0 || !strings.Contains(a.Messages[0].Content, "parmesan") {
		t.Fatalf("the risotto turn was not recalled: %v\n%s", a.Recalled, a.Messages[0].Content)
	}
}
