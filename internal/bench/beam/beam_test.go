package beam

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"10", "2"} {
		write(t, dir, n+".messages.jsonl",
			`{"session":"b1","time":"2024-03-15T09:00:00Z","role":"user","speaker":"Ann","text":"I adopted a cat","ref":"100K-`+n+`-0"}`+"\n"+
				`{"session":"b1","time":"2024-03-15T09:01:00Z","role":"assistant","speaker":"assistant","text":"Congratulations","ref":"100K-`+n+`-1"}`+"\n")
		write(t, dir, n+".questions.jsonl", `{"query":"What pet did I adopt?","evidence":["100K-`+n+`-0"],"category":"information_extraction","qid":"q`+n+`"}`+"\n\n")
	}
	chats, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range chats {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]string{"2", "10"}, ids); diff != "" {
		t.Errorf("chat order (-want +got):\n%s", diff)
	}
	c := chats[0]
	if c.Messages != 2 || len(c.Questions) != 1 || !c.Now().Equal(time.Date(2024, 3, 16, 9, 1, 0, 0, time.UTC)) {
		t.Errorf("chat 2: %d messages, %d questions, now %v", c.Messages, len(c.Questions), c.Now())
	}
	if diff := cmp.Diff([]string{"100K-2-0"}, c.Questions[0].Evidence); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tt := range []struct{ name, msgs, qs, want string }{
		{"bad json", "{\"time\":\"2024-03-15T09:00:00Z\"}\nnot json\n", "", "1.messages.jsonl:2:"},
		{"bad time", `{"time":"yesterday","text":"x"}` + "\n", "", `bad time "yesterday"`},
		{"empty query", `{"time":"2024-03-15T09:00:00Z","text":"x"}` + "\n", `{"query":" "}` + "\n", "1.questions.jsonl:1: empty query"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "1.messages.jsonl", tt.msgs)
			write(t, dir, "1.questions.jsonl", tt.qs)
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no *.messages.jsonl") {
		t.Errorf("empty folder: %v", err)
	}
}
