package hooks

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/kernel"
	"github.com/huimemory/huimemory/internal/render"
)

// Memory is what the hooks read. [*engine.Engine] implements it.
type Memory interface {
	Recall(ctx context.Context, q core.Query) (*core.Results, error)
	Sessions(ctx context.Context, ns string) ([]engine.SessionInfo, error)
	SessionTurns(ctx context.Context, ns, session string, n int) ([]core.Chunk, error)
}

var _ Memory = (*engine.Engine)(nil)

// Options shape the text the hooks add to an agent's context.
type Options struct {
	// Namespace is the project's namespace.
	Namespace string
	// Budget bounds the text, in tokens as kernel.EstimateTokens
	// estimates them (a hook cannot wait for a tokenizer to load).
	Budget int
	// Skip is a session to leave out: the one the agent is in, whose
	// turns it has in its context already.
	Skip string
	// Location is the zone times are shown in (time.zone); nil means
	// local time.
	Location *time.Location
}

func (o Options) loc() *time.Location {
	if o.Location == nil {
		return time.Local
	}
	return o.Location
}

// wakeTurns is how many of a session's latest turns the wake-up context
// reads.
const wakeTurns = 20

// quoteLen bounds a prompt quoted in the wake-up context, in characters.
const quoteLen = 140

// WakeUp returns the wake-up context of a project: its latest sessions
// (at most sessions of them, newest first), each with its time, its turn
// count and the first and last prompts of its latest turns with their
// anchors, then the decisions the extractors found in them; within
// o.Budget tokens, whole lines only. It returns "" when the namespace
// holds no session. It only reads m.
func WakeUp(ctx context.Context, m Memory, sessions int, o Options) (string, error) {
	infos, err := m.Sessions(ctx, o.Namespace)
	if err != nil {
		return "", err
	}
	var lines, decisions []string
	for _, s := range infos {
		if len(lines) >= sessions {
			break
		}
		if s.Session == o.Skip {
			continue
		}
		turns, err := m.SessionTurns(ctx, o.Namespace, s.Session, wakeTurns)
		if err != nil {
			return "", err
		}
		var prompts []string
		for i := range turns {
			c := &turns[i]
			if p := firstPrompt(c); p != "" {
				prompts = append(prompts, fmt.Sprintf("[id:%s] %q", c.ID, quote(p)))
			}
			for _, mem := range c.Memories {
				if mem.Type == "decision" {
					decisions = append(decisions, fmt.Sprintf("- %s [id:%s] %s", c.Time.In(o.loc()).Format(time.DateOnly), c.ID, quote(decisionText(c, mem))))
				}
			}
		}
		line := fmt.Sprintf("- %s, %d %s", span(s.First.In(o.loc()), s.Last.In(o.loc())), s.Chunks, plural(s.Chunks, "turn", "turns"))
		switch len(prompts) {
		case 0:
		case 1:
			line += ": " + prompts[0]
		default:
			line += ": " + prompts[0] + " … " + prompts[len(prompts)-1]
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return "", nil
	}
	head := fmt.Sprintf("HuiMemory holds this project's earlier sessions (namespace %s). The latest, newest first; each [id:…] is a turn that recall_by_id reads with its neighbours:", o.Namespace)
	parts := append([]string{head}, lines...)
	if len(decisions) > 0 {
		decisions[0] = "Decisions recorded in them:\n" + decisions[0]
		parts = append(parts, decisions...)
	}
	return fit(parts, o), nil
}

// firstPrompt returns the text of the first message a person wrote in c,
// on one line, or "".
func firstPrompt(c *core.Chunk) string {
	for i := range c.Messages {
		m := &c.Messages[i]
		if m.Role == core.RoleUser && !strings.HasPrefix(m.Speaker, "tool") {
			return strings.Join(strings.Fields(m.Text), " ")
		}
	}
	return ""
}

// decisionText is what the wake-up context says of a decision: its
// facts, else the chunk's first prompt, else its content.
func decisionText(c *core.Chunk, m core.Memory) string {
	if len(m.Facts) > 0 {
		return strings.Join(m.Facts, "; ")
	}
	if p := firstPrompt(c); p != "" {
		return p
	}
	return strings.Join(strings.Fields(c.Content()), " ")
}

// quote cuts s to quoteLen characters.
func quote(s string) string {
	if utf8.RuneCountInString(s) <= quoteLen {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:quoteLen-1])) + "…"
}

// span renders a session's time: "2026-11-17 Tue 10:00–10:42", or two
// dates when it spans days.
func span(first, last time.Time) string {
	const day = "2006-01-02 Mon 15:04"
	if first.IsZero() {
		return last.Format(day)
	}
	if first.Format(time.DateOnly) == last.Format(time.DateOnly) {
		return first.Format(day) + "–" + last.Format("15:04")
	}
	return first.Format(day) + " – " + last.Format(day)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// PromptContext returns the memories of the project that match prompt,
// for the agent's context: at most topK hits, each at least floor in
// relevance (retriever.min_relevance, applied to every hit here: text
// that the user did not ask for must be about the prompt), rendered in
// HuiMemory's result format with their anchors, within o.Budget tokens
// (the first hit is cut to fit; the others are left out whole). It
// returns "" when nothing reaches the floor. It only reads m.
func PromptContext(ctx context.Context, m Memory, prompt string, topK int, floor float64, o Options) (string, error) {
	if strings.TrimSpace(prompt) == "" {
		return "", nil
	}
	// The agent's own session is left out after the recall, not by a
	// filter: "session != X" costs a scan of the namespace (0.5 s at 100k
	// chunks). Twice the hits leave room for it.
	q := core.Query{Text: prompt, TopK: 2 * topK, Namespace: o.Namespace}
	res, err := m.Recall(ctx, q)
	if err != nil {
		return "", err
	}
	var hits []string
	for i := range res.Hits {
		h := &res.Hits[i]
		if h.ContextRole == core.RoleNeighbor || h.Relevance < floor || h.Session == o.Skip && o.Skip != "" || len(hits) == topK {
			continue
		}
		var b strings.Builder
		render.Hit(&b, h, false)
		hits = append(hits, strings.TrimRight(b.String(), "\n"))
	}
	if len(hits) == 0 {
		return "", nil
	}
	head := fmt.Sprintf("HuiMemory: earlier turns of this project that match the prompt (namespace %s); recall_by_id reads any [id:…] with its neighbours:", o.Namespace)
	return fit(append([]string{head}, hits...), o), nil
}

// fit joins parts with newlines within o.Budget tokens, as
// kernel.EstimateTokens counts them: the first part always, the second
// cut to the lines that fit what is left if it does not fit whole, and
// each later part whole or not at all.
func fit(parts []string, o Options) string {
	var b strings.Builder
	left := o.Budget
	for i, p := range parts {
		n := kernel.EstimateTokens(p) + 1 // the newline
		switch {
		case i == 0 || n <= left:
			b.WriteString(p + "\n")
			left = max(left-n, 0)
		case i == 1:
			var kept []string
			for _, line := range strings.Split(p, "\n") {
				m := kernel.EstimateTokens(line) + 1
				if m > left-2 {
					break
				}
				kept = append(kept, line)
				left -= m
			}
			if len(kept) > 0 {
				b.WriteString(strings.Join(kept, "\n") + "\n…\n")
			}
			left = 0
		}
	}
	return b.String()
}
