package timeparse

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Regular expressions are compiled on first use, not at package init, so
// that a program that imports timeparse but parses no time pays nothing
// for them. Before compiling or running a rule, the scanner asks its gate,
// which is read from the pattern's syntax tree without compiling it,
// whether the rule can match at all: most queries hold no time phrase, and
// most rules then never need compiling.

// lazyRE is a regular expression compiled on first use. It is safe for
// concurrent use. It holds its sync.Onces itself rather than closures
// from sync.OnceValue: the package has some seventy of them, and each
// closure was a few allocations at every program's start.
type lazyRE struct {
	pattern string
	longest bool
	// gatePattern is the pattern the gate is read from; hasGate says
	// whether there is one.
	gatePattern string
	hasGate     bool
	gated       int // the index in gatedRegexps, for gatedRegexp's

	reOnce   sync.Once
	compiled *regexp.Regexp
	gateOnce sync.Once
	g        *gate
}

func newLazyRE(pattern string, longest bool) *lazyRE {
	return &lazyRE{pattern: pattern, longest: longest}
}

// re compiles the pattern on its first call and returns the same
// *regexp.Regexp on every call.
func (l *lazyRE) re() *regexp.Regexp {
	l.reOnce.Do(func() {
		l.compiled = regexp.MustCompile(l.pattern)
		if l.longest {
			l.compiled.Longest()
		}
	})
	return l.compiled
}

// gate returns the gate, read on first use; nil for an expression made
// without one.
func (l *lazyRE) gate() *gate {
	if !l.hasGate {
		return nil
	}
	l.gateOnce.Do(func() { l.g = gateOf(l.gatePattern) })
	return l.g
}

// lazyRegexp returns a function that compiles pattern on its first call
// and returns the same *regexp.Regexp on every call. It is safe for
// concurrent use.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return newLazyRE(pattern, false).re
}

// gatedRegexps are the package's regular expressions that are anchored at
// the start and have a gate, for [scanner.findAt].
var gatedRegexps []*lazyRE

// gatedRegexp returns pattern, which must start with ^, compiled on first
// use and with a gate.
func gatedRegexp(pattern string) *lazyRE {
	l := newLazyRE(pattern, false)
	l.gatePattern, l.hasGate = pattern, true
	l.gated = len(gatedRegexps)
	gatedRegexps = append(gatedRegexps, l)
	return l
}

// gate says, without running a regular expression, where it cannot match.
// All strings in it are case-folded with [foldString]. A nil set is no
// constraint.
type gate struct {
	first    runeSet // the runes a match can start with, unless anyFirst
	anyFirst bool
	// prefix holds strings one of which every match starts with.
	prefix []string
	// must holds sets of strings: every match contains one string of
	// each set.
	must [][]string
}

// gateOf returns the gate of pattern: the one in gates_gen.go, which
// TestGeneratedGates keeps equal to newGate's, or newGate's if the pattern
// is not there. Reading a gate from its pattern costs more than compiling
// the pattern, so it is done when the package is generated, not when it
// runs.
func gateOf(pattern string) *gate {
	if g := generatedGate(pattern); g != nil {
		return g
	}
	return newGate(pattern)
}

// Limits of the analysis: how many strings a set may hold, how many runes
// a character class may have to count as literal text, and how long a
// prefix or suffix is kept.
const (
	maxSet       = 64
	maxClassSize = 4
	maxAffix     = 16
)

// foldRune maps every rune of a case-folding orbit (k, K and the Kelvin
// sign; s, S and ſ) to the smallest rune of the orbit.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// foldString applies foldRune to every rune of s.
func foldString(s string) string {
	var sb strings.Builder
	for _, r := range s {
		sb.WriteRune(foldRune(r))
	}
	return sb.String()
}

// folded is a case-folded copy of a text with a map from the text's byte
// offsets to the copy's; the map is nil when folding kept every rune's
// length.
type folded struct {
	text string
	off  []int32
}

