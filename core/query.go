package core

import "time"

// Query asks the engine for the chunks that best match a text.
type Query struct {
	// Text is what to look for. It may contain a time phrase such as
	// "上周三下午" or "last week", which the engine resolves unless NoTime
	// is set.
	Text string `json:"query"`
	// TopK is how many hits to return; 0 means the configured default.
	TopK int `json:"top_k,omitempty"`
	// Since and Before bound the chunks' time: Since <= t < Before. A zero
	// value leaves that side open.
	Since  time.Time `json:"since,omitzero"`
	Before time.Time `json:"before,omitzero"`
	// Namespace is the only namespace searched. The empty namespace is the
	// default one; no query ever reads another namespace.
	Namespace string `json:"namespace,omitempty"`
	// Context adds the N chunks before and after each hit, found through
	// the anchors.
	Context int `json:"context,omitempty"`
	// Filter is a filter expression such as
	// "timestamp >= '2026-04-06' AND role = 'user'".
	Filter string `json:"filter,omitempty"`
	// Now is the reference time for time phrases and the progressive scan;
	// zero means the current time.
	Now time.Time `json:"now,omitzero"`
	// NoTime turns off resolving time phrases in Text.
	NoTime bool `json:"no_time,omitempty"`
	// OnRound, when set, is called after each round of a progressive scan.
	OnRound func(Round) `json:"-"`
}

// ContextRole says why a chunk is in a result list.
type ContextRole string

// The context roles.
const (
	// RoleHit marks a chunk that matched the query.
	RoleHit ContextRole = "hit"
	// RoleNeighbor marks a chunk added around a hit by [Query.Context].
	RoleNeighbor ContextRole = "neighbor"
)

// Scores holds the component scores of a hit, each min-max normalised
// within the candidate pool to [0, 1].
type Scores struct {
	Vector float64 `json:"vector"`
	BM25   float64 `json:"bm25"`
}

// Hit is one chunk in a result list.
type Hit struct {
	Chunk
	// Score is the fused score, w_vec·Scores.Vector + w_bm25·Scores.BM25.
	// Neighbours carry 0.
	Score  float64 `json:"score"`
	Scores Scores  `json:"scores"`
	// Relevance is an absolute measure of how well the chunk matches the
	// query, in [0, 1], comparable across queries (unlike Score, which is
	// relative to the candidate pool): the IDF-weighted share of the
	// query's terms that the chunk holds, its neighbours' terms counting
	// too unless retriever.context_boost is 0. Recall drops hits below
	// retriever.min_relevance. Neighbours carry 0.
	Relevance   float64     `json:"relevance"`
	ContextRole ContextRole `json:"context_role"`
}

// TimeRange is the time window a query's time phrase resolved to.
type TimeRange struct {
	// Start is zero, and left out of JSON, for a range open at the start
	// ("before April 9", "截至上周五").
	Start       time.Time `json:"start,omitzero"`
	End         time.Time `json:"end"`
	Granularity string    `json:"granularity,omitempty"`
	Fuzzy       bool      `json:"fuzzy"`
	Text        string    `json:"text"`
}

// Round reports one week of a progressive scan to [Query.OnRound].
type Round struct {
	// Week is the ISO week searched, such as "2026-W47".
	Week string `json:"week"`
	// Start and End bound the week (End exclusive).
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Hits are the hits this round kept.
	Hits []Hit `json:"hits"`
}

// Results is what a recall returns.
type Results struct {
	// Query is the query text as given.
	Query string `json:"query"`
	// SearchText is the text searched after any time phrase was removed.
	SearchText string `json:"search_text,omitempty"`
	Hits       []Hit  `json:"results"`
	// ResolvedTime is set when a time phrase in the query was resolved.
	ResolvedTime *TimeRange `json:"resolved_time,omitempty"`
	// ScannedWeeks lists the weeks a progressive scan searched, in order.
	ScannedWeeks []string `json:"scanned_weeks,omitempty"`
	// Widened is set when the window of the query's time phrase held
	// nothing relevant, so the hits come from all of the time the query
	// allowed without the phrase (its since, before and filter).
	Widened bool `json:"widened,omitempty"`
}
