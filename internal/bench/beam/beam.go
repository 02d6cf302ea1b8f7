// Package beam evaluates HuiMemory's retrieval on BEAM ("Beyond a Million
// Tokens", Tavakoli et al., 2025): long user–assistant chats with probing
// questions whose evidence is given at message level.
//
// The data is read in place from a folder of converted chats (see
// ../shared/bench/beam/README.md): <N>.messages.jsonl is HuiMemory's
// generic JSONL with BEAM's message ids as refs, and <N>.questions.jsonl
// holds the questions with their evidence refs. Each chat is ingested
// into its own namespace, every question with evidence runs through the
// same batch recall a user would use (internal/batch) with now set to the
// day after the chat's last message, and the hits' refs, flattened in rank
// order and de-duplicated, are scored as for LoCoMo: |evidence ∩ first k
// refs| / |evidence|.
//
// The data is CC BY-SA 4.0: read it from where it is, never copy it into
// the repository.
package beam

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/batch"
	"github.com/huimemory/huimemory/internal/bench/locomo"
)

// Chat is one BEAM chat with its questions.
type Chat struct {
	// ID is the chat's number as a string ("1").
	ID string
	// Path is the messages file.
	Path string
	// Text is every message's text, joined, for generating off-topic
	// questions.
	Text string
	// Messages is the number of messages.
	Messages int
	// Last is the time of the last message.
	Last      time.Time
	Questions []Question
}

// Question is one probing question.
type Question struct {
	Query    string   `json:"query"`
	Evidence []string `json:"evidence"`
	Category string   `json:"category"`
	ID       string   `json:"qid"`
}

// Now is the reference time for the chat's questions: the day after its
// last message.
func (c *Chat) Now() time.Time { return c.Last.Add(24 * time.Hour) }

// Load reads every <N>.messages.jsonl with its <N>.questions.jsonl in dir,
// in the order of N.
func Load(dir string) ([]Chat, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.messages.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("beam: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("beam: no *.messages.jsonl in %s", dir)
	}
	var chats []Chat
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".messages.jsonl")
		c, err := loadChat(id, p, filepath.Join(dir, id+".questions.jsonl"))
		if err != nil {
			return nil, err
		}
		chats = append(chats, c)
	}
	sort.Slice(chats, func(i, j int) bool {
		a, errA := strconv.Atoi(chats[i].ID)
		b, errB := strconv.Atoi(chats[j].ID)
		if errA == nil && errB == nil {
			return a < b
		}
		return chats[i].ID < chats[j].ID
	})
	return chats, nil
}

