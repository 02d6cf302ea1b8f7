package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/internal/render"
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

	// 1. The new message, cut if it alone does not fit.
	user := userMessage
	if n := k.count(user) + MessageOverhead; n > budget-MessageOverhead {
		user = k.cut(user, budget-2*MessageOverhead)
		a.Truncated = true
	}
	a.Tokens.User = k.count(user) + MessageOverhead
	left := budget - a.Tokens.User - MessageOverhead // one system message

	// 2. Tool schemas and rules, each if it takes at most a third.
	schemas, _ := tools.Schemas(k.d.Tools(), tools.FormatOpenAI)
	raw, _ := json.Marshal(schemas)
	if n := k.count(string(raw)); n <= left/3 {
		a.Tools, a.Tokens.Tools = schemas, n
		left -= n
	}
	rules := k.rules(userMessage, left/3)
	if rules != "" {
		a.Tokens.Rules = k.count(rules)
		left -= a.Tokens.Rules
	}
	left = max(left, 0)

	// 3. The session's recent turns, first within what the profile and
	// the memory block cannot claim.
	// Load the newest turns, and more only while they all fit.
	var turns []core.Chunk
	exclude := map[string]bool{}
	for n := firstLoad; ; n *= 4 {
		all, err := k.mem.SessionTurns(ctx, k.Namespace(), session, n+1)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return nil, err
		}
		clear(exclude)
		turns = dropCurrent(all, userMessage, exclude)
		if len(all) <= n || n >= recentLimit || len(k.window(turns, left).turns) < len(turns) {
			break
		}
	}
	current := maps.Clone(exclude) // the new message's own turn
	profBudget := int(float64(left) * k.opts.Config.ProfileShare)
	memBudget := int(float64(left) * k.opts.Config.MemoryShare)
	w := k.window(turns, left-profBudget-memBudget)
	for _, t := range w.turns {
		exclude[t.ID] = true
	}

	// 4. Long-term memories and the profile.
	mem, err := k.memoryBlock(ctx, userMessage, now, memBudget, exclude)
	if err != nil {
		return nil, err
	}
	prof, err := k.profile(ctx, userMessage, now, profBudget, current)
	if err != nil {
		return nil, err
	}

	// 5. The recent window takes what the two left unused.
	w = k.window(turns, left-prof.tokens-mem.tokens)
	inWindow := map[string]bool{}
	for _, t := range w.turns {
		inWindow[t.ID] = true
	}
	mem.drop(inWindow)

	// 6. Put it together and check the budget.
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
	for {
		a.Messages = a.Messages[:0]
		system := strings.Join(sys, "\n\n")
		if system != "" {
			a.Messages = append(a.Messages, ChatMessage{Role: "system", Content: system})
		}
		a.Messages = append(a.Messages, w.messages...)
		a.Messages = append(a.Messages, ChatMessage{Role: "user", Content: user})
		total := a.Tokens.Tools
		for _, m := range a.Messages {
			total += k.count(m.Content) + MessageOverhead
		}
		if total <= budget {
			a.Tokens.Total = total
			if system != "" {
				a.Tokens.System = k.count(system) + MessageOverhead
			}
			break
		}
		// Separators between parts can add a few tokens: give back the
		// least important piece and try again.
		switch {
		case len(mem.parts) > 0:
			mem.parts = mem.parts[:len(mem.parts)-1]
			mem.ids = mem.ids[:len(mem.ids)-1]
			sys = rebuild(rules, prof, mem)
		case len(w.turns) > 1:
			w = k.window(w.turns[1:], w.tokens-1)
		case len(prof.lines) > 0:
			prof.lines = prof.lines[:len(prof.lines)-1]
			sys = rebuild(rules, prof, mem)
		default:
			return nil, fmt.Errorf("kernel: cannot fit a budget of %d tokens", budget)
		}
	}
	a.Tokens.Profile, a.Tokens.Memory, a.Tokens.Recent = prof.tokens, mem.tokens, w.tokens
	a.Recalled = append(a.Recalled, mem.ids...)
	a.Profile = append(a.Profile, prof.lines...)
	a.RecentTurns = len(w.turns)
	a.Truncated = a.Truncated || w.truncated
	return a, nil
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

