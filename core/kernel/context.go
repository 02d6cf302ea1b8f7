package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"unicode"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/tools"
)

// ChatMessage is one message for the LLM, in the chat completions shape.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Usage reports how an assembled context spent its budget, in tokens.
// Each part includes its messages' format overhead; Total never exceeds
// Budget.
type Usage struct {
	Budget  int `json:"budget"`
	Total   int `json:"total"`
	System  int `json:"system"`
	Rules   int `json:"rules"`
	Profile int `json:"profile"`
	Memory  int `json:"memory"`
	Recent  int `json:"recent"`
	User    int `json:"user"`
	Tools   int `json:"tools"`
}

// Assembled is what [Kernel.Context] returns: the messages to send, in
// order, and the tool schemas to send with them.
type Assembled struct {
	Messages []ChatMessage `json:"messages"`
	// Tools are the memory tools in the OpenAI function-calling form;
	// empty when they did not fit the budget.
	Tools  []map[string]any `json:"tools,omitempty"`
	Tokens Usage            `json:"tokens"`
	// Recalled are the ids of the long-term turns in the memory block,
	// Profile the profile's lines, RecentTurns the number of this
	// session's turns included.
	Recalled    []string `json:"recalled"`
	Profile     []string `json:"profile"`
	RecentTurns int      `json:"recent_turns"`
	// Truncated is set when the new message or the newest turn had to be
	// cut to fit (with a visible marker).
	Truncated bool `json:"truncated,omitempty"`
}

// profileTypes weigh the memory types that make up the profile: lasting
// facts about the user.
var profileTypes = map[string]float64{
	"identity": 1.0, "preference": 0.9, "decision": 0.8, "fact": 0.7, "milestone": 0.6,
}

// recentLimit bounds the turns of a session considered for the window;
// firstLoad turns are read first, and more only when they all fit.
const (
	recentLimit = 512
	firstLoad   = 32
)

// Context assembles the messages to send to the LLM for userMessage, the
// newest message of session, within budget tokens (0 means the configured
// default). userMessage may already be stored (as [Kernel.Append] and the
// proxy do): it is not repeated from the session's history.
func (k *Kernel) Context(ctx context.Context, session, userMessage string, budget int) (*Assembled, error) {
	if budget <= 0 {
		budget = k.opts.Config.BudgetTokens
	}
	if budget < 64 {
		return nil, fmt.Errorf("%w: a budget of %d tokens is too small (at least 64)", core.ErrInvalid, budget)
	}
	a := &Assembled{Tokens: Usage{Budget: budget}, Recalled: []string{}, Profile: []string{}}
	now := k.d.Options().Now()
	user, rules, left := k.fixedParts(a, userMessage)

	// The session's recent turns, first within what the profile and the
	// memory block cannot claim.
	turns, exclude, err := k.recentTurns(ctx, session, userMessage, left)
	if err != nil {
		return nil, err
	}
	current := maps.Clone(exclude) // the new message's own turn
	profBudget := int(float64(left) * k.opts.Config.ProfileShare)
	memBudget := int(float64(left) * k.opts.Config.MemoryShare)
	for _, t := range k.window(turns, left-profBudget-memBudget).turns {
		exclude[t.ID] = true
	}

	// Long-term memories and the profile.
	mem, err := k.memoryBlock(ctx, userMessage, now, memBudget, exclude)
	if err != nil {
		return nil, err
	}
	prof, err := k.profile(ctx, userMessage, now, profBudget, current)
	if err != nil {
		return nil, err
	}

	// The recent window takes what the two left unused; a turn in it is
	// not repeated in the memory block.
	w := k.window(turns, left-prof.tokens-mem.tokens)
	inWindow := map[string]bool{}
	for _, t := range w.turns {
		inWindow[t.ID] = true
	}
	mem.drop(inWindow)
	if err := k.assemble(a, rules, user, &prof, &mem, &w); err != nil {
		return nil, err
	}
	a.Tokens.Profile, a.Tokens.Memory, a.Tokens.Recent = prof.tokens, mem.tokens, w.tokens
	a.Recalled = append(a.Recalled, mem.ids...)
	a.Profile = append(a.Profile, prof.lines...)
	a.RecentTurns = len(w.turns)
	a.Truncated = a.Truncated || w.truncated
	return a, nil
}

