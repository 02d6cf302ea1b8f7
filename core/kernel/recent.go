package kernel

import (
	"slices"

	"github.com/huimemory/huimemory/core"
)

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
