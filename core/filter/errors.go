package filter

import "fmt"

// SyntaxError is the error [Parse] returns for an expression it cannot
// read. Test for it with [errors.As] to report the column to the caller.
type SyntaxError struct {
	// Msg says what is wrong, such as `unknown field "sesion"`.
	Msg string
	// Column is the 1-based column, counted in runes, where the problem
	// starts.
	Column int
}

// Error returns "filter: <Msg> at column <Column>".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("filter: %s at column %d", e.Msg, e.Column)
}

func errorf(col int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Column: col}
}
