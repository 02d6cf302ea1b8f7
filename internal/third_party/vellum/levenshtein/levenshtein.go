//  Copyright (c) 2018 Couchbase, Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
// 		http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package levenshtein

import (
	"fmt"
	"sync"
)

// StateLimit is the maximum number of states allowed
const StateLimit = 10000

// ErrTooManyStates is returned if you attempt to build a Levenshtein
// automaton which requires too many states.
var ErrTooManyStates = fmt.Errorf("dfa contains more than %d states",
	StateLimit)

// LevenshteinAutomatonBuilder wraps a precomputed
// datastructure that allows to produce small (but not minimal) DFA.
//
// HuiMemory patch: the precomputation runs on the first BuildDfa, not in
// NewLevenshteinAutomatonBuilder. bleve's index/scorch builds two builders
// in its package init, which cost every process that links bleve several
// milliseconds and a megabyte of garbage before main, although only fuzzy
// queries use them. See PATCH.md.
type LevenshteinAutomatonBuilder struct {
	maxDistance   uint8
	transposition bool

	once sync.Once
	pDfa *ParametricDFA
	err  error
}

// NewLevenshteinAutomatonBuilder creates a
// reusable, threadsafe Levenshtein automaton builder.
// `maxDistance` - maximum distance considered by the automaton.
// `transposition` - assign a distance of 1 for transposition
//
// Building this automaton builder is computationally intensive.
// While it takes only a few milliseconds for `d=2`, it grows
// exponentially with `d`. It is only reasonable to `d <= 5`.
//
// The work is done by the first BuildDfa (HuiMemory patch), which also
// returns its error, if any.
func NewLevenshteinAutomatonBuilder(maxDistance uint8,
	transposition bool) (*LevenshteinAutomatonBuilder, error) {
	return &LevenshteinAutomatonBuilder{maxDistance: maxDistance,
		transposition: transposition}, nil
}

// parametric returns the precomputed automaton, building it once.
func (lab *LevenshteinAutomatonBuilder) parametric() (*ParametricDFA, error) {
	lab.once.Do(func() {
		lab.pDfa, lab.err = fromNfa(newLevenshtein(lab.maxDistance, lab.transposition))
	})
	return lab.pDfa, lab.err
}

// BuildDfa builds the levenshtein automaton for serving
// queries with a given edit distance.
func (lab *LevenshteinAutomatonBuilder) BuildDfa(query string,
	fuzziness uint8) (*DFA, error) {
	pDfa, err := lab.parametric()
	if err != nil {
		return nil, err
	}
	return pDfa.buildDfa(query, fuzziness, false)
}

// MaxDistance returns the MaxEdit distance supported by the
// LevenshteinAutomatonBuilder builder.
func (lab *LevenshteinAutomatonBuilder) MaxDistance() uint8 {
	return lab.maxDistance
}
