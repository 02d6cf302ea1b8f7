package timeparse

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/olebedev/when/rules"
	"github.com/olebedev/when/rules/en"
)

// gateCorpus returns every string literal in the package's test files, the
// fuzz corpus under testdata, and each of them inside a sentence and in
// upper and lower case.
func gateCorpus(t testing.TB) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		for _, v := range []string{s, "请问" + s + "的会议", "what about " + s + " then?", strings.ToUpper(s), strings.ToLower(s)} {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatalf("listing test files: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					add(s)
				}
			}
			return true
		})
	}
	err = filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "string("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(rest, ")")); err == nil {
					add(s)
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatalf("reading testdata: %v", err)
	}
	if len(out) < 1000 {
		t.Fatalf("corpus has only %d texts", len(out))
	}
	return out
}

// checkGates fails when a gate would reject text that its regular
// expression matches: a rule at any offset, or when's month-and-day rule
// anywhere. It returns how many rule and offset pairs the gates let
// through and how many they rejected.
func checkGates(t testing.TB, text string) (passed, rejected int) {
	t.Helper()
	for _, text := range []string{text, simplify(text)} {
		s := newScanner(text, time.Time{})
		for i, r := range text {
			for _, ru := range allRules {
				ok := s.mayMatch(ru, i, r)
				if ok {
					passed++
				} else {
					rejected++
				}
				if !ok && ru.re.re().MatchString(text[i:]) {
					t.Errorf("the gate of %s rejects %q at %d, which it matches", ru.re.pattern, text, i)
				}
			}
			for _, l := range gatedRegexps {
				if !s.mayStartAt(l, i) && l.re().MatchString(text[i:]) {
					t.Errorf("the gate of %s rejects %q at %d, which it matches", l.pattern, text, i)
				}
			}
		}
		if !s.mayHold(monthGate()) && whenMonthDate().Find(text) != nil {
			t.Errorf("the month gate rejects %q, which when's month-and-day rule matches", text)
		}
	}
	return passed, rejected
}

// checkSame fails when Parse or Extract give a different answer without
// the gates.
func checkSame(t testing.TB, text string, refs []time.Time) {
	t.Helper()
	for _, ref := range refs {
		r1, err1 := parse(text, ref, false)
		r2, err2 := parse(text, ref, true)
		if !r1.Start.Equal(r2.Start) || !r1.End.Equal(r2.End) || r1.Granularity != r2.Granularity || r1.Fuzzy != r2.Fuzzy || r1.Text != r2.Text || (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Errorf("Parse(%q) = %v, %v with gates, %v, %v without", text, r1, err1, r2, err2)
		}
		e1, rest1, ok1 := extract(text, ref, false)
		e2, rest2, ok2 := extract(text, ref, true)
		if !e1.Start.Equal(e2.Start) || !e1.End.Equal(e2.End) || e1.Granularity != e2.Granularity || e1.Fuzzy != e2.Fuzzy || e1.Text != e2.Text || rest1 != rest2 || ok1 != ok2 {
			t.Errorf("Extract(%q) = %v, %q, %v with gates, %v, %q, %v without", text, e1, rest1, ok1, e2, rest2, ok2)
		}
	}
}

func TestGatesSound(t *testing.T) {
	corpus := gateCorpus(t)
	passed, rejected := 0, 0
	for _, text := range corpus {
		p, r := checkGates(t, text)
		passed, rejected = passed+p, rejected+r
	}
	t.Logf("%d texts; the gates let %d rule and offset pairs through and rejected %d", len(corpus), passed, rejected)
}

func TestGatedSameResults(t *testing.T) {
	refs := fuzzRefs(t)
	for _, text := range gateCorpus(t) {
		checkSame(t, text, refs)
	}
}

// FuzzGates checks the gates against their regular expressions, and Parse
// and Extract with the gates against Parse and Extract without them.
func FuzzGates(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
		f.Add("what about " + s + " then?")
	}
	refs := fuzzRefs(f)
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 300 {
			return
		}
		checkGates(t, text)
		checkSame(t, text, refs)
	})
}

// TestMonthGatePattern checks that the month gate, read from when's
// month pattern, is the gate of the whole month-and-day rule.
func TestMonthGatePattern(t *testing.T) {
	f, ok := whenMonthDate().(*rules.F)
	if !ok {
		t.Fatalf("when's month-and-day rule is a %T, not a *rules.F", whenMonthDate())
	}
	whole := newGate(f.RegExp.String())
	if whole.must == nil {
		t.Fatalf("the gate of %s constrains nothing", f.RegExp)
	}
	if diff := cmp.Diff(whole.must, monthGate().must); diff != "" {
		t.Errorf("month gate (-whole rule +from en.MONTH_OFFSET_PATTERN):\n%s", diff)
	}
}

