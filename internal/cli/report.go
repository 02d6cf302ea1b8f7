package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/render"
)

// query is what most commands do: open the engine, ask it one thing and
// print the answer.
type query[T any] struct {
	// JSON prints the answer as one JSON value (--json); otherwise Text
	// prints it.
	JSON bool
	// Partial is set when Ask returns what it did before failing (the
	// weeks sealed, the archives checked): the answer is printed, then the
	// error returned. Otherwise a failed Ask prints nothing.
	Partial bool
	Ask     func(context.Context, *engine.Engine) (T, error)
	Text    func(w io.Writer, answer T, err error) error
	// AsJSON, when set, gives the value printed as JSON; by default it is
	// the answer itself.
	AsJSON func(answer T) any
}

// oneShotHeap is the heap that a one-shot recall or get may reach before
// its first garbage collection (see internal/startheap): a recall of a
// long question allocates a few MiB more than the runtime's first goal
// of 4 MiB, and collecting them cost a cold recall 2.5–3 ms on the BEAM
// dev questions. A process that allocates more is collected as usual
// once past it.
const oneShotHeap = 16 << 20

// runQuery opens the engine (see [App.open]), runs q, closes the engine
// and returns the first error.
func runQuery[T any](a *App, cmd *cobra.Command, q query[T]) error {
	e, _, err := a.open(cmd.Context(), engine.Options{})
	if err != nil {
		return err
	}
	defer e.Close()
	answer, err := q.Ask(cmd.Context(), e)
	if err != nil && !q.Partial {
		return err
	}
	var perr error
	switch {
	case q.JSON && q.AsJSON != nil:
		perr = render.JSON(a.Stdout, q.AsJSON(answer))
	case q.JSON:
		perr = render.JSON(a.Stdout, answer)
	default:
		perr = q.Text(a.Stdout, answer, err)
	}
	if err != nil {
		return err
	}
	return perr
}