func loadChat(id, msgPath, qPath string) (Chat, error) {
	c := Chat{ID: id, Path: msgPath}
	var text strings.Builder
	err := eachLine(msgPath, func(n int, line []byte) error {
		var m struct {
			Time string `json:"time"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return err
		}
		t, err := time.Parse(time.RFC3339, m.Time)
		if err != nil {
			return fmt.Errorf("bad time %q", m.Time)
		}
		if t.After(c.Last) {
			c.Last = t
		}
		text.WriteString(m.Text)
		text.WriteByte('\n')
		c.Messages++
		return nil
	})
	if err != nil {
		return c, err
	}
	c.Text = text.String()
	err = eachLine(qPath, func(n int, line []byte) error {
		var q Question
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if strings.TrimSpace(q.Query) == "" {
			return fmt.Errorf("empty query")
		}
		c.Questions = append(c.Questions, q)
		return nil
	})
	return c, err
}

// eachLine calls fn for each non-blank line of path; errors carry
// "path:line".
func eachLine(path string, fn func(n int, line []byte) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("beam: %w", err)
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(i+1, line); err != nil {
			return fmt.Errorf("beam: %s:%d: %w", path, i+1, err)
		}
	}
	return nil
}

// Options tune [Run].
type Options struct {
	// Ks are the cut-offs for message-level recall (default 5 and 10).
	Ks []int
	// Prefix is pasted in front of every question, to measure polluted
	// queries (see [locomo.SystemPrompt]).
	Prefix string
	// OffTopic, when positive, also asks that many generated off-topic
	// questions of each chat (see [locomo.OffTopic]) and reports how often
	// recall returned nothing.
	OffTopic int
	// Foreign are real questions of another benchmark (LoCoMo's, say),
	// asked each of one chat in turn (see [locomo.Options.Foreign]).
	Foreign []string
	// NoTime turns off resolving time phrases in the questions.
	NoTime bool
}

// Report is the result of an evaluation.
type Report struct {
	Chats     int `json:"chats"`
	Questions int `json:"questions"`
	Messages  int `json:"messages"`
	// Recall[k] is the mean message-level evidence recall@k over the
	// questions with evidence.
	Recall map[int]float64 `json:"recall"`
	// ByCategory[c][k] is the same within category c.
	ByCategory    map[string]map[int]float64 `json:"by_category"`
	CategoryCount map[string]int             `json:"category_count"`
	MRR           float64                    `json:"mrr"`
	NDCG          float64                    `json:"ndcg_at_10"`
	// OffTopic is the number of off-topic questions asked and OffTopicEmpty
	// the share of them for which recall returned nothing.
	OffTopic      int     `json:"off_topic,omitempty"`
	OffTopicEmpty float64 `json:"off_topic_empty,omitempty"`
	// Foreign is the number of another benchmark's questions asked
	// (Options.Foreign) and ForeignEmpty the share of them for which
	// recall returned nothing.
	Foreign       int      `json:"foreign,omitempty"`
	ForeignEmpty  float64  `json:"foreign_empty,omitempty"`
	Errors        int      `json:"errors"`
	IngestSeconds float64  `json:"ingest_seconds"`
	RecallSeconds float64  `json:"recall_seconds"`
	EmbedderInfo  string   `json:"embedder"`
	PerQuestion   []Result `json:"questions_detail,omitempty"`
}

// Result is one question's outcome.
type Result struct {
	Chat     string          `json:"chat"`
	ID       string          `json:"qid"`
	Question string          `json:"question"`
	Category string          `json:"category"`
	Evidence []string        `json:"evidence"`
	Refs     []string        `json:"refs"`
	Recall   map[int]float64 `json:"recall"`
	Error    string          `json:"error,omitempty"`
}

// Run ingests every chat into its own namespace of e ("beam-<N>") and
// evaluates its questions that have evidence through batch recall.
func Run(ctx context.Context, e *engine.Engine, chats []Chat, opts Options) (*Report, error) {
	ks := opts.Ks
	if len(ks) == 0 {
		ks = []int{5, 10}
	}
	maxK := slices.Max(append(slices.Clone(ks), 10))
	rep := &Report{Chats: len(chats), Recall: map[int]float64{}, ByCategory: map[string]map[int]float64{}, CategoryCount: map[string]int{}}
	info := e.EmbedderInfo()
	rep.EmbedderInfo = fmt.Sprintf("%s/%s/%d", info.Name, info.Model, info.Dim)
	start := time.Now()
	base := e.TidyBase()
	var queries bytes.Buffer
	type meta struct {
		chat     string
		q        Question
		offTopic bool
		foreign  bool
	}
	var metas []meta
	add := func(c *Chat, text string, m meta) {
		line, _ := json.Marshal(batch.Query{Query: text, TopK: maxK, Namespace: "beam-" + c.ID, Now: c.Now().Format(time.RFC3339), NoTime: opts.NoTime})
		queries.Write(append(line, '\n'))
		metas = append(metas, m)
	}
	for i := range chats {
		c := &chats[i]
		rep.Messages += c.Messages
		if _, err := e.IngestFile(ctx, c.Path, engine.FileOptions{Namespace: "beam-" + c.ID, DeferTidy: true}); err != nil {
			return nil, fmt.Errorf("ingesting chat %s: %w", c.ID, err)
		}
		for _, q := range c.Questions {
			if len(q.Evidence) > 0 {
				add(c, opts.Prefix+q.Query, meta{chat: c.ID, q: q})
			}
		}
		if opts.OffTopic > 0 {
			for j, text := range locomo.OffTopic(uint64(i+1), opts.OffTopic, c.Text) {
				add(c, opts.Prefix+text, meta{chat: c.ID, q: Question{Query: text, ID: fmt.Sprintf("offtopic-%d", j)}, offTopic: true})
			}
		}
		for j := i; j < len(opts.Foreign); j += len(chats) {
			add(c, opts.Foreign[j], meta{chat: c.ID, q: Question{Query: opts.Foreign[j], ID: fmt.Sprintf("foreign-%d", j)}, foreign: true})
		}
	}
	// The chats are ingested as `huimem ingest DIR` ingests files: the
	// store and index tidied once after the last (one index segment), so
	// that scores do not depend on how the index happened to be cut into
	// segments (bleve sums BM25's statistics over them).
	if _, _, err := e.Tidy(ctx, base); err != nil {
		return nil, fmt.Errorf("tidying after the ingest: %w", err)
	}
	rep.IngestSeconds = time.Since(start).Seconds()
	start = time.Now()
	var out bytes.Buffer
	if _, err := batch.Run(ctx, e, &queries, &out, batch.Options{}); err != nil {
		return nil, err
	}
	rep.RecallSeconds = time.Since(start).Seconds()
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	i := 0
	var probes locomo.Probes
	for sc.Scan() {
		var line batch.Line
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("reading batch output: %w", err)
		}
		m := metas[i]
		i++
		if line.Error != "" {
			rep.Errors++
		}
		var hitRefs [][]string
		for _, h := range line.Results {
			if h.ContextRole == core.RoleHit {
				hitRefs = append(hitRefs, h.Refs)
			}
		}
		if m.offTopic || m.foreign {
			probes.Add(m.foreign, len(hitRefs) > 0 || line.Error != "")
			continue
		}
		refs := locomo.Flatten(hitRefs)
		r := Result{Chat: m.chat, ID: m.q.ID, Question: m.q.Query, Category: m.q.Category, Evidence: m.q.Evidence,
			Refs: refs, Recall: map[int]float64{}, Error: line.Error}
		for _, k := range ks {
			r.Recall[k] = locomo.RecallAt(m.q.Evidence, refs, k)
		}
		rep.PerQuestion = append(rep.PerQuestion, r)
		rep.MRR += locomo.MRR(m.q.Evidence, refs)
		rep.NDCG += locomo.NDCG(m.q.Evidence, refs, 10)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if i != len(metas) {
		return nil, fmt.Errorf("batch recall answered %d of %d questions", i, len(metas))
	}
	rep.OffTopic, rep.OffTopicEmpty, rep.Foreign, rep.ForeignEmpty = probes.Report()
	rep.Questions = len(rep.PerQuestion)
	n := float64(max(rep.Questions, 1))
	for _, r := range rep.PerQuestion {
		c := r.Category
		if rep.ByCategory[c] == nil {
			rep.ByCategory[c] = map[int]float64{}
		}
		rep.CategoryCount[c]++
		for _, k := range ks {
			rep.Recall[k] += r.Recall[k] / n
			rep.ByCategory[c][k] += r.Recall[k]
		}
	}
	for c, byK := range rep.ByCategory {
		for k := range byK {
			byK[k] /= float64(rep.CategoryCount[c])
		}
	}
	rep.MRR /= n
	rep.NDCG /= n
	return rep, nil
}
