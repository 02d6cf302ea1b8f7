package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
)

// Error is a failed extraction of one chunk.
type Error struct {
	// Chunk names the chunk, as [Describe] does.
	Chunk string
	// Attempts is how many requests were made.
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	s := "llm extractor: " + e.Chunk + ": " + e.Err.Error()
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (gave up after %d attempts)", e.Attempts)
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Describe names a chunk in errors: its id when it has one, its session,
// the time of its first message and its transcript lines. At extraction
// time a new chunk has no id yet.
func Describe(c *core.Chunk) string {
	var b strings.Builder
	b.WriteString("chunk")
	if c.ID != "" {
		b.WriteString(" " + c.ID)
	}
	fmt.Fprintf(&b, " of session %q", c.Session)
	if !c.Time.IsZero() {
		b.WriteString(" at " + c.Time.Format(time.RFC3339))
	}
	if c.File != "" {
		fmt.Fprintf(&b, " (%s:L%d-L%d)", c.File, c.LineStart, c.LineEnd)
	}
	return b.String()
}

// ErrBadAnswer is wrapped by every error about the content of the model's
// answer: not JSON, or JSON that breaks the schema.
var ErrBadAnswer = errors.New("bad answer from the model")

// HTTPError is an answer with a status other than 2xx.
type HTTPError struct {
	// URL is the endpoint, with any password hidden.
	URL        string
	StatusCode int
	// Status is the status line, such as "401 Unauthorized".
	Status string
	// Message is the server's error message, or the start of its answer.
	Message string
}

func (e *HTTPError) Error() string {
	s := "POST " + e.URL + ": " + e.Status
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Temporary reports whether the request may succeed when retried: 408,
// 429 and 5xx statuses.
func (e *HTTPError) Temporary() bool {
	return e.StatusCode == http.StatusRequestTimeout || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// transportError is a request that got no answer: the connection failed,
// or the attempt ran over its timeout. It does not wrap
// context.DeadlineExceeded for a timeout of its own, so that a plugin host
// does not take it for a hung plugin.
type transportError struct {
	msg string
}

func (e *transportError) Error() string   { return e.msg }
func (e *transportError) Temporary() bool { return true }

// Temporary reports whether err, from [Extractor.Extract], may go away
// when the chunk is extracted again later: the server was unreachable,
// slow, overloaded (429) or failing (5xx), or the caller's deadline ran
// out. Bad answers, refusals and other 4xx statuses are not temporary.
func Temporary(err error) bool {
	var t interface{ Temporary() bool }
	if errors.As(err, &t) {
		return t.Temporary()
	}
	return errors.Is(err, context.DeadlineExceeded)
}
