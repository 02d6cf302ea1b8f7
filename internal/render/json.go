package render

import (
	"encoding/json"
	"io"
	"time"

	"github.com/huimemory/huimemory/core"
)

// JSONResults is the JSON shape of a recall, documented in the README:
// other tools and the benchmarks read it.
type JSONResults struct {
	Query        string          `json:"query"`
	SearchText   string          `json:"search_text,omitempty"`
	Results      []JSONHit       `json:"results"`
	ResolvedTime *core.TimeRange `json:"resolved_time,omitempty"`
	ScannedWeeks []string        `json:"scanned_weeks,omitempty"`
	// Widened is set when the time phrase's window held nothing relevant
	// and the results come from the rest of the time the query allowed.
	Widened bool `json:"widened,omitempty"`
	// Error is set, and Results empty, when one query of a batch failed.
	Error string `json:"error,omitempty"`
}

// JSONHit is one result.
type JSONHit struct {
	ID          string           `json:"id"`
	Prev        string           `json:"prev"`
	Next        string           `json:"next"`
	Namespace   string           `json:"namespace,omitempty"`
	Session     string           `json:"session"`
	Time        time.Time        `json:"time"`
	File        string           `json:"file"`
	LineStart   int              `json:"line_start"`
	LineEnd     int              `json:"line_end"`
	Topic       string           `json:"topic"`
	Score       float64          `json:"score"`
	Scores      core.Scores      `json:"scores"`
	Relevance   float64          `json:"relevance"`
	ContextRole core.ContextRole `json:"context_role"`
	Refs        []string         `json:"refs"`
	Section     string           `json:"section,omitempty"`
	Memories    []core.Memory    `json:"memories,omitempty"`
	Text        string           `json:"text,omitempty"`
	Messages    []JSONMessage    `json:"messages"`
}

// JSONMessage is one message of a result.
type JSONMessage struct {
	Role    core.Role `json:"role"`
	Speaker string    `json:"speaker"`
	Time    time.Time `json:"time"`
	Text    string    `json:"text"`
	Ref     string    `json:"ref"`
}

// NewJSONHits converts hits to their JSON shape.
func NewJSONHits(hits []core.Hit) []JSONHit {
	out := make([]JSONHit, len(hits))
	for i := range hits {
		h := &hits[i]
		j := JSONHit{
			ID: h.ID, Prev: h.Prev, Next: h.Next, Namespace: h.Namespace, Session: h.Session,
			Time: h.Time, File: h.File, LineStart: h.LineStart, LineEnd: h.LineEnd, Topic: h.Topic,
			Score: h.Score, Scores: h.Scores, Relevance: h.Relevance, ContextRole: h.ContextRole, Refs: h.Refs(),
			Section: h.Section, Memories: h.Memories, Text: h.Text,
			Messages: make([]JSONMessage, len(h.Messages)),
		}
		for k, m := range h.Messages {
			j.Messages[k] = JSONMessage{Role: m.Role, Speaker: m.Speaker, Time: m.Time, Text: m.Text, Ref: m.Ref}
		}
		out[i] = j
	}
	return out
}

// NewJSONResults converts a recall's results to their JSON shape.
func NewJSONResults(r *core.Results) JSONResults {
	return JSONResults{
		Query: r.Query, SearchText: r.SearchText, Results: NewJSONHits(r.Hits),
		ResolvedTime: r.ResolvedTime, ScannedWeeks: r.ScannedWeeks, Widened: r.Widened,
	}
}

// JSON writes v as one line of JSON.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
