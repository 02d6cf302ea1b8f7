// Command timeaudit lists the phrases that [timeparse.Extract] takes as
// time in a set of benchmark questions, so that they can be checked by
// reading: every phrase it prints should be a time phrase, and the rest of
// each question should keep its ordinary words.
//
// It reads the LoCoMo questions (the "qa" lists of a locomo JSON file) and
// the BEAM questions ("query" of each line of *.questions.jsonl files) from
// the paths given; it copies nothing and writes only to stdout:
//
//	go run ./internal/timeaudit -locomo /work/shared/bench/locomo/locomo-dev.json \
//	    -beam '/work/shared/bench/beam/100K-dev/*.questions.jsonl'
//
// Each hit is printed as "phrase<TAB>rest<TAB>question", followed by a
// summary line with the number of questions and of hits.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/huimemory/huimemory/timeparse"
)

func main() {
	locomo := flag.String("locomo", "/work/shared/bench/locomo/locomo-dev.json", "LoCoMo JSON file")
	beam := flag.String("beam", "/work/shared/bench/beam/100K-dev/*.questions.jsonl", "glob of BEAM question files")
	now := flag.String("now", "2026-11-29 15:04", "reference time, in UTC")
	flag.Parse()
	if err := run(*locomo, *beam, *now); err != nil {
		fmt.Fprintln(os.Stderr, "timeaudit:", err)
		os.Exit(1)
	}
}

func run(locomo, beam, now string) error {
	ref, err := time.Parse("2006-01-02 15:04", now)
	if err != nil {
		return fmt.Errorf("reading -now: %w", err)
	}
	var questions []string
	if locomo != "" {
		qs, err := locomoQuestions(locomo)
		if err != nil {
			return err
		}
		questions = append(questions, qs...)
	}
	if beam != "" {
		files, err := filepath.Glob(beam)
		if err != nil {
			return fmt.Errorf("reading -beam: %w", err)
		}
		sort.Strings(files)
		for _, f := range files {
			qs, err := beamQuestions(f)
			if err != nil {
				return err
			}
			questions = append(questions, qs...)
		}
	}
	hits := 0
	for _, q := range questions {
		r, rest, ok := timeparse.Extract(q, ref)
		if !ok {
			continue
		}
		hits++
		fmt.Printf("%s\t%s\t%s\n", r.Text, rest, q)
	}
	fmt.Printf("# %d questions, %d with a time phrase\n", len(questions), hits)
	return nil
}

func locomoQuestions(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading locomo questions: %w", err)
	}
	var samples []struct {
		QA []struct {
			Question string `json:"question"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(data, &samples); err != nil {
		return nil, fmt.Errorf("reading locomo questions %q: %w", path, err)
	}
	var out []string
	for _, s := range samples {
		for _, qa := range s.QA {
			out = append(out, qa.Question)
		}
	}
	return out, nil
}

func beamQuestions(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading beam questions: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("reading beam questions %s:%d: %w", path, line, err)
		}
		out = append(out, q.Query)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading beam questions %s: %w", path, err)
	}
	return out, nil
}
