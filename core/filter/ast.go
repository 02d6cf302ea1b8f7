package filter

import (
	"fmt"
	"strings"
	"time"
)

// Op is a comparison operator.
type Op int

// The comparison operators. [Parse] never produces Ne: it rewrites
// "a != b" as NOT a = b (see the package documentation), but [Eval] and
// [Expr.String] accept it in hand-built trees.
const (
	Eq Op = iota + 1 // =
	Ne               // !=
	Lt               // <
	Le               // <=
	Gt               // >
	Ge               // >=
)

var opNames = [...]string{Eq: "=", Ne: "!=", Lt: "<", Le: "<=", Gt: ">", Ge: ">="}

// String returns the operator as written in an expression, such as ">=".
func (o Op) String() string {
	if o >= Eq && o <= Ge {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Expr is a node of a parsed filter expression: [*And], [*Or], [*Not] or
// [*Compare].
type Expr interface {
	// String renders the expression in the filter language, fully
	// parenthesised, so that parsing the result gives the same tree.
	String() string
	isExpr()
}

// And is true when both sides are.
type And struct{ L, R Expr }

// Or is true when either side is.
type Or struct{ L, R Expr }

// Not is true when X is false.
type Not struct{ X Expr }

// Compare compares a record's field with a value.
type Compare struct {
	// Field is one of timestamp, session, role, speaker, topic, namespace,
	// type and id.
	Field string
	// Op is the operator. For string fields it is Eq (or Ne in a hand-built
	// tree).
	Op Op
	// Value is the value as written, without quotes and escapes. For role
	// and type it is lower-cased.
	Value string
	// Start and End are set for the timestamp field only: the half-open
	// interval [Start, End) of the instants that satisfy the comparison. A
	// zero Start means unbounded below, a zero End unbounded above.
	Start, End time.Time
	// Column is the 1-based column, in runes, of the field name in the
	// expression.
	Column int
}

func (*And) isExpr()     {}
func (*Or) isExpr()      {}
func (*Not) isExpr()     {}
func (*Compare) isExpr() {}

// String renders the conjunction as "(L AND R)".
func (e *And) String() string { return "(" + e.L.String() + " AND " + e.R.String() + ")" }

// String renders the disjunction as "(L OR R)".
func (e *Or) String() string { return "(" + e.L.String() + " OR " + e.R.String() + ")" }

// String renders the negation as "NOT X".
func (e *Not) String() string { return "NOT " + e.X.String() }

// String renders the comparison as "field op 'value'", quoting the value
// with single quotes and escaping quotes and backslashes.
func (e *Compare) String() string {
	return e.Field + " " + e.Op.String() + " " + quote(e.Value)
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		if r == '\'' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}
