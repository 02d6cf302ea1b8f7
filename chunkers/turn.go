package chunkers

import (
	"context"
	"unicode/utf8"

	"github.com/huimemory/huimemory/core"
)

// DefaultTurnMaxChars is the largest exchange a zero [Turn] keeps in one
// chunk, in characters (runes) of message text.
const DefaultTurnMaxChars = 2000

// Turn groups each user message with the assistant messages that follow
// it, while together they hold at most MaxChars characters. A longer
// exchange is cut into one chunk per message, so that a recall hands the
// LLM the message that matched rather than the whole exchange, with the
// reply one next link away, and a long reply's words do not lift the
// user's message beside it (docs/recall-quality.md, "Long exchanges cut
// into their messages"). System messages and messages without a
// role stand alone; assistant messages with no user message before them
// group together under the same limit. A session with no user or assistant
// message at all gets one chunk per message.
type Turn struct {
	// MaxChars bounds an exchange kept in one chunk, in runes of message
	// text; 0 means DefaultTurnMaxChars, and a negative value keeps every
	// exchange whole, however long.
	MaxChars int
}

var _ core.Chunker = Turn{}

// Chunk cuts msgs into exchange pairs.
func (t Turn) Chunk(_ context.Context, msgs []core.SessionMessage) ([]core.Span, error) {
	if !hasDialogueRoles(msgs) {
		return perMessage(msgs), nil
	}
	limit := t.MaxChars
	if limit == 0 {
		limit = DefaultTurnMaxChars
	}
	var spans []core.Span
	start, size := -1, 0
	flush := func(end int) {
		switch {
		case start < 0 || end <= start:
		case limit < 0 || size <= limit:
			spans = append(spans, span(msgs, start, end))
		default:
			for i := start; i < end; i++ {
				spans = append(spans, span(msgs, i, i+1))
			}
		}
		start, size = -1, 0
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
			continue
		}
		if limit >= 0 && size <= limit {
			size += utf8.RuneCountInString(msgs[i].Text)
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
