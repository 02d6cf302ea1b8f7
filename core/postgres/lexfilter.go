package postgres

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core/filter"
	"github.com/huimemory/huimemory/core/index"
)

// filterCompiler translates a filter expression (core/filter) into an SQL
// condition on lex_docs d, with the meaning core/index gives it on the
// bleve index (core/index/filter.go):
//
//   - session, id: the chunk's session or id equals the value;
//   - role, speaker, type: one of the chunk's values equals the value
//     exactly (the parser lower-cases role and type values, not the
//     stored ones); an empty value matches a stored empty value;
//   - topic: the chunk's topic equals the value; an empty value matches
//     nothing (bleve does not index an empty topic);
//   - namespace: the chunk's namespace; "" and "~" (bleve's keyword for
//     the default namespace) both name the default one;
//   - timestamp: the chunk's time is in [Start, End), a zero side open;
//     both zero matches everything.
//
// A string comparison with Ne (only in hand-built trees: the parser
// rewrites != as NOT =) is the negation of Eq, as in [filter.Eval];
// another operator on a string field, or an unknown field, matches
// nothing.
type filterCompiler struct {
	args pgx.NamedArgs
	n    int
}

// param adds v to the arguments and returns its placeholder.
func (c *filterCompiler) param(v any, typ string) string {
	c.n++
	name := fmt.Sprintf("f%d", c.n)
	c.args[name] = v
	return "@" + name + "::" + typ
}

func (c *filterCompiler) compile(e filter.Expr) string {
	switch e := e.(type) {
	case nil:
		return "true"
	case *filter.And:
		return "(" + c.compile(e.L) + " AND " + c.compile(e.R) + ")"
	case *filter.Or:
		return "(" + c.compile(e.L) + " OR " + c.compile(e.R) + ")"
	case *filter.Not:
		return "(NOT " + c.compile(e.X) + ")"
	case *filter.Compare:
		if e.Field != "timestamp" && e.Op != filter.Eq && e.Op != filter.Ne {
			return "false"
		}
		if e.Op == filter.Ne {
			return "(NOT " + c.compare(e) + ")"
		}
		return c.compare(e)
	}
	return "false"
}

// compare returns the condition of c with its operator taken as Eq.
func (c *filterCompiler) compare(e *filter.Compare) string {
	v := e.Value
	switch e.Field {
	case "timestamp":
		var parts []string
		if !e.Start.IsZero() {
			parts = append(parts, "d.t >= "+c.param(e.Start, "timestamptz"))
		}
		if !e.End.IsZero() {
			parts = append(parts, "d.t < "+c.param(e.End, "timestamptz"))
		}
		if len(parts) == 0 {
			return "true"
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	case "session":
		return "d.session = " + c.param(v, "text")
	case "id":
		return "d.id = " + c.param(v, "text")
	case "topic":
		if v == "" {
			return "false"
		}
		return "d.topic = " + c.param(v, "text")
	case "namespace":
		if v == index.DefaultNS {
			v = ""
		}
		return "d.ns = " + c.param(v, "text")
	case "role":
		return c.param(v, "text") + " = ANY(d.roles)"
	case "speaker":
		return c.param(v, "text") + " = ANY(d.speakers)"
	case "type":
		return c.param(v, "text") + " = ANY(d.types)"
	}
	return "false"
}