func foldText(text string) folded {
	ascii := true
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		b := []byte(text)
		for i, c := range b {
			if 'a' <= c && c <= 'z' {
				b[i] = c - ('a' - 'A')
			}
		}
		return folded{text: string(b)}
	}
	var sb strings.Builder
	sb.Grow(len(text))
	var off []int32
	for i, r := range text {
		if r == utf8.RuneError {
			// Invalid bytes are kept one by one.
			if _, size := utf8.DecodeRuneInString(text[i:]); size == 1 {
				if off != nil {
					off[i] = int32(sb.Len())
				}
				sb.WriteByte(text[i])
				continue
			}
		}
		f := foldRune(r)
		if utf8.RuneLen(f) != utf8.RuneLen(r) && off == nil {
			off = make([]int32, len(text)+1)
			for j := range off[:i+1] {
				off[j] = int32(j)
			}
		}
		if off != nil {
			off[i] = int32(sb.Len())
		}
		sb.WriteRune(f)
	}
	if off != nil {
		off[len(text)] = int32(sb.Len())
	}
	return folded{text: sb.String(), off: off}
}

// at returns the offset in the copy of byte offset i of the text, which
// must start a rune.
func (f folded) at(i int) int {
	if f.off == nil {
		return i
	}
	return int(f.off[i])
}

// hasPrefixAt reports whether the folded text at offset fi starts with one
// of set.
func (f folded) hasPrefixAt(fi int, set []string) bool {
	rest := f.text[fi:]
	for _, p := range set {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}

// lastIndex returns the largest offset of the folded text at which one of
// set starts, or -1.
func (f folded) lastIndex(set []string) int {
	last := -1
	for _, m := range set {
		last = max(last, strings.LastIndex(f.text, m))
	}
	return last
}

// fold returns the case-folded text, made on first use.
func (s *scanner) fold() *folded {
	if !s.isFolded {
		s.folded, s.isFolded = foldText(s.text), true
	}
	return &s.folded
}

// mayHold reports whether the text holds one string of each of g's must
// sets, for a search that is not anchored.
func (s *scanner) mayHold(g *gate) bool {
	for _, set := range g.must {
		if s.fold().lastIndex(set) < 0 {
			return false
		}
	}
	return true
}

// mayMatch reports whether rule ru, whose first rune r is at offset i, can
// match there according to its gate.
func (s *scanner) mayMatch(ru rule, i int, r rune) bool {
	g := ru.re.gate()
	if !g.anyFirst && !g.first.has(r) {
		return false
	}
	if g.prefix == nil && g.must == nil {
		return true
	}
	fi := s.fold().at(i)
	if g.prefix != nil && !s.folded.hasPrefixAt(fi, g.prefix) {
		return false
	}
	return s.holdsFrom(ru.id, g, fi)
}

// mayStartAt reports whether the anchored regular expression l may match
// at offset i according to its gate.
func (s *scanner) mayStartAt(l *lazyRE, i int) bool {
	if s.ungated {
		return true
	}
	g := l.gate()
	r, _ := utf8.DecodeRuneInString(s.text[i:])
	if !g.anyFirst && (i >= len(s.text) || !g.first.has(r)) {
		return false
	}
	if g.prefix == nil && g.must == nil {
		return true
	}
	fi := s.fold().at(i)
	if g.prefix != nil && !s.folded.hasPrefixAt(fi, g.prefix) {
		return false
	}
	return s.holdsFrom(numRules+l.gated, g, fi)
}

// holdsFrom reports whether the folded text holds a string of each of g's
// must sets at offset fi or after. id is the rule's id, or numRules plus
// the index in gatedRegexps, for the memo of where each set last occurs.
func (s *scanner) holdsFrom(id int, g *gate, fi int) bool {
	for k, set := range g.must {
		if s.mustAt == nil {
			s.mustAt = make([]int32, (numRules+len(gatedRegexps))*maxMust)
			for k := range s.mustAt {
				s.mustAt[k] = -2
			}
		}
		at := &s.mustAt[id*maxMust+k]
		if *at == -2 {
			*at = int32(s.folded.lastIndex(set))
		}
		if int(*at) < fi {
			return false
		}
	}
	return true
}

// findAt runs the anchored regular expression l on the text from offset i,
// if its gate lets it, and returns its submatch indexes relative to i.
func (s *scanner) findAt(l *lazyRE, i int) []int {
	if !s.mayStartAt(l, i) {
		return nil
	}
	return l.re().FindStringSubmatchIndex(s.text[i:])
}
