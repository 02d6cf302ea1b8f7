// Package locomo evaluates HuiMemory's retrieval on the LoCoMo benchmark
// (snap-research/LoCoMo): long conversations between two people, with
// questions whose evidence is a list of dialogue turns ("D3:12").
//
// Each conversation becomes generic JSONL (one message per turn, its dia_id
// as ref, the session date as time with the turns one minute apart, the
// speakers as speaker, no roles) and is ingested into its own namespace.
// Each question then runs through the same batch recall a user would use
// (internal/batch), and the hits' refs, flattened in rank order and
// de-duplicated, are scored against the evidence.
//
// The data is CC BY-NC 4.0: read it from where it is, never copy it into
// the repository.
package locomo

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/huimemory/huimemory/core"
)

// Sample is one LoCoMo conversation with its questions.
type Sample struct {
	ID           string
	SpeakerA     string
	SpeakerB     string
	Sessions     []Session
	Questions    []Question
	lastSessTime time.Time
}

// Session is one dated session of turns.
type Session struct {
	N     int
	Date  time.Time
	Turns []Turn
}

// Turn is one dialogue turn.
type Turn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

// Question is one question with its evidence refs, normalised.
type Question struct {
	Text     string
	Category int
	Evidence []string
	Answer   string
}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string          `json:"question"`
		Answer   json.RawMessage `json:"answer"`
		Evidence []string        `json:"evidence"`
		Category int             `json:"category"`
	} `json:"qa"`
}

// Load reads a LoCoMo JSON file.
func Load(path string) ([]Sample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("locomo: %w", err)
	}
	var raws []rawSample
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("locomo: %s: %w", path, err)
	}
	out := make([]Sample, 0, len(raws))
	for _, r := range raws {
		s, err := convert(r)
		if err != nil {
			return nil, fmt.Errorf("locomo: %s: sample %s: %w", path, r.SampleID, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// Regular expressions here are compiled on first use, so that a process
// that never needs them does not pay for them at init.
var sessionKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^session_(\d+)$`) })

func convert(r rawSample) (Sample, error) {
	s := Sample{ID: r.SampleID}
	c := r.Conversation
	json.Unmarshal(c["speaker_a"], &s.SpeakerA)
	json.Unmarshal(c["speaker_b"], &s.SpeakerB)
	// Count sessions from the session_N keys, not the date keys: some
	// conversations have dates for sessions without turns.
	for k, v := range c {
		m := sessionKey().FindStringSubmatch(k)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		var turns []Turn
		if err := json.Unmarshal(v, &turns); err != nil {
			return s, fmt.Errorf("%s: %w", k, err)
		}
		var date string
		json.Unmarshal(c[k+"_date_time"], &date)
		t, err := ParseDate(date)
		if err != nil {
			return s, fmt.Errorf("%s_date_time: %w", k, err)
		}
		s.Sessions = append(s.Sessions, Session{N: n, Date: t, Turns: turns})
		if t.After(s.lastSessTime) {
			s.lastSessTime = t
		}
	}
	sort.Slice(s.Sessions, func(i, j int) bool { return s.Sessions[i].N < s.Sessions[j].N })
	for _, q := range r.QA {
		ans := strings.Trim(string(q.Answer), `"`)
		var ev []string
		for _, e := range q.Evidence {
			ev = append(ev, ParseEvidence(e)...)
		}
		s.Questions = append(s.Questions, Question{Text: q.Question, Category: q.Category, Evidence: dedupe(ev), Answer: ans})
	}
	return s, nil
}

// ParseDate reads a LoCoMo session date such as "1:56 pm on 8 May, 2023",
// in UTC.
func ParseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	for _, layout := range []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad date %q", s)
}

var evidenceRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`D:?(\d+):(\d+)`) })

// ParseEvidence extracts every D<session>:<turn> ref from a (possibly
// malformed) evidence string, dropping leading zeros: "D8:6; D9:17" gives
// D8:6 and D9:17, "D:11:26" gives D11:26, "D30:05" gives D30:5.
func ParseEvidence(s string) []string {
	var out []string
	for _, m := range evidenceRe().FindAllStringSubmatch(s, -1) {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		out = append(out, fmt.Sprintf("D%d:%d", a, b))
	}
	return out
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Messages converts a sample into messages: one per turn, namespace ns,
// session "session_N", the session date plus one minute per turn, the
// speaker, and the dia_id as ref. With captions set, an image's caption is
// appended to the text as "[image: ...]".
func (s *Sample) Messages(ns string, captions bool) []core.Message {
	var out []core.Message
	for _, sess := range s.Sessions {
		for i, t := range sess.Turns {
			text := t.Text
			if captions && t.Caption != "" {
				text = strings.TrimSpace(text + " [image: " + t.Caption + "]")
			}
			if text == "" {
				continue
			}
			out = append(out, core.Message{
				Namespace: ns, Session: fmt.Sprintf("session_%d", sess.N),
				Time: sess.Date.Add(time.Duration(i) * time.Minute), Speaker: t.Speaker,
				Text: text, Ref: t.DiaID,
			})
		}
	}
	return out
}

// Now is the reference time for the sample's questions: the day after its
// last session.
func (s *Sample) Now() time.Time { return s.lastSessTime.Add(24 * time.Hour) }
