package chunkers

import (
	"context"

	"github.com/huimemory/huimemory/core"
)

// Turn groups each user message with the assistant messages that follow
// it. System messages and messages without a role stand alone; assistant
// messages with no user message before them group together. A session with
// no user or assistant message at all gets one chunk per message.
type Turn struct{}

var _ core.Chunker = Turn{}

// Chunk cuts msgs into exchange pairs.
func (Turn) Chunk(_ context.Context, msgs []core.SessionMessage) ([]core.Span, error) {
	if !hasDialogueRoles(msgs) {
		return perMessage(msgs), nil
	}
	var spans []core.Span
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			spans = append(spans, span(msgs, start, end))
		}
		start = -1
	}
	for i := range msgs {
		r := msgs[i].Role
		switch {
		case r == core.RoleUser:
			flush(i)
			start = i
		case r == core.RoleAssistant:
			// An assistant reply joins the open chunk, or opens one.
			if start < 0 {
				start = i
			}
		default:
			flush(i)
			spans = append(spans, span(msgs, i, i+1))
		}
	}
	flush(len(msgs))
	return spans, nil
}

// Message makes one chunk per message.
type Message struct{}

var _ core.Chunker = Message{}

// Chunk returns one span per message.
func (Message) Chunk(_ context.Context, msgs []core.SessionMessage) ([]core.Span, error) {
	return perMessage(msgs), nil
}

func perMessage(msgs []core.SessionMessage) []core.Span {
	spans := make([]core.Span, len(msgs))
	for i := range msgs {
		spans[i] = span(msgs, i, i+1)
	}
	return spans
}

func span(msgs []core.SessionMessage, from, to int) core.Span {
	return core.Span{From: from, To: to, LineStart: msgs[from].HeaderLine, LineEnd: msgs[to-1].TextEnd}
}

func hasDialogueRoles(msgs []core.SessionMessage) bool {
	for i := range msgs {
		if msgs[i].Role == core.RoleUser || msgs[i].Role == core.RoleAssistant {
			return true
		}
	}
	return false
}
