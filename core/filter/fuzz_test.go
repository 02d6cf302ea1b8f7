package filter

import (
	"errors"
	"testing"
	"time"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`timestamp >= '2026-04-06' AND timestamp <= '2026-04-13'`,
		`role = 'user' OR NOT (type = "decision" AND speaker != 'Bob')`,
		`timestamp = '2026-11-01T01:30:00-05:00'`,
		`topic = 'it\'s a \\ test'`,
		`sesion = 'x'`,
		`timestamp >= '2026-13-01'`,
		`role = 'user`,
		`((((id = 'x'))))`,
		`NOT NOT session <> "s"`,
		`timestamp < '2026-04-06 10:00' oR id == 'a'`,
	} {
		f.Add(s)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		e, err := Parse(expr, ny)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T is not a *SyntaxError", expr, err)
			}
			if se.Column < 1 {
				t.Errorf("Parse(%q) error column %d", expr, se.Column)
			}
			return
		}
		s := e.String()
		again, err := Parse(s, ny)
		if err != nil {
			t.Fatalf("Parse(%q) renders as %q, which does not parse: %v", expr, s, err)
		}
		if again.String() != s {
			t.Errorf("Parse(%q) renders as %q, which renders as %q", expr, s, again.String())
		}
		start, end := TimeBounds(e)
		if !start.IsZero() && !end.IsZero() && end.Before(start) {
			t.Errorf("TimeBounds(%q) = [%v, %v)", expr, start, end)
		}
		Eval(e, rec{t: time.Date(2026, 4, 6, 12, 0, 0, 0, ny), vals: map[string][]string{"role": {"user"}}})
	})
}
