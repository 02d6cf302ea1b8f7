// Package filter parses and evaluates the filter expressions that an LLM
// passes in the filter_expr argument of a recall_memory tool call, such as
//
//	timestamp >= '2026-04-06' AND timestamp <= '2026-04-13' AND role = 'user'
//
// The engine parses the expression once with [Parse], translates the tree
// into a search-index query (the tree is exported for that: [*And], [*Or],
// [*Not] and [*Compare]), narrows its scan with [TimeBounds], and can check
// a single record with [Eval]. The package is a leaf: it imports nothing
// else from HuiMemory. Time phrases in the query text itself ("上周三下午")
// are the business of package timeparse, not of this one.
//
// # Language
//
// An expression is comparisons combined with AND, OR, NOT and parentheses.
// The keywords are case-insensitive, and NOT binds tighter than AND, which
// binds tighter than OR:
//
//	NOT a = 'x' AND b = 'y' OR c = 'z'   is   ((NOT a = 'x') AND b = 'y') OR c = 'z'
//
// A comparison is a field, an operator (= != < <= > >=; == and <> are
// accepted for = and !=) and a value in single or double quotes. Inside
// quotes a backslash escapes the quote character and the backslash; any
// other backslash is kept as it is.
//
// The fields are:
//
//	timestamp   when the chunk was said; all operators
//	session     session id
//	role        "user" or "assistant"; compared lower-cased
//	speaker     who spoke
//	topic       topic label
//	namespace   memory namespace
//	type        memory type such as "decision"; compared lower-cased
//	id          chunk (anchor) id
//
// Field names are case-insensitive. String fields take = and != only and
// compare exactly (role and type after lower-casing both sides). A field may
// hold several values, such as several speakers: = is true if any of them
// equals the value, != if none does.
//
// # Timestamps
//
// A timestamp value is a date ('2026-04-06'), a date and time
// ('2026-04-06 10:00', '2026-04-06T10:00:00') or RFC 3339 with an offset
// ('2026-04-06T10:00:00+08:00'). Values without an offset are in the
// location given to [Parse]. A date stands for the whole local day [D,
// D+1 day), and a time for the second it names [T, T+1s) (fractions of a
// second are dropped). Comparisons follow from that:
//
//	timestamp =  D    D <= t < D+1      (within the day)
//	timestamp != D    NOT timestamp = D (outside the day)
//	timestamp <  D    t < D
//	timestamp <= D    t < D+1           (the whole of day D included)
//	timestamp >  D    t >= D+1          (day D excluded)
//	timestamp >= D    t >= D
//
// Day boundaries are local midnights, so a day on which daylight saving
// starts or ends is 23 or 25 hours long. Each timestamp [Compare] carries
// the resulting half-open interval in Start and End, so the engine never
// has to parse a value again.
//
// # The tree
//
// [Parse] rewrites every "a != b" as NOT a = b, so a parsed [Compare] has
// Op Eq for string fields, and for the timestamp field its Start and End
// are always one interval. It also drops double negations (NOT NOT x is x).
// AND and OR group to the left. [Expr.String] renders a tree back into the
// language with the parentheses it needs; parsing the rendering gives the
// same tree.
//
// # Errors
//
// Every error from [Parse] is a [*SyntaxError] that names the problem and
// its 1-based column, counted in runes:
//
//	filter: unknown field "sesion" at column 1
//	filter: unexpected "ANDD" at column 27
//	filter: unterminated string at column 14
//	filter: expected value after ">=" at column 14
//	filter: invalid time "2026-13-01" at column 14
package filter