// dropCurrent removes the new message from the end of the session's turns
// when it is already stored there, and records its turn in exclude.
func dropCurrent(turns []core.Chunk, msg string, exclude map[string]bool) []core.Chunk {
	if len(turns) == 0 {
		return turns
	}
	last := turns[len(turns)-1]
	n := len(last.Messages)
	if n == 0 || last.Messages[n-1].Role != core.RoleUser || last.Messages[n-1].Text != msg {
		return turns
	}
	exclude[last.ID] = true
	if n == 1 {
		return turns[:len(turns)-1]
	}
	last.Messages = last.Messages[:n-1]
	out := slices.Clone(turns)
	out[len(out)-1] = last
	return out
}

// window is the recent turns that fit a budget.
type window struct {
	turns     []core.Chunk // oldest first
	messages  []ChatMessage
	tokens    int
	truncated bool
}

// window takes whole turns from the newest back while they fit in n
// tokens. If not even the newest fits, it is cut to fit.
func (k *Kernel) window(turns []core.Chunk, n int) window {
	var w window
	var picked [][]ChatMessage
	for i := len(turns) - 1; i >= 0; i-- {
		msgs := chatMessages(&turns[i])
		cost := 0
		for _, m := range msgs {
			cost += k.count(m.Content) + MessageOverhead
		}
		if w.tokens+cost > n {
			if len(picked) == 0 && n > 4*MessageOverhead {
				msgs, cost = k.fitTurn(msgs, n)
				if len(msgs) > 0 {
					picked = append(picked, msgs)
					w.turns = append(w.turns, turns[i])
					w.tokens += cost
					w.truncated = true
				}
			}
			break
		}
		picked = append(picked, msgs)
		w.turns = append(w.turns, turns[i])
		w.tokens += cost
	}
	slices.Reverse(picked)
	slices.Reverse(w.turns)
	for _, p := range picked {
		w.messages = append(w.messages, p...)
	}
	return w
}

// fitTurn keeps a turn's messages from the last backwards while they fit
// in n tokens, cutting the first one that does not.
func (k *Kernel) fitTurn(msgs []ChatMessage, n int) ([]ChatMessage, int) {
	var out []ChatMessage
	used := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		c := k.count(msgs[i].Content) + MessageOverhead
		if used+c <= n {
			out = append(out, msgs[i])
			used += c
			continue
		}
		if room := n - used - MessageOverhead; room > 16 {
			m := msgs[i]
			m.Content = k.cut(m.Content, room)
			out = append(out, m)
			used += k.count(m.Content) + MessageOverhead
		}
		break
	}
	slices.Reverse(out)
	return out, used
}

// chatMessages turns a stored turn into chat messages: user and assistant
// keep their roles, other messages become user messages that name their
// speaker.
func chatMessages(c *core.Chunk) []ChatMessage {
	out := make([]ChatMessage, 0, len(c.Messages))
	for _, m := range c.Messages {
		switch m.Role {
		case core.RoleUser, core.RoleAssistant:
			out = append(out, ChatMessage{Role: string(m.Role), Content: m.Text})
		default:
			out = append(out, ChatMessage{Role: "user", Content: m.Who() + ": " + m.Text})
		}
	}
	return out
}

// memoryBlock is the recalled long-term turns that fit.
type memoryBlock struct {
	header string
	parts  []string
	ids    []string
	costs  []int
	tokens int
}

func (m *memoryBlock) drop(ids map[string]bool) {
	for i := len(m.ids) - 1; i >= 0; i-- {
		if ids[m.ids[i]] {
			m.tokens -= m.costs[i]
			m.parts = slices.Delete(m.parts, i, i+1)
			m.ids = slices.Delete(m.ids, i, i+1)
			m.costs = slices.Delete(m.costs, i, i+1)
		}
	}
	if len(m.parts) == 0 {
		m.tokens = 0
	}
}