func TestNewGate(t *testing.T) {
	tests := []struct {
		pattern string
		prefix  []string
		must    [][]string
	}{
		{`(?i)today|tomorrow`, []string{"TODAY", "TOMORROW"}, [][]string{{"TODAY", "TOMORROW"}}},
		{`(?i)the\s+(?P<u>week|month|year)\s+(?P<w>before|after)`, []string{"THE"}, [][]string{{"AFTER", "BEFORE"}, {"MONTH", "WEEK", "YEAR"}, {"THE"}}},
		{`[0-9]{4}-[Ww][0-9]{2}`, nil, [][]string{{"-W"}, {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}}},
		{`(?P<p>上|下)?周末`, []string{"上周末", "下周末", "周末"}, [][]string{{"周末"}}},
		{`May|(?i:june)`, []string{"JUNE", "MAY"}, [][]string{{"JUNE", "MAY"}}},
		{`(?i)a.*b`, []string{"A"}, [][]string{{"A"}, {"B"}}},
		{`(?i)x*`, nil, nil},
		{`(?i)kelvin`, []string{"KELVIN"}, [][]string{{"KELVIN"}}},
		// "this" is common: the unit after it is what turns "this project"
		// away.
		{`(?i)(?P<p>this|last|next)\s+(?:week|wk)|(?P<bl>the\s+week\s+before\s+last)`, []string{"LAST", "NEXT", "THE", "THIS"}, [][]string{{"BEFORE", "LAST", "NEXT", "THIS"}, {"WEEK", "WK"}}},
	}
	for _, tc := range tests {
		g := newGate(tc.pattern)
		if diff := cmp.Diff(tc.prefix, g.prefix); diff != "" {
			t.Errorf("newGate(%q).prefix (-want +got):\n%s", tc.pattern, diff)
		}
		if diff := cmp.Diff(tc.must, g.must); diff != "" {
			t.Errorf("newGate(%q).must (-want +got):\n%s", tc.pattern, diff)
		}
	}
}

func TestFoldText(t *testing.T) {
	tests := []struct {
		text, want string
		at         map[int]int // byte offsets of the text and of the copy
	}{
		{"Last Week", "LAST WEEK", map[int]int{5: 5}},
		{"上周 Mon", "上周 MON", map[int]int{7: 7}},
		// The Kelvin sign (3 bytes) and ſ (2 bytes) fold to K and S.
		{"\u212Aelvin ſat", "KELVIN SAT", map[int]int{3: 1, 9: 7, 11: 8, 13: 10}},
	}
	for _, tc := range tests {
		f := foldText(tc.text)
		if f.text != tc.want {
			t.Errorf("foldText(%q) = %q, want %q", tc.text, f.text, tc.want)
		}
		for i, want := range tc.at {
			if got := f.at(i); got != want {
				t.Errorf("foldText(%q).at(%d) = %d, want %d", tc.text, i, got, want)
			}
		}
	}
}

// TestGateFolding checks that a case-insensitive rule is let through for
// every spelling that Go's regexp folds to it.
func TestGateFolding(t *testing.T) {
	for _, text := range []string{"\u212Aelvin", "ſince", "SINCE", "since"} {
		for _, pattern := range []string{`(?i)kelvin`, `(?i)since`} {
			re := regexp.MustCompile(`^(?:` + pattern + `)`)
			if !re.MatchString(text) {
				continue
			}
			g := newGate(pattern)
			f := foldText(text)
			r, _ := utf8.DecodeRuneInString(text)
			if !(g.anyFirst || g.first.has(r)) || !f.hasPrefixAt(0, g.prefix) || !holdsEach(f, g.must) {
				t.Errorf("the gate of %s rejects %q", pattern, text)
			}
		}
	}
}

// holdsEach reports whether f holds a string of each set.
func holdsEach(f folded, sets [][]string) bool {
	for _, set := range sets {
		if f.lastIndex(set) < 0 {
			return false
		}
	}
	return true
}

