package filter

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return loc
}

func TestParseString(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`timestamp >= '2026-04-06' AND timestamp <= '2026-04-13'`, `timestamp >= '2026-04-06' AND timestamp <= '2026-04-13'`},
		{`role = 'user'`, `role = 'user'`},
		{`ROLE = "User"`, `role = 'user'`},
		{`type = 'Decision'`, `type = 'decision'`},
		{`speaker = "Bob"`, `speaker = 'Bob'`},
		{`topic = '部署'`, `topic = '部署'`},
		{`session=='s1'`, `session = 's1'`},
		{`namespace = 'work' and id = 'a1b2'`, `namespace = 'work' AND id = 'a1b2'`},
		// Precedence: NOT > AND > OR, and left grouping.
		{`role = 'user' OR role = 'assistant' AND type = 'decision'`, `role = 'user' OR role = 'assistant' AND type = 'decision'`},
		{`(role = 'user' OR role = 'assistant') AND type = 'decision'`, `(role = 'user' OR role = 'assistant') AND type = 'decision'`},
		{`NOT role = 'user' AND type = 'x'`, `NOT role = 'user' AND type = 'x'`},
		{`not (role = 'user' or type = 'x')`, `NOT (role = 'user' OR type = 'x')`},
		{`id = 'a' AND id = 'b' AND id = 'c'`, `id = 'a' AND id = 'b' AND id = 'c'`},
		{`id = 'a' AND (id = 'b' AND id = 'c')`, `id = 'a' AND (id = 'b' AND id = 'c')`},
		{`id = 'a' OR (id = 'b' OR id = 'c')`, `id = 'a' OR (id = 'b' OR id = 'c')`},
		{`((role = 'user'))`, `role = 'user'`},
		// != becomes NOT =, and double negations go.
		{`session != 's1'`, `NOT session = 's1'`},
		{`id <> 'x'`, `NOT id = 'x'`},
		{`timestamp != '2026-04-06'`, `NOT timestamp = '2026-04-06'`},
		{`NOT session != 's1'`, `session = 's1'`},
		{`NOT NOT NOT role = 'user'`, `NOT role = 'user'`},
		// Quotes and escapes.
		{`topic = 'it\'s'`, `topic = 'it\'s'`},
		{`topic = "say \"hi\""`, `topic = 'say "hi"'`},
		{`topic = 'a\\b'`, `topic = 'a\\b'`},
		{`topic = 'a\nb'`, `topic = 'a\\nb'`},
		{`topic = ''`, `topic = ''`},
		// Timestamps in each form.
		{`timestamp < '2026-04-06 10:00'`, `timestamp < '2026-04-06 10:00'`},
		{`timestamp > '2026-04-06T10:00:00+08:00'`, `timestamp > '2026-04-06T10:00:00+08:00'`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			e, err := Parse(tc.in, time.UTC)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, e.String()); diff != "" {
				t.Errorf("Parse(%q).String() mismatch (-want +got):\n%s", tc.in, diff)
			}
			again, err := Parse(e.String(), time.UTC)
			if err != nil {
				t.Fatalf("Parse(%q) of the rendering: %v", e.String(), err)
			}
			if diff := cmp.Diff(e.String(), again.String()); diff != "" {
				t.Errorf("rendering of %q does not round-trip (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestParseTree checks the tree itself, including columns.
func TestParseTree(t *testing.T) {
	sh := mustLoad(t, "Asia/Shanghai")
	e, err := Parse(`role = 'User' AND NOT (timestamp < '2026-04-06' OR speaker != 'Bob')`, sh)
	if err != nil {
		t.Fatal(err)
	}
	want := &And{
		L: &Compare{Field: "role", Op: Eq, Value: "user", Column: 1},
		R: &Not{X: &Or{
			L: &Compare{Field: "timestamp", Op: Lt, Value: "2026-04-06", End: time.Date(2026, 4, 6, 0, 0, 0, 0, sh), Column: 24},
			R: &Not{X: &Compare{Field: "speaker", Op: Eq, Value: "Bob", Column: 52}},
		}},
	}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("tree mismatch (-want +got):\n%s", diff)
	}
}

// TestTimestampBounds checks the interval each timestamp comparison
// carries. Expected instants are written with their UTC offsets.
func TestTimestampBounds(t *testing.T) {
	rfc := func(s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatalf("bad time %q in test table", s)
		}
		return v
	}
	tests := []struct {
		zone, expr string
		op         Op
		start, end string
	}{
		{"Asia/Shanghai", `timestamp = '2026-04-06'`, Eq, "2026-04-06T00:00:00+08:00", "2026-04-07T00:00:00+08:00"},
		{"Asia/Shanghai", `timestamp < '2026-04-06'`, Lt, "", "2026-04-06T00:00:00+08:00"},
		{"Asia/Shanghai", `timestamp <= '2026-04-06'`, Le, "", "2026-04-07T00:00:00+08:00"},
		{"Asia/Shanghai", `timestamp > '2026-04-06'`, Gt, "2026-04-07T00:00:00+08:00", ""},
		{"Asia/Shanghai", `timestamp >= '2026-04-06'`, Ge, "2026-04-06T00:00:00+08:00", ""},
		{"Asia/Shanghai", `timestamp <= '2026-04-06 10:00'`, Le, "", "2026-04-06T10:00:01+08:00"},
		{"Asia/Shanghai", `timestamp > '2026-04-06T10:00:00'`, Gt, "2026-04-06T10:00:01+08:00", ""},
		{"Asia/Shanghai", `timestamp = '2026-04-06 10:00:30'`, Eq, "2026-04-06T10:00:30+08:00", "2026-04-06T10:00:31+08:00"},
		{"Asia/Shanghai", `timestamp = '2026-04-06T10:00:00+02:00'`, Eq, "2026-04-06T08:00:00Z", "2026-04-06T08:00:01Z"},
		{"Asia/Shanghai", `timestamp >= '2026-04-06T10:00:00.75Z'`, Ge, "2026-04-06T10:00:00Z", ""},
		// Daylight saving: 1 November 2026 is 25 hours long in New York,
		// 8 March 23 hours.
		{"America/New_York", `timestamp = '2026-11-01'`, Eq, "2026-11-01T00:00:00-04:00", "2026-11-02T00:00:00-05:00"},
		{"America/New_York", `timestamp <= '2026-03-08'`, Le, "", "2026-03-09T00:00:00-04:00"},
		{"America/New_York", `timestamp > '2026-03-08'`, Gt, "2026-03-09T00:00:00-04:00", ""},
	}
	for _, tc := range tests {
		t.Run(tc.zone+"/"+tc.expr, func(t *testing.T) {
			e, err := Parse(tc.expr, mustLoad(t, tc.zone))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.expr, err)
			}
			c, ok := e.(*Compare)
			if !ok {
				t.Fatalf("Parse(%q) = %T, want *Compare", tc.expr, e)
			}
			got := []any{c.Op, c.Start, c.End}
			want := []any{tc.op, rfc(tc.start), rfc(tc.end)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Parse(%q) op, start, end mismatch (-want +got):\n%s", tc.expr, diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`sesion = 'x'`, `filter: unknown field "sesion" at column 1`},
		{`role = 'user' AND Speeker = 'Bob'`, `filter: unknown field "Speeker" at column 19`},
		{`timestamp >= '2026-04-06' ANDD timestamp <= '2026-04-13'`, `filter: unexpected "ANDD" at column 27`},
		{`role = 'user`, `filter: unterminated string at column 8`},
		{`timestamp >= "2026-04-06`, `filter: unterminated string at column 14`},
		{`timestamp >= `, `filter: expected value after ">=" at column 14`},
		{`timestamp >= '2026-13-01'`, `filter: invalid time "2026-13-01" at column 14`},
		{`timestamp < '2026-02-30'`, `filter: invalid time "2026-02-30" at column 13`},
		{`timestamp = 'yesterday'`, `filter: invalid time "yesterday" at column 13`},
		{`role < 'user'`, `filter: operator "<" does not apply to the string field "role"; use = or != at column 6`},
		{`role 'user'`, `filter: expected an operator after "role" at column 6`},
		{`role = user`, `filter: expected a quoted value after "=", found user (write 'user') at column 8`},
		{`role = (`, `filter: expected value after "=", found "(" at column 8`},
		{`(role = 'user'`, `filter: unclosed "(" at column 1`},
		{`(role = 'user' type = 'x')`, `filter: unexpected "type" at column 16`},
		{`role = 'user')`, `filter: unexpected ")" at column 14`},
		{``, `filter: expected a comparison at column 1`},
		{`   `, `filter: expected a comparison at column 4`},
		{`role = 'user' AND`, `filter: expected a comparison at column 18`},
		{`NOT`, `filter: expected a comparison at column 4`},
		{`AND role = 'x'`, `filter: unexpected "AND" at column 1`},
		{`role = 'user' & type = 'x'`, `filter: unexpected character "&" at column 15`},
		{`role ! 'x'`, `filter: unexpected "!" at column 6`},
		{`'x' = role`, `filter: unexpected "'x'" at column 1`},
		{`话题 = 'x'`, `filter: unexpected character "话" at column 1`},
		{`topic = '部署' ANDD`, `filter: unexpected "ANDD" at column 14`},
		{strings.Repeat("(", 101) + `id = 'x'` + strings.Repeat(")", 101), `filter: expression nested too deeply at column 101`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse(tc.in, time.UTC)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want %s", tc.in, tc.want)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("Parse(%q) error mismatch (-want +got):\n%s", tc.in, diff)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T is not a *SyntaxError", tc.in, err)
			}
		})
	}
}

func TestSyntaxErrorFields(t *testing.T) {
	_, err := Parse(`role = 'user' ANDD type = 'x'`, nil)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *SyntaxError", err)
	}
	if diff := cmp.Diff(&SyntaxError{Msg: `unexpected "ANDD"`, Column: 15}, se); diff != "" {
		t.Errorf("SyntaxError mismatch (-want +got):\n%s", diff)
	}
}

func TestOpString(t *testing.T) {
	got := []string{Eq.String(), Ne.String(), Lt.String(), Le.String(), Gt.String(), Ge.String(), Op(0).String()}
	want := []string{"=", "!=", "<", "<=", ">", ">=", "Op(0)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Op.String mismatch (-want +got):\n%s", diff)
	}
}
