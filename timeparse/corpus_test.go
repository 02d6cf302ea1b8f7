package timeparse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
	"time"
)

// corpusEntry is one line of the phrase corpus, which testdata/corpusgen
// writes with expected ranges computed by plain calendar arithmetic, not
// by this package.
type corpusEntry struct {
	Phrase  string `json:"phrase"`
	Now     string `json:"now"`
	Zone    string `json:"zone"`
	Start   string `json:"start"` // RFC 3339; empty for an open start
	End     string `json:"end"`
	Example bool   `json:"example"` // one of the phrases the grammar was asked to read
}

func readCorpus(t testing.TB) []corpusEntry {
	t.Helper()
	// The corpus is generated afresh (go run ./testdata/corpusgen) rather
	// than kept as an 18,000-line file.
	gen, err := exec.Command("go", "run", "./testdata/corpusgen").Output()
	if err != nil {
		t.Fatalf("generating the corpus: %v", err)
	}
	var out []corpusEntry
	sc := bufio.NewScanner(bytes.NewReader(gen))
	for line := 1; sc.Scan(); line++ {
		var e corpusEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("corpus line %d: %v", line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the corpus: %v", err)
	}
	return out
}

// TestCorpus parses every phrase of the corpus at its reference time and
// zone and compares the range with the expected one.
func TestCorpus(t *testing.T) {
	entries := readCorpus(t)
	phrases := map[string]bool{}
	locs := map[string]*time.Location{}
	passed, examplesPassed, examplesTotal := 0, 0, 0
	for _, e := range entries {
		phrases[e.Phrase] = true
		loc, ok := locs[e.Zone]
		if !ok {
			loc = mustLoad(t, e.Zone)
			locs[e.Zone] = loc
		}
		parseRFC := func(s string) time.Time {
			if s == "" {
				return time.Time{}
			}
			v, err := time.Parse(time.RFC3339, s)
			if err != nil {
				t.Fatalf("corpus entry %q: bad time %q", e.Phrase, s)
			}
			return v
		}
		now := parseRFC(e.Now).In(loc)
		want := [2]time.Time{parseRFC(e.Start), parseRFC(e.End)}
		r, err := Parse(e.Phrase, now)
		ok = err == nil && r.Start.Equal(want[0]) && r.End.Equal(want[1])
		if e.Example {
			examplesTotal++
		}
		if ok {
			passed++
			if e.Example {
				examplesPassed++
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q) at %s: %v", e.Phrase, e.Now, err)
		} else {
			t.Errorf("Parse(%q) at %s = [%s, %s), want [%s, %s)", e.Phrase, e.Now,
				r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339), e.Start, e.End)
		}
	}
	t.Logf("corpus: %d of %d cases pass (%d distinct phrases); the requested examples: %d of %d",
		passed, len(entries), len(phrases), examplesPassed, examplesTotal)
	if len(phrases) < 1500 {
		t.Errorf("the corpus has %d distinct phrases, want at least 1500", len(phrases))
	}
}
