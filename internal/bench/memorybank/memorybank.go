// Package memorybank turns the Chinese half of MemoryBank
// (zhongwanjun/MemoryBank-SiliconFriend, eval_data/cn, MIT) into a
// retrieval dev set: real Chinese chats between fifteen users and an AI
// companion over ten days, with evidence-labelled questions.
//
// The chats are read in place (../shared/bench/memorybank-zh); the
// questions and their evidence live in this package (questions.jsonl):
// the authors' probing questions, copied verbatim, and questions written
// for this set, time-anchored (上周五, 五一前后, 5月3号下午), with chatty
// preambles, in traditional script, mixed with English, and ones whose
// answer is in the assistant's reply.
//
// [Convert] writes each user's chats as HuiMemory's generic JSONL with a
// questions file beside it, in the layout [beam.Load] reads, so the set
// runs through the same batch recall and scoring as BEAM. A message's
// ref is "<user>:<date>:<n>:user" or "...:assistant", n counting the
// day's exchanges from 1. The data has dates only: each day's session
// starts at 14:00 China time (+08:00), one minute per message.
package memorybank

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Questions is the labelled question set, one JSON object per line:
// {"user","query","evidence":[ref...],"category"}.
//
//go:embed questions.jsonl
var Questions []byte

// Question is one labelled question.
type Question struct {
	User     string   `json:"user"`
	Query    string   `json:"query"`
	Evidence []string `json:"evidence"`
	Category string   `json:"category"`
}

// DataFile is the chats' file name inside the data folder.
const DataFile = "memory_bank_cn.json"

type exchange struct {
	Query    string `json:"query"`
	Response string `json:"response"`
}

type user struct {
	Name    string                `json:"name"`
	History map[string][]exchange `json:"history"`
}

// zone is China Standard Time, fixed (China keeps no daylight saving).
var zone = time.FixedZone("CST", 8*3600)

// Labelled returns the labelled question set, [Questions].
func Labelled() ([]Question, error) { return ParseQuestions(Questions) }

// Convert reads the chats in dataDir and writes, for each user in the
// order of their names, <N>.messages.jsonl and <N>.questions.jsonl (the
// user's questions of qs) into outDir. It returns the number of users
// written. Every question's evidence must name a message of the chats.
func Convert(dataDir, outDir string, qs []Question) (int, error) {
	raw, err := os.ReadFile(filepath.Join(dataDir, DataFile))
	if err != nil {
		return 0, fmt.Errorf("memorybank: %w", err)
	}
	var byKey map[string]user
	if err := json.Unmarshal(raw, &byKey); err != nil {
		return 0, fmt.Errorf("memorybank: %s: %w", DataFile, err)
	}
	users := make([]user, 0, len(byKey))
	for _, u := range byKey {
		users = append(users, u)
	}
	sort.Slice(users, func(i, j int) bool { return users[i].Name < users[j].Name })
	refs := map[string]bool{}
	for i, u := range users {
		var msgs bytes.Buffer
		enc := json.NewEncoder(&msgs)
		enc.SetEscapeHTML(false)
		days := make([]string, 0, len(u.History))
		for d := range u.History {
			days = append(days, d)
		}
		sort.Strings(days)
		for _, d := range days {
			day, err := time.ParseInLocation(time.DateOnly, d, zone)
			if err != nil {
				return 0, fmt.Errorf("memorybank: user %s: bad date %q", u.Name, d)
			}
			at := day.Add(14 * time.Hour)
			for n, ex := range u.History[d] {
				for _, m := range []struct{ role, speaker, text string }{
					{"user", u.Name, ex.Query}, {"assistant", "AI伴侣", ex.Response},
				} {
					ref := fmt.Sprintf("%s:%s:%d:%s", u.Name, d, n+1, m.role)
					refs[ref] = true
					if err := enc.Encode(map[string]string{
						"session": u.Name + ":" + d, "time": at.Format(time.RFC3339), "role": m.role,
						"speaker": m.speaker, "text": m.text, "ref": ref,
					}); err != nil {
						return 0, err
					}
					at = at.Add(time.Minute)
				}
			}
		}
		var qout bytes.Buffer
		qenc := json.NewEncoder(&qout)
		qenc.SetEscapeHTML(false)
		n := 0
		for _, q := range qs {
			if q.User != u.Name {
				continue
			}
			n++
			if err := qenc.Encode(map[string]any{
				"query": q.Query, "evidence": q.Evidence, "category": q.Category, "qid": u.Name + "-" + strconv.Itoa(n),
			}); err != nil {
				return 0, err
			}
		}
		id := strconv.Itoa(i + 1)
		if err := os.WriteFile(filepath.Join(outDir, id+".messages.jsonl"), msgs.Bytes(), 0o644); err != nil {
			return 0, fmt.Errorf("memorybank: %w", err)
		}
		if err := os.WriteFile(filepath.Join(outDir, id+".questions.jsonl"), qout.Bytes(), 0o644); err != nil {
			return 0, fmt.Errorf("memorybank: %w", err)
		}
	}
	for i, q := range qs {
		for _, r := range q.Evidence {
			if !refs[r] {
				return 0, fmt.Errorf("memorybank: question %d (%s): evidence %q is no message of the chats", i+1, q.Query, r)
			}
		}
	}
	return len(users), nil
}

// ParseQuestions parses a question set in the format of [Questions].
// Errors name the line.
func ParseQuestions(data []byte) ([]Question, error) {
	var qs []Question
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var q Question
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("memorybank: questions.jsonl:%d: %w", n, err)
		}
		switch {
		case q.User == "":
			return nil, fmt.Errorf("memorybank: questions.jsonl:%d: no user", n)
		case strings.TrimSpace(q.Query) == "":
			return nil, fmt.Errorf("memorybank: questions.jsonl:%d: empty query", n)
		case len(q.Evidence) == 0:
			return nil, fmt.Errorf("memorybank: questions.jsonl:%d: no evidence", n)
		case q.Category == "":
			return nil, fmt.Errorf("memorybank: questions.jsonl:%d: no category", n)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}
