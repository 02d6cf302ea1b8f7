package timeparse

import (
	"regexp/syntax"
	"slices"
	"strings"
)

// Reading a gate from a pattern's syntax tree (see gate.go): the literal
// prefixes one of which every match starts with, and the literals one of
// which every match contains, as codesearch reads trigrams, with whole
// literals.

// newGate reads the gate of pattern, which is parsed with the flags
// regexp.Compile uses. An unparsable pattern gets a gate that lets
// everything through.
func newGate(pattern string) *gate {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return &gate{anyFirst: true}
	}
	re = re.Simplify()
	g := &gate{}
	g.first, g.anyFirst = firstRunesOf(re)
	in := analyze(re)
	g.prefix = constraint(minimal(in.prefix, strings.HasPrefix))
	for _, set := range in.must {
		if set = constraint(minimal(set, strings.Contains)); set != nil {
			g.must = append(g.must, set)
		}
	}
	return g
}

// minimal drops from set every string that covers another, which says no
// more: a text that starts with "上个" starts with "上".
func minimal(set []string, covers func(s, t string) bool) []string {
	var out []string
	for _, s := range set {
		redundant := false
		for _, t := range set {
			if t != s && covers(s, t) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}

// constraint returns set, or nil when it constrains nothing.
func constraint(set []string) []string {
	if len(set) == 0 || slices.Contains(set, "") {
		return nil
	}
	return set
}

// info is what analyze knows about the matches of a regular expression,
// as case-folded strings. exact, when isExact, holds every string the
// expression can match. Every match starts with one of prefix, ends with
// one of suffix, and contains one of each set in must (at most maxMust
// sets, the most selective first); a set holding "" says nothing.
type info struct {
	exact          []string
	isExact        bool
	prefix, suffix []string
	must           [][]string
}

var noInfo = info{prefix: []string{""}, suffix: []string{""}}

func exactInfo(set []string) info {
	set = dedupe(set)
	return info{exact: set, isExact: true, prefix: trimAffix(set, true), suffix: trimAffix(set, false), must: musts(set)}
}

// maxMust is how many must sets a gate keeps. One set is often the
// question's common words ("this", "last", "the"), which many texts hold;
// a second, such as the unit that must follow them ("week"), lets the
// gate turn those texts away too.
const maxMust = 3

// musts returns the must sets that say every match contains one of set,
// none when set says nothing.
func musts(set []string) [][]string {
	if len(set) == 0 || slices.Contains(set, "") {
		return nil
	}
	return [][]string{set}
}

// both returns the must sets of a text that satisfies a and b: their most
// selective maxMust sets, without a set that another implies.
func both(a, b [][]string) [][]string {
	all := slices.Concat(a, b)
	out := make([][]string, 0, len(all))
	for i, set := range all {
		// An earlier set that implies it, or a later one that says more.
		implied := slices.ContainsFunc(all[:i], func(o []string) bool { return implies(o, set) }) ||
			slices.ContainsFunc(all[i+1:], func(o []string) bool { return implies(o, set) && !implies(set, o) })
		if !implied {
			out = append(out, set)
		}
	}
	slices.SortStableFunc(out, func(x, y []string) int {
		if sameSelectivity(x, y) {
			return 0
		}
		if slices.Equal(best(x, y), x) {
			return -1
		}
		return 1
	})
	return out[:min(len(out), maxMust)]
}

// implies reports whether a text that holds a string of set x holds one
// of set y: every string of x contains one of y.
func implies(x, y []string) bool {
	for _, t := range x {
		if !slices.ContainsFunc(y, func(s string) bool { return strings.Contains(t, s) }) {
			return false
		}
	}
	return true
}

// sameSelectivity reports whether best ranks x and y alike.
func sameSelectivity(x, y []string) bool {
	return minLen(x) == minLen(y) && len(x) == len(y)
}

// either returns the must sets of a text that matches one of the
// alternatives whose must sets are alts: the j-th set is the union of
// each alternative's j-th (or last) set. An alternative that says
// nothing makes the whole say nothing.
func either(alts [][][]string) [][]string {
	n := 0
	for _, m := range alts {
		if len(m) == 0 {
			return nil
		}
		n = max(n, len(m))
	}
	var out [][]string
	for j := range n {
		var union []string
		for _, m := range alts {
			union = append(union, m[min(j, len(m)-1)]...)
		}
		out = both(out, musts(shrinkMust(union)))
	}
	return out
}

// analyze follows the construction in Russ Cox's "Regular Expression
// Matching with a Trigram Index" (codesearch), with whole literals instead
// of trigrams.
func analyze(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpLiteral:
		return exactInfo([]string{foldString(string(re.Rune))})
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
			if n > 4*maxClassSize {
				return noInfo
			}
		}
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = append(set, string(foldRune(r)))
			}
		}
		set = dedupe(set)
		switch {
		case len(set) == 0:
			return noInfo
		case len(set) > maxClassSize:
			// Too many runes to spell out with the rest of the pattern,
			// but still a must set: "in [0-9]{4}" needs a digit.
			return info{prefix: noInfo.prefix, suffix: noInfo.suffix, must: musts(set)}
		}
		return exactInfo(set)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactInfo([]string{""})
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpQuest:
		x := analyze(re.Sub[0])
		if x.isExact && len(x.exact) < maxSet {
			return exactInfo(append(slices.Clone(x.exact), ""))
		}
		return noInfo
	case syntax.OpPlus:
		x := analyze(re.Sub[0])
		return info{prefix: x.prefix, suffix: x.suffix, must: x.must}
	case syntax.OpRepeat:
		if re.Min == 0 {
			return noInfo
		}
		x := analyze(re.Sub[0])
		if re.Min == 1 && re.Max == 1 {
			return x
		}
		return info{prefix: x.prefix, suffix: x.suffix, must: x.must}
	case syntax.OpConcat:
		acc := exactInfo([]string{""})
		for _, sub := range re.Sub {
			acc = concat(acc, analyze(sub))
		}
		return acc
	case syntax.OpAlternate:
		var out info
		out.isExact = true
		var alts [][][]string
		for _, sub := range re.Sub {
			x := analyze(sub)
			out.isExact = out.isExact && x.isExact
			out.exact = append(out.exact, x.exact...)
			out.prefix = append(out.prefix, x.prefix...)
			out.suffix = append(out.suffix, x.suffix...)
			alts = append(alts, x.must)
		}
		if out.isExact && len(dedupe(out.exact)) <= maxSet {
			return exactInfo(out.exact)
		}
		return info{prefix: shrink(out.prefix, true), suffix: shrink(out.suffix, false), must: either(alts)}
	}
	// OpAnyChar, OpAnyCharNotNL, OpStar, OpNoMatch: nothing is known.
	return noInfo
}