func (k *Kernel) memoryBlock(ctx context.Context, msg string, now time.Time, n int, exclude map[string]bool) (memoryBlock, error) {
	b := memoryBlock{header: "## Memories recalled for this message\nVerbatim turns from earlier conversations. Call recall_by_id with a prev or next id to read around one."}
	if k.opts.Config.RecallTopK == 0 || strings.TrimSpace(msg) == "" {
		return b, nil
	}
	headerCost := k.count(b.header) + 2
	if n <= headerCost {
		return b, nil
	}
	q := core.Query{Text: msg, TopK: k.opts.Config.RecallTopK, Namespace: k.Namespace(), Now: now}
	res, err := k.mem.Recall(ctx, q)
	if err == nil && res.ResolvedTime != nil && !hasHit(res.Hits, exclude) {
		// A time phrase in a chat message ("for tonight") need not be
		// about the past: when the window it names holds nothing, search
		// all of memory.
		q.NoTime = true
		res, err = k.mem.Recall(ctx, q)
	}
	if err != nil {
		if errors.Is(err, core.ErrInvalid) {
			return b, nil // a message that is no query, such as only a time phrase
		}
		return b, fmt.Errorf("recalling memories: %w", err)
	}
	used := headerCost
	for i := range res.Hits {
		h := &res.Hits[i]
		if exclude[h.ID] || h.ContextRole != core.RoleHit {
			continue
		}
		var sb strings.Builder
		render.Hit(&sb, h, false)
		part := sb.String()
		c := k.count(part) + 1
		if used+c > n {
			continue
		}
		used += c
		b.parts = append(b.parts, part)
		b.ids = append(b.ids, h.ID)
		b.costs = append(b.costs, c)
	}
	if len(b.parts) > 0 {
		b.tokens = used
	}
	return b, nil
}

// hasHit reports whether hits hold a hit outside exclude.
func hasHit(hits []core.Hit, exclude map[string]bool) bool {
	for i := range hits {
		if hits[i].ContextRole == core.RoleHit && !exclude[hits[i].ID] {
			return true
		}
	}
	return false
}

// profileBlock is the user's profile lines that fit.
type profileBlock struct {
	header string
	lines  []string
	tokens int
}

type fact struct {
	line  string
	score float64
}

func (k *Kernel) profile(ctx context.Context, msg string, now time.Time, n int, exclude map[string]bool) (profileBlock, error) {
	b := profileBlock{header: "## What you know about the user"}
	if k.opts.Config.ProfileItems == 0 {
		return b, nil
	}
	headerCost := k.count(b.header) + 2
	if n <= headerCost {
		return b, nil
	}
	var types []string
	for t := range profileTypes {
		types = append(types, "type = '"+t+"'")
	}
	slices.Sort(types)
	filter := strings.Join(types, " OR ")
	var hits []core.Hit
	// The memories most related to the message, and the newest ones.
	for _, q := range []core.Query{
		{Text: msg, Filter: filter, TopK: 20, NoTime: true},
		{Filter: filter, TopK: 20, NoTime: true, Since: now.AddDate(0, 0, -30)},
	} {
		if strings.TrimSpace(q.Text) == "" && q.Since.IsZero() {
			continue
		}
		q.Namespace, q.Now = k.Namespace(), now
		res, err := k.mem.Recall(ctx, q)
		if err != nil {
			if errors.Is(err, core.ErrInvalid) {
				continue
			}
			return b, fmt.Errorf("reading the profile: %w", err)
		}
		hits = append(hits, res.Hits...)
	}
	seen := map[string]bool{}
	var facts []fact
	for i := range hits {
		h := &hits[i]
		if exclude[h.ID] {
			continue
		}
		age := now.Sub(h.Time).Hours() / 24
		recency := math.Exp(-max(age, 0) / 45)
		for _, m := range h.Memories {
			w, ok := profileTypes[m.Type]
			if !ok {
				continue
			}
			if m.Extractor == "llm" {
				w += 0.2 // distilled by a model: cleaner facts
			}
			for _, f := range m.Facts {
				key := m.Type + "\x00" + strings.ToLower(strings.TrimSpace(f))
				if seen[key] {
					continue
				}
				seen[key] = true
				line := fmt.Sprintf("- %s: %s (%s, id:%s)", m.Type, strings.TrimSpace(f), h.Time.Format("2006-01-02"), h.ID)
				facts = append(facts, fact{line, w*recency + 0.3*h.Relevance})
			}
		}
	}
	slices.SortStableFunc(facts, func(a, b fact) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.line, b.line)
	})
	used := headerCost
	for _, f := range facts {
		if len(b.lines) == k.opts.Config.ProfileItems {
			break
		}
		c := k.count(f.line) + 1
		if used+c > n {
			continue
		}
		used += c
		b.lines = append(b.lines, f.line)
	}
	if len(b.lines) > 0 {
		b.tokens = used
	}
	return b, nil
}
