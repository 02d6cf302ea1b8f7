package filter

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// fields lists the fields a comparison may name.
var fields = map[string]kind{
	"timestamp": kindTime,
	"session":   kindString,
	"role":      kindFolded,
	"speaker":   kindString,
	"topic":     kindString,
	"namespace": kindString,
	"type":      kindFolded,
	"id":        kindString,
}

// kind is how a field's values compare.
type kind int

const (
	kindString kind = iota + 1 // exact, case-sensitive
	kindFolded                 // exact after lower-casing
	kindTime                   // instants
)

// maxDepth bounds the nesting of parentheses and NOTs.
const maxDepth = 100

// tokKind is the kind of a token.
type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokString
	tokOp
	tokLParen
	tokRParen
)

type token struct {
	kind tokKind
	text string // the source text; for strings, the unquoted value
	src  string // the source text as written
	op   Op
	col  int // 1-based rune column
}

// lex splits expr into tokens.
func lex(expr string) ([]token, error) {
	var toks []token
	col := 1
	for i := 0; i < len(expr); {
		r, size := utf8.DecodeRuneInString(expr[i:])
		start, startCol := i, col
		switch {
		case unicode.IsSpace(r):
			i += size
			col++
		case r == '(' || r == ')':
			k := tokLParen
			if r == ')' {
				k = tokRParen
			}
			toks = append(toks, token{kind: k, text: string(r), src: string(r), col: col})
			i++
			col++
		case r == '\'' || r == '"':
			var b strings.Builder
			i += size
			col++
			closed := false
			for i < len(expr) {
				c, n := utf8.DecodeRuneInString(expr[i:])
				i += n
				col++
				if c == r {
					closed = true
					break
				}
				if c == '\\' && i < len(expr) {
					next, n2 := utf8.DecodeRuneInString(expr[i:])
					if next == r || next == '\\' {
						c = next
						i += n2
						col++
					}
				}
				b.WriteRune(c)
			}
			if !closed {
				return nil, errorf(startCol, "unterminated string")
			}
			toks = append(toks, token{kind: tokString, text: b.String(), src: expr[start:i], col: startCol})
		case strings.ContainsRune("=!<>", r):
			op, n := Op(0), 1
			two := ""
			if i+1 < len(expr) {
				two = expr[i : i+2]
			}
			switch {
			case two == "!=" || two == "<>":
				op, n = Ne, 2
			case two == "<=":
				op, n = Le, 2
			case two == ">=":
				op, n = Ge, 2
			case two == "==":
				op, n = Eq, 2
			case r == '=':
				op = Eq
			case r == '<':
				op = Lt
			case r == '>':
				op = Gt
			default:
				return nil, errorf(col, "unexpected %q", "!")
			}
			toks = append(toks, token{kind: tokOp, text: expr[i : i+n], src: expr[i : i+n], op: op, col: col})
			i += n
			col += n
		case isIdentRune(r):
			for i < len(expr) {
				c, n := utf8.DecodeRuneInString(expr[i:])
				if !isIdentRune(c) {
					break
				}
				i += n
				col++
			}
			toks = append(toks, token{kind: tokIdent, text: expr[start:i], src: expr[start:i], col: startCol})
		default:
			return nil, errorf(col, "unexpected character %q", string(r))
		}
	}
	return append(toks, token{kind: tokEOF, col: col}), nil
}

// isIdentRune reports whether r may appear in a field name or keyword.
// Digits, dots and dashes are included so that an unquoted value such as
// 2026-04-06 is reported as one token.
func isIdentRune(r rune) bool {
	return r == '_' || r == '.' || r == '-' || r == ':' || (r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)))
}

// parser is a recursive-descent parser over the tokens of one expression.
type parser struct {
	toks  []token
	pos   int
	loc   *time.Location
	depth int
}

// Parse parses a filter expression such as
//
//	timestamp >= '2026-04-06' AND (role = 'user' OR NOT type = 'decision')
//
// Timestamps without a UTC offset are read in loc (UTC if loc is nil). An
// error is always a [*SyntaxError] giving the column of the problem. Parse
// is safe for concurrent use.
func Parse(expr string, loc *time.Location) (Expr, error) {
	if loc == nil {
		loc = time.UTC
	}
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, loc: loc}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t)
	}
	return e, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

// keyword reports whether the next token is the keyword kw, in any case.
func (p *parser) keyword(kw string) bool {
	t := p.peek()
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) unexpected(t token) error {
	if t.kind == tokEOF {
		return errorf(t.col, "unexpected end of expression")
	}
	return errorf(t.col, "unexpected %q", t.src)
}

// or parses andExpr { OR andExpr }.
func (p *parser) or() (Expr, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.keyword("OR") {
		p.next()
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &Or{L: l, R: r}
	}
	return l, nil
}

