package locomo

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseEvidence(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"D1:3", []string{"D1:3"}},
		{"D8:6; D9:17", []string{"D8:6", "D9:17"}},
		{"D:11:26", []string{"D11:26"}},
		{"D30:05", []string{"D30:5"}},
		{"D2:1 D2:3", []string{"D2:1", "D2:3"}},
		{"", nil},
	} {
		if diff := cmp.Diff(tt.want, ParseEvidence(tt.in)); diff != "" {
			t.Errorf("ParseEvidence(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseDate(t *testing.T) {
	for in, want := range map[string]time.Time{
		"1:56 pm on 8 May, 2023":    time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
		"8:56 pm on 20 July, 2023":  time.Date(2023, 7, 20, 20, 56, 0, 0, time.UTC),
		"10:37 am on 27 June, 2023": time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC),
	} {
		got, err := ParseDate(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseDate("yesterday"); err == nil {
		t.Errorf("bad date accepted")
	}
}

func TestScores(t *testing.T) {
	refs := Flatten([][]string{{"D1:1", "D1:2"}, {"D1:2", "D2:5"}, {"D3:1"}})
	if diff := cmp.Diff([]string{"D1:1", "D1:2", "D2:5", "D3:1"}, refs); diff != "" {
		t.Errorf("Flatten (-want +got):\n%s", diff)
	}
	ev := []string{"D2:5", "D9:9"}
	for _, tt := range []struct {
		name      string
		got, want float64
	}{
		{"recall@2", RecallAt(ev, refs, 2), 0},
		{"recall@3", RecallAt(ev, refs, 3), 0.5},
		{"recall no evidence", RecallAt(nil, refs, 1), 1},
		{"mrr", MRR(ev, refs), 1.0 / 3},
		{"mrr miss", MRR([]string{"D7:7"}, refs), 0},
		{"ndcg", NDCG(ev, refs, 10), (1 / math.Log2(4)) / (1 + 1/math.Log2(3))},
		{"session recall", RecallAt(Sessions([]string{"D2:1", "D3:3"}), Sessions(refs), 10), 1},
	} {
		if math.Abs(tt.got-tt.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestLoadAndMessages(t *testing.T) {
	data := `[{"sample_id":"conv-x","conversation":{"speaker_a":"Ann","speaker_b":"Ben",
		"session_1_date_time":"1:56 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"},{"speaker":"Ben","dia_id":"D1:2","text":"look","blip_caption":"a dog"}],
		"session_2_date_time":"2:00 pm on 9 May, 2023"},
		"qa":[{"question":"q?","answer":"a","evidence":["D1:2; D01:01"],"category":4},{"question":"q2?","adversarial_answer":"x","evidence":[],"category":5}]}]`
	path := filepath.Join(t.TempDir(), "d.json")
	os.WriteFile(path, []byte(data), 0o600)
	samples, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s := samples[0]
	if len(s.Sessions) != 1 {
		t.Errorf("sessions %d, want 1 (a date without turns is not a session)", len(s.Sessions))
	}
	if diff := cmp.Diff([]string{"D1:2", "D1:1"}, s.Questions[0].Evidence); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	msgs := s.Messages("conv-x", true)
	if len(msgs) != 2 || msgs[1].Text != "look [image: a dog]" || msgs[1].Ref != "D1:2" ||
		!msgs[1].Time.Equal(time.Date(2023, 5, 8, 13, 57, 0, 0, time.UTC)) || msgs[1].Role != "" || msgs[1].Speaker != "Ben" {
		t.Errorf("messages %+v", msgs)
	}
	if !s.Now().Equal(time.Date(2023, 5, 9, 13, 56, 0, 0, time.UTC)) {
		t.Errorf("Now = %v", s.Now())
	}
}

func TestOffTopicAvoidsTheCorpusWords(t *testing.T) {
	corpus := "I love my zebra and the xylophone. Narwhals too."
	qs := OffTopic(1, 50, corpus)
	if len(qs) != 50 {
		t.Fatalf("%d questions, want 50", len(qs))
	}
	for _, q := range qs {
		low := strings.ToLower(q)
		for _, w := range []string{"zebra", "xylophone", "narwhal"} {
			if strings.Contains(low, w) {
				t.Errorf("%q mentions %q, which the corpus holds", q, w)
			}
		}
	}
	if diff := cmp.Diff(qs, OffTopic(1, 50, corpus)); diff != "" {
		t.Errorf("not deterministic (-first +second):\n%s", diff)
	}
}

func TestProbes(t *testing.T) {
	for _, tt := range []struct {
		name         string
		add          [][2]bool // foreign, found
		off          int
		offEmpty     float64
		foreign      int
		foreignEmpty float64
	}{
		{"none", nil, 0, 0, 0, 0},
		{"off-topic only", [][2]bool{{false, false}, {false, true}, {false, false}, {false, false}}, 4, 0.75, 0, 0},
		{"both", [][2]bool{{true, true}, {false, false}, {true, false}}, 1, 1, 2, 0.5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var p Probes
			for _, a := range tt.add {
				p.Add(a[0], a[1])
			}
			off, offEmpty, foreign, foreignEmpty := p.Report()
			if off != tt.off || offEmpty != tt.offEmpty || foreign != tt.foreign || foreignEmpty != tt.foreignEmpty {
				t.Errorf("Report() = %d, %v, %d, %v; want %d, %v, %d, %v", off, offEmpty, foreign, foreignEmpty, tt.off, tt.offEmpty, tt.foreign, tt.foreignEmpty)
			}
		})
	}
}
