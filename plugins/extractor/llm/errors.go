package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/oaihttp"
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

// HTTPError is an answer with a status other than 2xx. Its URL is the
// endpoint with any password hidden, Status the status line (such as
// "401 Unauthorized") and Message the server's error message, quoted.
// Temporary reports whether the request may succeed when retried: 408, 429
// and 5xx statuses.
type HTTPError = oaihttp.HTTPError

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