// and parses notExpr { AND notExpr }.
func (p *parser) and() (Expr, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.keyword("AND") {
		p.next()
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		l = &And{L: l, R: r}
	}
	return l, nil
}

// not parses { NOT } primary. The NOTs are read in a loop, not by
// recursion, and pairs of them cancel out.
func (p *parser) not() (Expr, error) {
	odd := false
	for p.keyword("NOT") {
		p.next()
		odd = !odd
	}
	x, err := p.primary()
	if err != nil || !odd {
		return x, err
	}
	return negate(x), nil
}

// negate returns NOT x, removing a double negation.
func negate(x Expr) Expr {
	if n, ok := x.(*Not); ok {
		return n.X
	}
	return &Not{X: x}
}

// primary parses ( orExpr ) | comparison.
func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch {
	case t.kind == tokLParen:
		p.next()
		if p.depth++; p.depth > maxDepth {
			return nil, errorf(t.col, "expression nested too deeply")
		}
		e, err := p.or()
		p.depth--
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tokRParen {
			if c.kind == tokEOF {
				return nil, errorf(t.col, "unclosed \"(\"")
			}
			return nil, p.unexpected(c)
		}
		return e, nil
	case t.kind == tokIdent && !isKeyword(t.text):
		return p.comparison()
	case t.kind == tokEOF:
		return nil, errorf(t.col, "expected a comparison")
	}
	return nil, p.unexpected(t)
}

func isKeyword(s string) bool {
	return strings.EqualFold(s, "AND") || strings.EqualFold(s, "OR") || strings.EqualFold(s, "NOT")
}

// comparison parses field op 'value'.
func (p *parser) comparison() (Expr, error) {
	f := p.next()
	name := strings.ToLower(f.text)
	k, ok := fields[name]
	if !ok {
		return nil, errorf(f.col, "unknown field %q", f.text)
	}
	o := p.next()
	if o.kind != tokOp {
		return nil, errorf(o.col, "expected an operator after %q", f.text)
	}
	v := p.next()
	switch v.kind {
	case tokString:
	case tokEOF:
		return nil, errorf(v.col, "expected value after %q", o.text)
	case tokIdent:
		return nil, errorf(v.col, "expected a quoted value after %q, found %s (write '%s')", o.text, v.src, v.src)
	default:
		return nil, errorf(v.col, "expected value after %q, found %q", o.text, v.src)
	}
	c := &Compare{Field: name, Op: o.op, Value: v.text, Column: f.col}
	switch k {
	case kindFolded:
		c.Value = strings.ToLower(c.Value)
		fallthrough
	case kindString:
		if c.Op != Eq && c.Op != Ne {
			return nil, errorf(o.col, "operator %q does not apply to the string field %q; use = or !=", o.text, name)
		}
	case kindTime:
		start, end, ok := parseTime(c.Value, p.loc)
		if !ok {
			return nil, errorf(v.col, "invalid time %q", c.Value)
		}
		c.Start, c.End = bounds(c.Op, start, end)
	}
	if c.Op == Ne {
		// NOT (= any) is the meaning of != for a field with several
		// values, and for a timestamp it keeps Start and End an interval.
		c.Op = Eq
		if k == kindTime {
			start, end, _ := parseTime(c.Value, p.loc)
			c.Start, c.End = start, end
		}
		return negate(c), nil
	}
	return c, nil
}

// bounds returns the instants that satisfy "t op v", where v stands for
// the interval [start, end): a whole day for a date, one second for a
// time.
func bounds(op Op, start, end time.Time) (time.Time, time.Time) {
	switch op {
	case Lt:
		return time.Time{}, start
	case Le:
		return time.Time{}, end
	case Gt:
		return end, time.Time{}
	case Ge:
		return start, time.Time{}
	}
	return start, end // Eq; Ne is rewritten by the caller.
}

// Layouts of timestamps without an offset, read in the parser's location.
var localLayouts = []string{
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
}

// Layouts of timestamps with an offset.
var offsetLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04Z07:00",
}

// parseTime reads a timestamp value as the interval it stands for: a date
// is the whole local day, a time is the second it names.
func parseTime(s string, loc *time.Location) (start, end time.Time, ok bool) {
	if d, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		y, m, dd := d.Date()
		return time.Date(y, m, dd, 0, 0, 0, 0, loc), time.Date(y, m, dd+1, 0, 0, 0, 0, loc), true
	}
	for _, layout := range localLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, t.Add(time.Second), true
		}
	}
	for _, layout := range offsetLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.Truncate(time.Second).In(loc)
			return t, t.Add(time.Second), true
		}
	}
	return time.Time{}, time.Time{}, false
}