// TestRulesPassingGate lists how many rules a query lets through its
// gates, which are the rules a first Parse compiles.
func TestRulesPassingGate(t *testing.T) {
	tests := []struct {
		query string
		most  int
	}{
		{"what did we decide about the database", 3},
		{"我们讨论了数据库的方案", 3},
		{"what did we discuss last week", 12},
		{"上周三下午 我们聊了什么", 12},
		// Questions with no time phrase whose words start one.
		{"Which libraries are used in this project?", 0},
		{"How did the user feedback influence the UI/UX improvements I made before the public launch?", 2},
		{"Can you give me a comprehensive summary of how I handled the security features", 1},
	}
	for _, tc := range tests {
		s := newScanner(tc.query, time.Time{})
		var through []string
		for _, ru := range allRules {
			for i, r := range tc.query {
				if ru.starts&scriptOf(r) != 0 && s.startOK(i) && s.mayMatch(ru, i, r) {
					through = append(through, ru.re.pattern)
					break
				}
			}
		}
		t.Logf("%q: %d of %d rules pass their gates", tc.query, len(through), len(allRules))
		if len(through) > tc.most {
			t.Errorf("%q: %d rules pass their gates, want at most %d:\n%s", tc.query, len(through), tc.most, strings.Join(through, "\n"))
		}
	}
}

// BenchmarkRuleSetup compares what reading the rules' gates costs, at run
// time (newGate) and from gates_gen.go, with what compiling their patterns
// costs.
func BenchmarkRuleSetup(b *testing.B) {
	patterns := gatePatterns()
	b.Run("syntax.Parse", func(b *testing.B) {
		for b.Loop() {
			for _, p := range patterns {
				_, _ = syntax.Parse(p, syntax.Perl)
			}
		}
	})
	b.Run("newGate", func(b *testing.B) {
		for b.Loop() {
			for _, p := range patterns {
				_ = newGate(p)
			}
		}
	})
	b.Run("generatedGate", func(b *testing.B) {
		for b.Loop() {
			for _, p := range gatePatterns() {
				_ = generatedGate(p)
			}
		}
	})
	b.Run("regexp.Compile", func(b *testing.B) {
		for b.Loop() {
			for _, p := range patterns {
				_ = regexp.MustCompile(p)
			}
		}
	})
	b.ReportMetric(float64(len(patterns)), "patterns")
}

// goStrings returns set as a Go []string literal.
func goStrings(set []string) string {
	q := make([]string, len(set))
	for i, s := range set {
		q[i] = strconv.Quote(s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

var update = flag.Bool("update", false, "rewrite gates_gen.go")

// gatePatterns returns every pattern that has a gate: the rules' and when's
// month pattern.
func gatePatterns() []string {
	var out []string
	for _, ru := range allRules {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(ru.re.pattern, `^(?:`), `)`))
	}
	for _, l := range gatedRegexps {
		out = append(out, l.pattern)
	}
	return append(out, en.MONTH_OFFSET_PATTERN)
}

// TestGeneratedGates checks that gates_gen.go holds the gate newGate reads
// from every pattern; with -update it rewrites the file.
func TestGeneratedGates(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("// Code generated by \"go test -run TestGeneratedGates -update\"; DO NOT EDIT.\n\npackage timeparse\n\n")
	b.WriteString("// generatedGate returns the gate newGate reads from pattern, or nil.\nfunc generatedGate(pattern string) *gate {\n\tswitch pattern {\n")
	seen := map[string]bool{}
	for _, p := range gatePatterns() {
		if seen[p] {
			continue
		}
		seen[p] = true
		g := newGate(p)
		fmt.Fprintf(&b, "\tcase %s:\n\t\treturn &gate{", strconv.Quote(p))
		if g.anyFirst {
			b.WriteString("anyFirst: true, ")
		} else {
			b.WriteString("first: runeSet{")
			for i, r := range g.first {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.QuoteRune(r))
			}
			b.WriteString("}, ")
		}
		if g.prefix != nil {
			fmt.Fprintf(&b, "prefix: %s, ", goStrings(g.prefix))
		}
		if g.must != nil {
			b.WriteString("must: [][]string{")
			for i, set := range g.must {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strings.TrimPrefix(goStrings(set), "[]string"))
			}
			b.WriteString("}, ")
		}
		b.WriteString("}\n")
	}
	b.WriteString("\t}\n\treturn nil\n}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("formatting the generated gates: %v", err)
	}
	if *update {
		if err := os.WriteFile("gates_gen.go", src, 0o644); err != nil {
			t.Fatalf("writing gates_gen.go: %v", err)
		}
		return
	}
	old, err := os.ReadFile("gates_gen.go")
	if err != nil {
		t.Fatalf("reading gates_gen.go: %v", err)
	}
	if !bytes.Equal(old, src) {
		t.Errorf("gates_gen.go is out of date; run go test ./timeparse -run TestGeneratedGates -update")
	}
	for _, p := range gatePatterns() {
		if diff := cmp.Diff(newGate(p), gateOf(p), cmp.AllowUnexported(gate{})); diff != "" {
			t.Errorf("gateOf(%q) (-newGate +generated):\n%s", p, diff)
		}
	}
}
