package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchData writes a tiny LoCoMo file (one conversation, three questions)
// and a tiny BEAM folder (two chats, a question each), for the bench
// commands.
func benchData(t *testing.T) (locomoFile, beamDir string) {
	t.Helper()
	dir := t.TempDir()
	locomoFile = filepath.Join(dir, "locomo.json")
	conv := `[{"sample_id":"conv-1","conversation":{"speaker_a":"Ann","speaker_b":"Bob",
"session_1_date_time":"1:56 pm on 8 May, 2023",
"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a kitten called Miso."},
{"speaker":"Bob","dia_id":"D1:2","text":"Lovely! What colour is Miso?"},
{"speaker":"Ann","dia_id":"D1:3","text":"Miso is ginger with white paws."}]},
"qa":[{"question":"What is the name of Ann's kitten?","answer":"Miso","evidence":["D1:1"],"category":4},
{"question":"What colour is the kitten?","answer":"ginger","evidence":["D1:3"],"category":4},
{"question":"Which harbour did Bob sail from?","answer":"none","evidence":["D1:2"],"category":5}]}]`
	if err := os.WriteFile(locomoFile, []byte(conv), 0o644); err != nil {
		t.Fatal(err)
	}
	beamDir = filepath.Join(dir, "beam")
	if err := os.Mkdir(beamDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"1", "2"} {
		msgs := `{"session":"b1","time":"2024-03-15T09:00:00Z","role":"user","speaker":"Cy","text":"I deploy the budget tracker with Docker on Fridays.","ref":"100K-` + n + `-0"}` + "\n" +
			`{"session":"b1","time":"2024-03-15T09:01:00Z","role":"assistant","speaker":"assistant","text":"Here is a Dockerfile for the tracker.","ref":"100K-` + n + `-1"}` + "\n"
		qs := `{"query":"When do I deploy the tracker?","evidence":["100K-` + n + `-0"],"category":"information_extraction","qid":"q` + n + `"}` + "\n"
		for name, body := range map[string]string{n + ".messages.jsonl": msgs, n + ".questions.jsonl": qs} {
			if err := os.WriteFile(filepath.Join(beamDir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return locomoFile, beamDir
}

// TestBenchForeign checks that --foreign asks every question of the other
// benchmark once, across the conversations in turn, and counts them apart
// from the real questions; and that a bad --foreign path is one clear line.
func TestBenchForeign(t *testing.T) {
	t.Setenv("HUIMEM_EMBEDDING_NAME", "hash")
	locomoFile, beamDir := benchData(t)
	for _, tc := range []struct {
		name      string
		args      []string
		questions int // real questions scored
		foreign   int
	}{
		{"beam asks LoCoMo's questions", []string{"beam", "--data", beamDir, "--foreign", locomoFile, "--json"}, 2, 3},
		{"locomo asks BEAM's questions", []string{"locomo", "--data", locomoFile, "--foreign", beamDir, "--json"}, 3, 2},
		{"no --foreign", []string{"beam", "--data", beamDir, "--json"}, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(t, filepath.Join(t.TempDir(), "home"), tc.args...)
			if code != 0 {
				t.Fatalf("code %d: %s", code, errs)
			}
			var rep struct {
				Questions    int     `json:"questions"`
				Foreign      int     `json:"foreign"`
				ForeignEmpty float64 `json:"foreign_empty"`
				Errors       int     `json:"errors"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if rep.Questions != tc.questions || rep.Foreign != tc.foreign || rep.Errors != 0 {
				t.Errorf("questions %d, foreign %d, errors %d; want %d, %d, 0", rep.Questions, rep.Foreign, rep.Errors, tc.questions, tc.foreign)
			}
			if rep.ForeignEmpty < 0 || rep.ForeignEmpty > 1 || (tc.foreign == 0 && rep.ForeignEmpty != 0) {
				t.Errorf("foreign_empty %v", rep.ForeignEmpty)
			}
		})
	}
	_, errs, code := run(t, t.TempDir(), "beam", "--data", beamDir, "--foreign", filepath.Join(t.TempDir(), "missing.json"))
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "--foreign") {
		t.Errorf("missing --foreign file: code %d, %q", code, errs)
	}
}
