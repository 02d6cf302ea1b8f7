package locomo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/internal/batch"
)

// Options tune [Run].
type Options struct {
	// Ks are the cut-offs for message-level recall (default 5 and 10).
	Ks []int
	// Captions appends image captions to the turns' text.
	Captions bool
	// NoTime turns off resolving time phrases in the questions.
	NoTime bool
	// WorkDir receives the generated JSONL files.
	WorkDir string
	// Prefix is pasted in front of every question, to measure polluted
	// queries (see [SystemPrompt]).
	Prefix string
	// OffTopic, when positive, also asks that many generated off-topic
	// questions of each conversation (see [OffTopic]) and reports how
	// often recall returned nothing.
	OffTopic int
	// Foreign are real questions of another benchmark (BEAM's, say), which
	// the conversations know nothing of: each is asked of one
	// conversation, in turn, and the report says how often recall
	// returned nothing. Unlike the generated off-topic questions they are
	// long and natural.
	Foreign []string
}

// Report is the result of an evaluation.
type Report struct {
	Samples   int `json:"samples"`
	Questions int `json:"questions"`
	Messages  int `json:"messages"`
	// Recall[k] is the mean message-level evidence recall@k.
	Recall map[int]float64 `json:"recall"`
	// ByCategory[c][k] is the same within category c (1-5).
	ByCategory map[int]map[int]float64 `json:"by_category"`
	// CategoryCount[c] is the number of questions in category c.
	CategoryCount map[int]int `json:"category_count"`
	SessionRecall float64     `json:"session_recall_at_10"`
	MRR           float64     `json:"mrr"`
	NDCG          float64     `json:"ndcg_at_10"`
	Errors        int         `json:"errors"`
	IngestSeconds float64     `json:"ingest_seconds"`
	RecallSeconds float64     `json:"recall_seconds"`
	PerQuestion   []Result    `json:"questions_detail,omitempty"`
	EmbedderInfo  string      `json:"embedder"`
	RetrieverTopK int         `json:"top_k"`
	// OffTopic is the number of off-topic questions asked and OffTopicEmpty
	// the share of them for which recall returned nothing.
	OffTopic      int     `json:"off_topic,omitempty"`
	OffTopicEmpty float64 `json:"off_topic_empty,omitempty"`
	// Foreign is the number of another benchmark's questions asked
	// (Options.Foreign) and ForeignEmpty the share of them for which
	// recall returned nothing.
	Foreign      int     `json:"foreign,omitempty"`
	ForeignEmpty float64 `json:"foreign_empty,omitempty"`
}

// Result is one question's outcome, so that failures can be read.
type Result struct {
	Sample   string          `json:"sample"`
	Question string          `json:"question"`
	Category int             `json:"category"`
	Answer   string          `json:"answer"`
	Evidence []string        `json:"evidence"`
	Refs     []string        `json:"refs"`
	Recall   map[int]float64 `json:"recall"`
	Error    string          `json:"error,omitempty"`
}

