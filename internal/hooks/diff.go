package hooks

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// Diff returns a unified diff from a to b, the file's content before and
// after, labelled with the file's name; "" when they are equal. The lines
// both share at the start and the end are set aside first, so a small
// change to a large file (~/.claude.json) costs little.
func Diff(name string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := splitLines(string(a)), splitLines(string(b))
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	ops := lcsDiff(x[pre:len(x)-suf], y[pre:len(y)-suf])
	// The whole file as ops: the shared start and end as equal lines.
	var all []op
	for i := range pre {
		all = append(all, op{' ', x[i]})
	}
	all = append(all, ops...)
	for i := len(x) - suf; i < len(x); i++ {
		all = append(all, op{' ', x[i]})
	}
	var out strings.Builder
	fromName := name
	if len(a) == 0 {
		fromName = "/dev/null"
	}
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", fromName, name)
	// Hunks: runs of changes with diffContext equal lines around them.
	for i := 0; i < len(all); {
		if all[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(all) {
			if all[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(all) && all[run].kind == ' ' {
				run++
			}
			if run == len(all) || run-end > 2*diffContext {
				end = min(end+diffContext, len(all))
				break
			}
			end = run
		}
		ai, bi := 1, 1 // line numbers at start
		for _, o := range all[:start] {
			if o.kind != '+' {
				ai++
			}
			if o.kind != '-' {
				bi++
			}
		}
		an, bn := 0, 0
		for _, o := range all[start:end] {
			if o.kind != '+' {
				an++
			}
			if o.kind != '-' {
				bn++
			}
		}
		if an == 0 { // an empty range names the line before it
			ai--
		}
		if bn == 0 {
			bi--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", ai, an, bi, bn)
		for _, o := range all[start:end] {
			out.WriteString(string(o.kind) + o.line + "\n")
		}
		i = end
	}
	return out.String()
}

type op struct {
	kind byte // ' ', '-' or '+'
	line string
}

// lcsDiff returns the edit from x to y by a longest common subsequence.
func lcsDiff(x, y []string) []op {
	n, m := len(x), len(y)
	// lcs[i][j] is the LCS length of x[i:] and y[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case x[i] == y[j]:
			ops = append(ops, op{' ', x[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, op{'-', x[i]})
			i++
		default:
			ops = append(ops, op{'+', y[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, op{'-', x[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, op{'+', y[j]})
	}
	return ops
}