// concat is what is known of a match of a followed by a match of b.
func concat(a, b info) info {
	if a.isExact && b.isExact && len(a.exact)*len(b.exact) <= maxSet {
		return exactInfo(cross(a.exact, b.exact))
	}
	var out info
	out.prefix = a.prefix
	if a.isExact && len(a.exact)*len(b.prefix) <= maxSet {
		out.prefix = trimAffix(cross(a.exact, b.prefix), true)
	}
	out.suffix = b.suffix
	if b.isExact && len(a.suffix)*len(b.exact) <= maxSet {
		out.suffix = trimAffix(cross(a.suffix, b.exact), false)
	}
	out.must = both(a.must, b.must)
	if len(a.suffix)*len(b.prefix) <= maxSet {
		out.must = both(out.must, musts(cross(a.suffix, b.prefix)))
	}
	return out
}

// best returns the more selective of two must sets: the one whose shortest
// string is longer, or the smaller one.
func best(a, b []string) []string {
	ma, mb := minLen(a), minLen(b)
	switch {
	case ma != mb:
		if ma > mb {
			return a
		}
		return b
	case len(a) <= len(b):
		return a
	}
	return b
}

func minLen(set []string) int {
	m := -1
	for _, s := range set {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return max(m, 0)
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out)
}

func dedupe(set []string) []string {
	set = slices.Clone(set)
	slices.Sort(set)
	return slices.Compact(set)
}

// trimAffix cuts prefixes (or suffixes) to maxAffix bytes. A match that
// starts with a string also starts with each of its prefixes.
func trimAffix(set []string, front bool) []string {
	out := make([]string, len(set))
	for i, s := range set {
		if len(s) > maxAffix {
			if front {
				s = s[:maxAffix]
			} else {
				s = s[len(s)-maxAffix:]
			}
		}
		out[i] = s
	}
	return dedupe(out)
}

// shrink makes an affix set hold at most maxSet strings by shortening
// them, or gives up.
func shrink(set []string, front bool) []string {
	set = dedupe(set)
	for n := maxAffix; len(set) > maxSet && n > 0; n /= 2 {
		for i, s := range set {
			if len(s) > n {
				if front {
					set[i] = s[:n]
				} else {
					set[i] = s[len(s)-n:]
				}
			}
		}
		set = dedupe(set)
	}
	if len(set) > maxSet {
		return []string{""}
	}
	return set
}

// shrinkMust makes a must set hold at most maxSet strings by shortening
// them to their prefixes, or gives up.
func shrinkMust(set []string) []string { return shrink(set, true) }
