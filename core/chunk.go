package core

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Anchor is a chunk's place in its conversation: its own id and the ids of
// the chunks just before and after it in the same session. Prev is empty at
// the start of a session and Next at its end.
type Anchor struct {
	ID   string `json:"id"`
	Prev string `json:"prev"`
	Next string `json:"next"`
}

// String renders the anchor as HuiMemory shows it to an LLM:
//
//	[id:a3f2c7 | prev: k7f2a1 | next: d2n7p3]
//
// A missing neighbour shows as "-".
func (a Anchor) String() string {
	return "[" + a.Fields() + "]"
}

// Fields renders the anchor without brackets, for callers that append more
// fields inside the same brackets.
func (a Anchor) Fields() string {
	return "id:" + a.ID + " | prev: " + orDash(a.Prev) + " | next: " + orDash(a.Next)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Memory is what an [Extractor] found in a chunk: a typed piece of
// long-term memory.
type Memory struct {
	// Type is one of the memory types, such as "decision", "preference",
	// "milestone", "problem" or "emotional".
	Type string `json:"type"`
	// Entities names the people, projects and things involved.
	Entities []string `json:"entities,omitempty"`
	// Topic is a short label for what the chunk is about.
	Topic string `json:"topic,omitempty"`
	// Facts are short key statements.
	Facts []string `json:"facts,omitempty"`
	// Extractor names the extractor that produced the memory.
	Extractor string `json:"extractor,omitempty"`
}

// Chunk is a turn chunk: the unit HuiMemory indexes, recalls and links.
type Chunk struct {
	Anchor
	Namespace string `json:"namespace,omitempty"`
	Session   string `json:"session"`
	// Time is the time of the chunk's first message, End that of its last.
	Time time.Time `json:"time"`
	End  time.Time `json:"end"`
	// File is the session's transcript, relative to the sessions folder,
	// such as "2026-W11/2026-03-05/chat_s1.md".
	File string `json:"file"`
	// LineStart and LineEnd are the 1-based lines of File that hold the
	// chunk, inclusive.
	LineStart int `json:"line_start"`
	LineEnd   int `json:"line_end"`
	// Section is the heading path of a markdown chunk.
	Section string `json:"section,omitempty"`
	// Topic is a short label, filled in by a topic extractor.
	Topic    string   `json:"topic,omitempty"`
	Memories []Memory `json:"memories,omitempty"`
	// Messages are the chunk's messages, verbatim and in order.
	Messages []Message `json:"messages"`
	// Text is set only when the chunker cut the chunk out of its messages
	// (window and markdown chunkers); otherwise the chunk's text is its
	// messages' text.
	Text string `json:"text,omitempty"`
}

// Refs returns the external refs of the chunk's messages, in order,
// skipping messages without one.
func (c *Chunk) Refs() []string {
	refs := []string{}
	for i := range c.Messages {
		if r := c.Messages[i].Ref; r != "" {
			refs = append(refs, r)
		}
	}
	return refs
}

// Speakers returns the distinct authors of the chunk's messages, in order of
// first appearance.
func (c *Chunk) Speakers() []string {
	var out []string
	for i := range c.Messages {
		w := c.Messages[i].Who()
		if w != "" && !contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// Content returns the text that is indexed and embedded for the chunk: each
// message as "speaker: text", one per line, or Text when the chunker cut
// the chunk out of its messages.
func (c *Chunk) Content() string {
	if c.Text != "" {
		return c.Text
	}
	var b strings.Builder
	for i := range c.Messages {
		if i > 0 {
			b.WriteByte('\n')
		}
		if w := c.Messages[i].Who(); w != "" {
			b.WriteString(w)
			b.WriteString(": ")
		}
		b.WriteString(c.Messages[i].Text)
	}
	return b.String()
}

// MemoryTypes returns the distinct types of the chunk's memories.
func (c *Chunk) MemoryTypes() []string {
	var out []string
	for _, m := range c.Memories {
		if m.Type != "" && !contains(out, m.Type) {
			out = append(out, m.Type)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Span is one chunk as a [Chunker] cuts it: a run of a session's messages
// and the transcript lines it covers.
type Span struct {
	// From and To index the session's messages: the chunk holds
	// messages[From:To]. To > From.
	From int `json:"from"`
	To   int `json:"to"`
	// LineStart and LineEnd are the transcript lines the chunk covers,
	// 1-based and inclusive.
	LineStart int `json:"line_start"`
	LineEnd   int `json:"line_end"`
	// Text, when set, is the chunk's own text (a window or a section) in
	// place of its messages' text.
	Text string `json:"text,omitempty"`
	// Section is the heading path of a markdown section.
	Section string `json:"section,omitempty"`
}

// SessionMessage is a message as a [Chunker] sees it: the message and the
// transcript lines it occupies.
type SessionMessage struct {
	Message
	// HeaderLine is the line of the message's header in the transcript;
	// its text runs from TextStart to TextEnd inclusive.
	HeaderLine int `json:"header_line"`
	TextStart  int `json:"text_start"`
	TextEnd    int `json:"text_end"`
}

// CheckSpans checks a chunker's output for msgs: spans in order (by From,
// then strictly by LineStart), each within range and within its messages'
// lines, and every message in some span. The engine refuses output that
// fails it.
func CheckSpans(spans []Span, msgs []SessionMessage) error {
	if len(msgs) > 0 && len(spans) == 0 {
		return fmt.Errorf("no chunks for %d messages", len(msgs))
	}
	covered := 0
	for i, sp := range spans {
		if sp.From < 0 || sp.To > len(msgs) || sp.From >= sp.To {
			return fmt.Errorf("chunk %d covers messages [%d, %d) of %d", i, sp.From, sp.To, len(msgs))
		}
		if i > 0 && (sp.From < spans[i-1].From || (sp.From == spans[i-1].From && sp.LineStart <= spans[i-1].LineStart)) {
			return fmt.Errorf("chunk %d is out of order", i)
		}
		if sp.From > covered {
			return fmt.Errorf("message %d is in no chunk", covered)
		}
		lo, hi := msgs[sp.From].HeaderLine, msgs[sp.To-1].TextEnd
		if sp.LineStart < lo || sp.LineEnd > hi || sp.LineStart > sp.LineEnd {
			return fmt.Errorf("chunk %d has lines %d-%d outside its messages' lines %d-%d", i, sp.LineStart, sp.LineEnd, lo, hi)
		}
		covered = max(covered, sp.To)
	}
	if covered < len(msgs) {
		return fmt.Errorf("message %d is in no chunk", covered)
	}
	return nil
}

// Chunker cuts one session's messages, in time order, into chunks.
// Implementations must be deterministic: the same messages give the same
// spans, and the spans must pass [CheckSpans].
type Chunker interface {
	Chunk(ctx context.Context, msgs []SessionMessage) ([]Span, error)
}

// Extractor reads a chunk and returns the typed memories it holds.
type Extractor interface {
	Extract(ctx context.Context, c *Chunk) ([]Memory, error)
}
