package locomo

import (
	"math"
	"regexp"
	"sync"
)

// Flatten returns the refs of hits in rank order, de-duplicated.
func Flatten(hitRefs [][]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, refs := range hitRefs {
		for _, r := range refs {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// RecallAt is |evidence ∩ first k refs| / |evidence|; 1 when there is no
// evidence.
func RecallAt(evidence, refs []string, k int) float64 {
	if len(evidence) == 0 {
		return 1
	}
	top := map[string]bool{}
	for i := 0; i < k && i < len(refs); i++ {
		top[refs[i]] = true
	}
	n := 0
	for _, e := range evidence {
		if top[e] {
			n++
		}
	}
	return float64(n) / float64(len(evidence))
}

// Regular expressions here are compiled on first use, so that a process
// that never needs them does not pay for them at init.
var sessionOf = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^D(\d+):`) })

// Sessions maps refs to their sessions ("D3:12" → "D3"), de-duplicated in
// order.
func Sessions(refs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range refs {
		m := sessionOf().FindStringSubmatch(r)
		if m == nil {
			continue
		}
		s := "D" + m[1]
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// MRR is the reciprocal rank of the first evidence ref; 1 when there is no
// evidence, 0 when none is found.
func MRR(evidence, refs []string) float64 {
	if len(evidence) == 0 {
		return 1
	}
	ev := map[string]bool{}
	for _, e := range evidence {
		ev[e] = true
	}
	for i, r := range refs {
		if ev[r] {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// NDCG is the normalised discounted cumulative gain of the first k refs
// with binary relevance; 1 when there is no evidence.
func NDCG(evidence, refs []string, k int) float64 {
	if len(evidence) == 0 {
		return 1
	}
	ev := map[string]bool{}
	for _, e := range evidence {
		ev[e] = true
	}
	var dcg, idcg float64
	for i := 0; i < k && i < len(refs); i++ {
		if ev[refs[i]] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 0; i < k && i < len(evidence); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	return dcg / idcg
}
