package core

import (
	"fmt"
	"strconv"
	"strings"
)

// The values of RetrieverConfig.FloorSimilarity that are not numbers.
const (
	FloorSimilarityAuto = "auto"
	FloorSimilarityOff  = "off"
)

// SimilarityCalibration is how much an embedder's cosine similarity moves
// the "nothing found" floor (RetrieverConfig.FloorSimilarity): Weight
// times the best hit's cosine less Center is added to its relevance. A
// zero Weight leaves the floor to relevance alone.
type SimilarityCalibration struct {
	Weight, Center float64
}

// similarityCalibrations are the embedders whose similarity was measured
// against the floor's two targets (docs/recall-quality.md, "A semantic
// floor"), keyed by name and model. An embedder's cosines have a scale of
// their own, so one not listed gets none. hash is not listed: its vectors
// hold the query's words, which relevance already counts.
var similarityCalibrations = map[[2]string]SimilarityCalibration{
	{"use-lite", "universal-sentence-encoder-lite@0.2.0"}: {Weight: 2, Center: 0.4},
}

// Calibration returns the measured similarity calibration of the
// embedder info describes, and whether it has one.
func (info EmbedderInfo) Calibration() (SimilarityCalibration, bool) {
	c, ok := similarityCalibrations[[2]string{info.Name, info.Model}]
	return c, ok
}

// ParseFloorSimilarity parses a FloorSimilarity setting. auto reports
// whether the embedder's calibration is to be used; otherwise c is the
// setting's ("off" is the zero calibration).
func ParseFloorSimilarity(s string) (c SimilarityCalibration, auto bool, err error) {
	switch strings.TrimSpace(s) {
	case "", FloorSimilarityAuto:
		return c, true, nil
	case FloorSimilarityOff:
		return c, false, nil
	}
	w, ctr, ok := strings.Cut(s, ",")
	if !ok {
		return c, false, fmt.Errorf("%q is not auto, off or WEIGHT,CENTER (such as 2,0.4)", s)
	}
	if c.Weight, err = strconv.ParseFloat(strings.TrimSpace(w), 64); err != nil || !(c.Weight >= 0 && c.Weight <= 100) {
		return SimilarityCalibration{}, false, fmt.Errorf("%q: the weight (before the comma) is not a number between 0 and 100", s)
	}
	if c.Center, err = strconv.ParseFloat(strings.TrimSpace(ctr), 64); err != nil || !(c.Center >= -1 && c.Center <= 1) {
		return SimilarityCalibration{}, false, fmt.Errorf("%q: the centre (after the comma) is not a cosine between -1 and 1", s)
	}
	return c, false, nil
}
