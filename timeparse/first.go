package timeparse

import (
	"regexp/syntax"
	"unicode"
)

// runeSet is a set of runes as sorted, inclusive [lo, hi] pairs.
type runeSet []rune

func (rs runeSet) has(r rune) bool {
	for i := 0; i+1 < len(rs); i += 2 {
		if r < rs[i] {
			return false
		}
		if r <= rs[i+1] {
			return true
		}
	}
	return false
}

// firstRunesOf returns the runes a match of the parsed pattern re can start
// with, so that the scanner can skip a rule without running it. all is set
// when the pattern can start with anything, or match the empty string.
func firstRunesOf(re *syntax.Regexp) (set runeSet, all bool) {
	var ranges []rune
	empty := first(re, &ranges)
	if empty || ranges == nil {
		return nil, true
	}
	// Normalise through a character class: sorted and merged.
	cc := &syntax.Regexp{Op: syntax.OpCharClass, Rune: ranges}
	return runeSet(cleanClass(cc.Rune)), false
}

// first adds the runes re can start with to ranges and reports whether re
// can match the empty string.
func first(re *syntax.Regexp, ranges *[]rune) (canBeEmpty bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		r := re.Rune[0]
		*ranges = append(*ranges, r, r)
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				*ranges = append(*ranges, f, f)
			}
		}
		return false
	case syntax.OpCharClass:
		*ranges = append(*ranges, re.Rune...)
		return false
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		*ranges = append(*ranges, 0, unicode.MaxRune)
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return first(re.Sub[0], ranges)
	case syntax.OpStar, syntax.OpQuest:
		first(re.Sub[0], ranges)
		return true
	case syntax.OpRepeat:
		e := first(re.Sub[0], ranges)
		return e || re.Min == 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !first(sub, ranges) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		empty := false
		for _, sub := range re.Sub {
			if first(sub, ranges) {
				empty = true
			}
		}
		return empty
	default: // empty-width assertions and empty matches
		return true
	}
}

// cleanClass sorts and merges rune ranges.
func cleanClass(r []rune) []rune {
	// Insertion sort by lo; the sets are small.
	for i := 2; i < len(r); i += 2 {
		for j := i; j >= 2 && r[j] < r[j-2]; j -= 2 {
			r[j], r[j+1], r[j-2], r[j-1] = r[j-2], r[j-1], r[j], r[j+1]
		}
	}
	out := r[:0]
	for i := 0; i < len(r); i += 2 {
		lo, hi := r[i], r[i+1]
		if n := len(out); n > 0 && lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], hi)
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}