// fixedParts spends the budget on the parts that come first: the new
// message (cut if it alone does not fit), then the tool schemas and the
// rules, each only if it takes at most a third of what is left. It returns
// the message as sent, the rules, and the tokens left.
func (k *Kernel) fixedParts(a *Assembled, userMessage string) (user, rules string, left int) {
	budget := a.Tokens.Budget
	user = userMessage
	if n := k.count(user) + MessageOverhead; n > budget-MessageOverhead {
		user = k.cut(user, budget-2*MessageOverhead)
		a.Truncated = true
	}
	a.Tokens.User = k.count(user) + MessageOverhead
	left = budget - a.Tokens.User - MessageOverhead // one system message
	schemas, _ := tools.Schemas(k.d.Tools(), tools.FormatOpenAI)
	raw, _ := json.Marshal(schemas)
	if n := k.count(string(raw)); n <= left/3 {
		a.Tools, a.Tokens.Tools = schemas, n
		left -= n
	}
	rules = k.rules(userMessage, left/3)
	if rules != "" {
		a.Tokens.Rules = k.count(rules)
		left -= a.Tokens.Rules
	}
	return user, rules, max(left, 0)
}

// recentTurns loads the session's newest turns, and more only while they
// all fit in left tokens, without the new message if it is already
// stored; exclude holds the new message's own turn.
func (k *Kernel) recentTurns(ctx context.Context, session, userMessage string, left int) ([]core.Chunk, map[string]bool, error) {
	var turns []core.Chunk
	exclude := map[string]bool{}
	for n := firstLoad; ; n *= 4 {
		all, err := k.mem.SessionTurns(ctx, k.Namespace(), session, n+1)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return nil, nil, err
		}
		clear(exclude)
		turns = dropCurrent(all, userMessage, exclude)
		if len(all) <= n || n >= recentLimit || len(k.window(turns, left).turns) < len(turns) {
			return turns, exclude, nil
		}
	}
}

// assemble puts the parts together, and checks the total against the
// budget: separators between parts can add a few tokens, so while the
// total is over, it gives back the least important piece (a recalled
// turn, then the oldest recent turn, then a profile line).
func (k *Kernel) assemble(a *Assembled, rules, user string, prof *profileBlock, mem *memoryBlock, w *window) error {
	for {
		a.Messages = a.Messages[:0]
		system := strings.Join(rebuild(rules, *prof, *mem), "\n\n")
		if system != "" {
			a.Messages = append(a.Messages, ChatMessage{Role: "system", Content: system})
		}
		a.Messages = append(a.Messages, w.messages...)
		a.Messages = append(a.Messages, ChatMessage{Role: "user", Content: user})
		total := a.Tokens.Tools
		for _, m := range a.Messages {
			total += k.count(m.Content) + MessageOverhead
		}
		if total <= a.Tokens.Budget {
			a.Tokens.Total = total
			if system != "" {
				a.Tokens.System = k.count(system) + MessageOverhead
			}
			return nil
		}
		switch {
		case len(mem.parts) > 0:
			mem.parts = mem.parts[:len(mem.parts)-1]
			mem.ids = mem.ids[:len(mem.ids)-1]
		case len(w.turns) > 1:
			*w = k.window(w.turns[1:], w.tokens-1)
		case len(prof.lines) > 0:
			prof.lines = prof.lines[:len(prof.lines)-1]
		default:
			return fmt.Errorf("kernel: cannot fit a budget of %d tokens", a.Tokens.Budget)
		}
	}
}

func rebuild(rules string, prof profileBlock, mem memoryBlock) []string {
	var sys []string
	if rules != "" {
		sys = append(sys, rules)
	}
	if len(prof.lines) > 0 {
		sys = append(sys, prof.header+"\n"+strings.Join(prof.lines, "\n"))
	}
	if len(mem.parts) > 0 {
		sys = append(sys, mem.header+"\n\n"+strings.Join(mem.parts, "\n"))
	}
	return sys
}

// cut shortens s to at most n tokens, marker included.
func (k *Kernel) cut(s string, n int) string {
	total := k.count(s)
	marker := fmt.Sprintf("\n[… %d tokens cut …]", total)
	keep := n - k.count(marker)
	if keep <= 0 {
		return k.tok.Cut(marker, max(n, 0))
	}
	head := k.tok.Cut(s, keep)
	out := head + fmt.Sprintf("\n[… %d tokens cut …]", total-k.count(head))
	for k.count(out) > n && keep > 0 {
		keep--
		head = k.tok.Cut(s, keep)
		out = head + fmt.Sprintf("\n[… %d tokens cut …]", total-k.count(head))
	}
	return out
}

// rules returns the memory-rules prompt in the message's language, or a
// one-line version, whichever fits in n tokens, or "".
func (k *Kernel) rules(msg string, n int) string {
	lang := "en"
	if hasHan(msg) {
		lang = "zh"
	}
	full, _ := tools.Prompt(lang)
	if k.count(full) <= n {
		return full
	}
	short := "You have a long-term memory: call recall_memory to search it and recall_by_id with a prev/next id to read around a turn; cite turns as [id:…]; never invent a memory."
	if lang == "zh" {
		short = "你有长期记忆：用 recall_memory 检索，用 recall_by_id 和 prev/next id 查看上下文；引用时写 [id:…]；不要编造记忆。"
	}
	if k.count(short) <= n {
		return short
	}
	return ""
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}
