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
	// String renders the expression in the filter language, with the
	// parentheses it needs, so that parsing the result gives the same
	// tree.
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

// String renders the conjunction as "L AND R", with parentheses around
// an OR side, and around an AND on the right, which keeps the tree's shape.
func (e *And) String() string {
	return group(e.L, isOr) + " AND " + group(e.R, func(x Expr) bool { return isOr(x) || isAnd(x) })
}

// String renders the disjunction as "L OR R", with parentheses around an
// OR on the right.
func (e *Or) String() string {
	return e.L.String() + " OR " + group(e.R, isOr)
}

// String renders the negation as "NOT X", with parentheses around an AND
// or an OR.
func (e *Not) String() string {
	return "NOT " + group(e.X, func(x Expr) bool { return isOr(x) || isAnd(x) })
}

func isOr(e Expr) bool  { _, ok := e.(*Or); return ok }
func isAnd(e Expr) bool { _, ok := e.(*And); return ok }

// group renders e, in parentheses if paren(e).
func group(e Expr, paren func(Expr) bool) string {
	if paren(e) {
		return "(" + e.String() + ")"
	}
	return e.String()
}

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
