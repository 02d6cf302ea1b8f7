package filter

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// rec is a test Record.
type rec struct {
	t    time.Time
	vals map[string][]string
}

func (r rec) Time() time.Time              { return r.t }
func (r rec) Values(field string) []string { return r.vals[field] }

func TestEval(t *testing.T) {
	ny := mustLoad(t, "America/New_York")
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatalf("bad time %q in test table", s)
		}
		return v
	}
	r := rec{
		t: at("2026-04-06T23:59:59-04:00"),
		vals: map[string][]string{
			"role":      {"User"},
			"speaker":   {"Alice", "Bob"},
			"type":      {"DECISION", "todo"},
			"session":   {"s1"},
			"namespace": {"work"},
		},
	}
	tests := []struct {
		expr string
		rec  rec
		want bool
	}{
		{`role = 'user'`, r, true},
		{`role = 'USER'`, r, true},
		{`role != 'user'`, r, false},
		{`speaker = 'Bob'`, r, true},
		{`speaker = 'bob'`, r, false}, // speaker is case-sensitive
		{`speaker != 'Bob'`, r, false},
		{`speaker != 'Carol'`, r, true},
		{`type = 'decision'`, r, true},
		{`type = 'Todo'`, r, true},
		{`topic = 'x'`, r, false}, // no value at all
		{`topic != 'x'`, r, true},
		{`session = 's1' AND namespace = 'work'`, r, true},
		{`session = 's2' OR namespace = 'work'`, r, true},
		{`NOT (session = 's2' OR namespace = 'work')`, r, false},
		{`session = 's2' OR namespace = 'work' AND role = 'assistant'`, r, false},
		// Date-only values stand for the whole local day.
		{`timestamp <= '2026-04-06'`, r, true},
		{`timestamp < '2026-04-06'`, r, false},
		{`timestamp = '2026-04-06'`, r, true},
		{`timestamp != '2026-04-06'`, r, false},
		{`timestamp > '2026-04-06'`, r, false},
		{`timestamp >= '2026-04-07'`, r, false},
		{`timestamp > '2026-04-06'`, rec{t: at("2026-04-07T00:00:00-04:00")}, true},
		{`timestamp <= '2026-04-06'`, rec{t: at("2026-04-07T00:00:00-04:00")}, false},
		// A time is the second it names.
		{`timestamp <= '2026-04-06 23:59:59'`, r, true},
		{`timestamp < '2026-04-06 23:59:59'`, r, false},
		{`timestamp > '2026-04-06 23:59:58'`, r, true},
		{`timestamp = '2026-04-07T03:59:59Z'`, r, true},
		// The 25-hour day when clocks go back.
		{`timestamp = '2026-11-01'`, rec{t: at("2026-11-01T23:30:00-05:00")}, true},
		{`timestamp = '2026-11-01'`, rec{t: at("2026-11-02T00:00:00-05:00")}, false},
		{`timestamp >= '2026-04-06' AND timestamp <= '2026-04-13' AND role = 'user'`, r, true},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			e, err := Parse(tc.expr, ny)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.expr, err)
			}
			if got := Eval(e, tc.rec); got != tc.want {
				t.Errorf("Eval(%q) = %v, want %v", tc.expr, got, tc.want)
			}
		})
	}
}

// TestEvalHandBuilt checks Ne and nil, which Parse never produces.
func TestEvalHandBuilt(t *testing.T) {
	day := time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC)
	r := rec{t: day.Add(time.Hour), vals: map[string][]string{"speaker": {"Alice", "Bob"}}}
	tests := []struct {
		name string
		e    Expr
		want bool
	}{
		{"nil", nil, true},
		{"speaker != Bob", &Compare{Field: "speaker", Op: Ne, Value: "Bob"}, false},
		{"speaker != Carol", &Compare{Field: "speaker", Op: Ne, Value: "Carol"}, true},
		{"timestamp != day", &Compare{Field: "timestamp", Op: Ne, Start: day, End: day.AddDate(0, 0, 1)}, false},
		{"speaker < Bob", &Compare{Field: "speaker", Op: Lt, Value: "Bob"}, false},
	}
	for _, tc := range tests {
		if got := Eval(tc.e, r); got != tc.want {
			t.Errorf("Eval(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTimeBounds(t *testing.T) {
	sh := mustLoad(t, "Asia/Shanghai")
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, sh) }
	var none time.Time
	tests := []struct {
		expr       string
		start, end time.Time
	}{
		{`timestamp >= '2026-04-06' AND timestamp <= '2026-04-13'`, day(4, 6), day(4, 14)},
		{`timestamp = '2026-04-06'`, day(4, 6), day(4, 7)},
		{`timestamp > '2026-04-06'`, day(4, 7), none},
		{`role = 'user'`, none, none},
		{`role = 'user' AND timestamp < '2026-04-06'`, none, day(4, 6)},
		{`role = 'user' OR timestamp < '2026-04-06'`, none, none},
		{`timestamp >= '2026-04-06' OR timestamp < '2026-03-01'`, none, none},
		{`(timestamp = '2026-04-06' OR timestamp = '2026-04-10') AND role = 'user'`, day(4, 6), day(4, 11)},
		{`timestamp >= '2026-04-01' AND (timestamp = '2026-03-06' OR timestamp = '2026-04-10')`, day(4, 1), day(4, 11)},
		{`NOT timestamp < '2026-04-06'`, day(4, 6), none},
		{`NOT timestamp >= '2026-04-06'`, none, day(4, 6)},
		{`NOT timestamp = '2026-04-06'`, none, none},
		{`timestamp != '2026-04-06' AND timestamp >= '2026-04-01'`, day(4, 1), none},
		{`NOT (timestamp < '2026-04-06' OR timestamp >= '2026-04-13')`, day(4, 6), day(4, 13)},
		{`NOT (timestamp >= '2026-04-06' AND role = 'user')`, none, none},
		{`NOT (timestamp >= '2026-04-06' AND timestamp < '2026-04-01')`, none, none},
		{`NOT NOT timestamp >= '2026-04-06'`, day(4, 6), none},
		// Nothing can match: start equals end.
		{`timestamp < '2026-04-01' AND timestamp > '2026-04-06'`, day(4, 7), day(4, 7)},
		{`(timestamp < '2026-04-01' AND timestamp > '2026-04-06') OR timestamp = '2026-05-01'`, day(5, 1), day(5, 2)},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			e, err := Parse(tc.expr, sh)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.expr, err)
			}
			start, end := TimeBounds(e)
			if diff := cmp.Diff([]time.Time{tc.start, tc.end}, []time.Time{start, end}); diff != "" {
				t.Errorf("TimeBounds(%q) mismatch (-want +got):\n%s", tc.expr, diff)
			}
		})
	}
}
