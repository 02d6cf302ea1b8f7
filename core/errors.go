package core

import (
	"errors"
	"fmt"
)

// Sentinel errors that callers branch on.
var (
	// ErrNotFound means no chunk has the requested id in the namespace.
	ErrNotFound = errors.New("not found")
	// ErrIndexStale means the search index disagrees with the store and
	// could not be repaired; run `huimem reindex`.
	ErrIndexStale = errors.New("search index is out of date with the store")
	// ErrEmbedderChanged means the configured embedder differs from the
	// one whose vectors the store holds; run `huimem reindex`.
	ErrEmbedderChanged = errors.New("embedder changed")
	// ErrLocked means another process has the home open.
	ErrLocked = errors.New("home is in use by another process")
	// ErrClosed means the engine was used after Close.
	ErrClosed = errors.New("engine is closed")
	// ErrInvalid marks bad input: a bad query, message or config value.
	ErrInvalid = errors.New("invalid input")
)

// InputError reports a bad line in an input file, as "path:line: msg".
type InputError struct {
	Path string
	Line int
	Err  error
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *InputError) Unwrap() []error { return []error{ErrInvalid, e.Err} }