// Run ingests every sample into its own namespace of e and evaluates its
// questions through batch recall.
func Run(ctx context.Context, e *engine.Engine, samples []Sample, opts Options) (*Report, error) {
	ks := opts.Ks
	if len(ks) == 0 {
		ks = []int{5, 10}
	}
	maxK := slices.Max(append(slices.Clone(ks), 10))
	rep := &Report{
		Samples: len(samples), Recall: map[int]float64{}, ByCategory: map[int]map[int]float64{},
		CategoryCount: map[int]int{}, RetrieverTopK: maxK,
	}
	info := e.EmbedderInfo()
	rep.EmbedderInfo = fmt.Sprintf("%s/%s/%d", info.Name, info.Model, info.Dim)
	start := time.Now()
	base := e.TidyBase()
	var queries bytes.Buffer
	type meta struct {
		sample   string
		q        Question
		offTopic bool
		foreign  bool
	}
	var metas []meta
	for i := range samples {
		s := &samples[i]
		msgs := s.Messages(s.ID, opts.Captions)
		rep.Messages += len(msgs)
		path := filepath.Join(opts.WorkDir, s.ID+".jsonl")
		if err := writeJSONL(path, msgs); err != nil {
			return nil, err
		}
		if _, err := e.IngestFile(ctx, path, engine.FileOptions{DeferTidy: true}); err != nil {
			return nil, fmt.Errorf("ingesting %s: %w", s.ID, err)
		}
		add := func(text string, m meta) {
			line, _ := json.Marshal(batch.Query{
				Query: opts.Prefix + text, TopK: maxK, Namespace: s.ID, Now: s.Now().Format(time.RFC3339), NoTime: opts.NoTime,
			})
			queries.Write(append(line, '\n'))
			metas = append(metas, m)
		}
		for _, q := range s.Questions {
			add(q.Text, meta{sample: s.ID, q: q})
		}
		if opts.OffTopic > 0 {
			var corpus strings.Builder
			for _, m := range msgs {
				corpus.WriteString(m.Text)
				corpus.WriteByte('\n')
			}
			for _, text := range OffTopic(uint64(i+1), opts.OffTopic, corpus.String()) {
				add(text, meta{sample: s.ID, q: Question{Text: text}, offTopic: true})
			}
		}
		for j := i; j < len(opts.Foreign); j += len(samples) {
			add(opts.Foreign[j], meta{sample: s.ID, q: Question{Text: opts.Foreign[j]}, foreign: true})
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
	var probes Probes
	for sc.Scan() {
		var line batch.Line
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("reading batch output: %w", err)
		}
		m := metas[i]
		i++
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
		refs := Flatten(hitRefs)
		r := Result{Sample: m.sample, Question: m.q.Text, Category: m.q.Category, Answer: m.q.Answer,
			Evidence: m.q.Evidence, Refs: refs, Recall: map[int]float64{}, Error: line.Error}
		if line.Error != "" {
			rep.Errors++
		}
		for _, k := range ks {
			r.Recall[k] = RecallAt(m.q.Evidence, refs, k)
		}
		rep.PerQuestion = append(rep.PerQuestion, r)
		rep.SessionRecall += RecallAt(Sessions(m.q.Evidence), Sessions(refs), 10)
		rep.MRR += MRR(m.q.Evidence, refs)
		rep.NDCG += NDCG(m.q.Evidence, refs, 10)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if i != len(metas) {
		return nil, fmt.Errorf("batch recall answered %d of %d questions", i, len(metas))
	}
	rep.OffTopic, rep.OffTopicEmpty, rep.Foreign, rep.ForeignEmpty = probes.Report()
	n := float64(len(rep.PerQuestion))
	rep.Questions = len(rep.PerQuestion)
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
	rep.SessionRecall /= n
	rep.MRR /= n
	rep.NDCG /= n
	return rep, nil
}

func writeJSONL(path string, msgs []core.Message) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range msgs {
		m := &msgs[i]
		if err := enc.Encode(map[string]string{
			"namespace": m.Namespace, "session": m.Session, "time": m.Time.Format(time.RFC3339),
			"speaker": m.Speaker, "text": m.Text, "ref": m.Ref,
		}); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Probes tallies the questions asked to find nothing, the generated
// off-topic ones and another benchmark's (foreign), and how many of each
// recall answered with nothing.
type Probes struct {
	offTopic, offTopicEmpty, foreign, foreignEmpty int
}

// Add counts one probe, foreign or generated, that recall answered with
// something (found) or with nothing.
func (p *Probes) Add(foreign, found bool) {
	n, empty := &p.offTopic, &p.offTopicEmpty
	if foreign {
		n, empty = &p.foreign, &p.foreignEmpty
	}
	*n++
	if !found {
		*empty++
	}
}

// Report returns how many off-topic and foreign questions were asked, and
// the share of each answered with nothing (0 when none were asked).
func (p *Probes) Report() (offTopic int, offTopicEmpty float64, foreign int, foreignEmpty float64) {
	share := func(n, of int) float64 {
		if of == 0 {
			return 0
		}
		return float64(n) / float64(of)
	}
	return p.offTopic, share(p.offTopicEmpty, p.offTopic), p.foreign, share(p.foreignEmpty, p.foreign)
}
