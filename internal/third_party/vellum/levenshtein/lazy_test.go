package levenshtein

import (
	"reflect"
	"testing"
)

// TestBuilderIsLazy checks the HuiMemory patch: construction does no
// work, and the first BuildDfa gives the automaton an eager build gives.
func TestBuilderIsLazy(t *testing.T) {
	for _, tc := range []struct {
		d     uint8
		query string
	}{{1, "cat"}, {2, "abcabcaaabc"}, {1, "あいう"}, {2, "memory"}} {
		lab, err := NewLevenshteinAutomatonBuilder(tc.d, true)
		if err != nil {
			t.Fatal(err)
		}
		if lab.pDfa != nil {
			t.Fatalf("d=%d: the parametric DFA was built at construction", tc.d)
		}
		if got := lab.MaxDistance(); got != tc.d {
			t.Fatalf("MaxDistance() = %d, want %d", got, tc.d)
		}
		lazy, err := lab.BuildDfa(tc.query, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		eagerP, err := fromNfa(newLevenshtein(tc.d, true))
		if err != nil {
			t.Fatal(err)
		}
		eager, err := eagerP.buildDfa(tc.query, tc.d, false)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(lazy, eager) {
			t.Fatalf("d=%d %q: the lazy builder's DFA differs from an eager build", tc.d, tc.query)
		}
	}
}
