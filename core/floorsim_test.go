package core

import (
	"strings"
	"testing"
)

func TestParseFloorSimilarity(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    SimilarityCalibration
		auto    bool
		wantErr string
	}{
		{in: "auto", auto: true},
		{in: "", auto: true},
		{in: "off"},
		{in: "2,0.4", want: SimilarityCalibration{2, 0.4}},
		{in: " 1.5 , -0.25 ", want: SimilarityCalibration{1.5, -0.25}},
		{in: "0,0"},
		{in: "2", wantErr: "not auto, off or WEIGHT,CENTER"},
		{in: "on", wantErr: "not auto, off or WEIGHT,CENTER"},
		{in: "x,0.4", wantErr: "the weight (before the comma)"},
		{in: "-1,0.4", wantErr: "the weight (before the comma)"},
		{in: "2,1.5", wantErr: "the centre (after the comma)"},
		{in: "2,", wantErr: "the centre (after the comma)"},
	} {
		got, auto, err := ParseFloorSimilarity(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want one with %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want || auto != tt.auto {
			t.Errorf("%q: got %+v auto=%v err=%v, want %+v auto=%v", tt.in, got, auto, err, tt.want, tt.auto)
		}
	}
}

func TestFloorSimilarityValidated(t *testing.T) {
	c := Config{}
	c.SetDefaults()
	if c.Retriever.FloorSimilarity != FloorSimilarityAuto {
		t.Fatalf("default floor_similarity %q, want auto", c.Retriever.FloorSimilarity)
	}
	c.Retriever.FloorSimilarity = "2;0.4"
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "retriever.floor_similarity") {
		t.Fatalf("Validate: %v, want an error naming retriever.floor_similarity", err)
	}
}

func TestCalibration(t *testing.T) {
	if _, ok := (EmbedderInfo{Name: "hash", Model: "fnv1a-w1-s1-cjk12-v2", Dim: 256}).Calibration(); ok {
		t.Error("hash has a calibration; its cosines repeat what relevance counts")
	}
	c, ok := (EmbedderInfo{Name: "use-lite", Model: "universal-sentence-encoder-lite@0.2.0", Dim: 512}).Calibration()
	if !ok || c.Weight <= 0 {
		t.Errorf("use-lite: %+v %v, want its measured calibration", c, ok)
	}
}

func FuzzParseFloorSimilarity(f *testing.F) {
	for _, s := range []string{"auto", "off", "2,0.4", "x,", ",", "1e308,1", "NaN,0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, auto, err := ParseFloorSimilarity(s)
		if err != nil {
			return
		}
		if auto && c != (SimilarityCalibration{}) {
			t.Fatalf("%q: auto with a calibration %+v", s, c)
		}
		if !(c.Weight >= 0 && c.Weight <= 100 && c.Center >= -1 && c.Center <= 1) {
			t.Fatalf("%q: accepted %+v out of range", s, c)
		}
	})
}
