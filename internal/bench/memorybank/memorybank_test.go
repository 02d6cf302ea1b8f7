package memorybank

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixture = `{
 "王峰": {"name": "王峰", "history": {
   "2023-04-28": [{"query": "我在公园跑了半小时。", "response": "跑步很健康！"}],
   "2023-04-27": [{"query": "你好", "response": "你好，王峰"}, {"query": "推荐一档美食节目", "response": "《舌尖上的中国》"}]}},
 "李雪": {"name": "李雪", "history": {
   "2023-05-01": [{"query": "我去了厦门", "response": "鼓浪屿很美"}]}}
}`

func writeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DataFile), []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

func TestConvert(t *testing.T) {
	data, out := writeFixture(t), t.TempDir()
	qs := []Question{
		{User: "王峰", Query: "我推荐过哪档美食节目？", Evidence: []string{"王峰:2023-04-27:2:user", "王峰:2023-04-27:2:assistant"}, Category: "probing"},
		{User: "李雪", Query: "五一我去了哪里？", Evidence: []string{"李雪:2023-05-01:1:user"}, Category: "time"},
	}
	n, err := Convert(data, out, qs)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("%d users, want 2", n)
	}
	// Users in the order of their names: 李雪 sorts before 王峰.
	li, wang := readLines(t, filepath.Join(out, "1.messages.jsonl")), readLines(t, filepath.Join(out, "2.messages.jsonl"))
	if len(li) != 2 || len(wang) != 6 {
		t.Fatalf("messages: %d and %d, want 2 and 6", len(li), len(wang))
	}
	for i, c := range []struct{ ref, session, time, role, speaker, text string }{
		{"王峰:2023-04-27:1:user", "王峰:2023-04-27", "2023-04-27T14:00:00+08:00", "user", "王峰", "你好"},
		{"王峰:2023-04-27:1:assistant", "王峰:2023-04-27", "2023-04-27T14:01:00+08:00", "assistant", "AI伴侣", "你好，王峰"},
		{"王峰:2023-04-27:2:user", "王峰:2023-04-27", "2023-04-27T14:02:00+08:00", "user", "王峰", "推荐一档美食节目"},
		{"王峰:2023-04-27:2:assistant", "王峰:2023-04-27", "2023-04-27T14:03:00+08:00", "assistant", "AI伴侣", "《舌尖上的中国》"},
		{"王峰:2023-04-28:1:user", "王峰:2023-04-28", "2023-04-28T14:00:00+08:00", "user", "王峰", "我在公园跑了半小时。"},
	} {
		m := wang[i]
		if m["ref"] != c.ref || m["session"] != c.session || m["time"] != c.time || m["role"] != c.role || m["speaker"] != c.speaker || m["text"] != c.text {
			t.Errorf("message %d: %v, want %+v", i, m, c)
		}
	}
	q := readLines(t, filepath.Join(out, "2.questions.jsonl"))
	if len(q) != 1 || q[0]["query"] != qs[0].Query || q[0]["qid"] != "王峰-1" || q[0]["category"] != "probing" {
		t.Errorf("王峰's questions: %v", q)
	}
}

func TestConvertErrors(t *testing.T) {
	data := writeFixture(t)
	for _, c := range []struct {
		name string
		qs   []Question
		data string
		want string
	}{
		{"unknown ref", []Question{{User: "王峰", Query: "q", Evidence: []string{"王峰:2023-04-27:9:user"}, Category: "probing"}}, data, `evidence "王峰:2023-04-27:9:user" is no message`},
		{"unknown user", []Question{{User: "张三", Query: "q", Evidence: []string{"张三:2023-04-27:1:user"}, Category: "probing"}}, data, "question 1"},
		{"no data", nil, t.TempDir(), DataFile},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Convert(c.data, t.TempDir(), c.qs)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}

func TestParseQuestions(t *testing.T) {
	ok := `{"user":"王峰","query":"q","evidence":["r"],"category":"time"}`
	for _, c := range []struct{ in, want string }{
		{ok + "\n\n" + `{"user":"王峰","query":"q","evidence":["r"]}`, "questions.jsonl:3: no category"},
		{ok + "\n" + `{"user":"","query":"q","evidence":["r"],"category":"x"}`, "questions.jsonl:2: no user"},
		{`{"user":"a","query":" ","evidence":["r"],"category":"x"}`, "questions.jsonl:1: empty query"},
		{`{"user":"a","query":"q","evidence":[],"category":"x"}`, "questions.jsonl:1: no evidence"},
		{`{"user":"a","query":"q","evidence":["r"],"category":"x","answer":"y"}`, "questions.jsonl:1:"},
		{`{"user":"a",`, "questions.jsonl:1:"},
	} {
		if _, err := ParseQuestions([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseQuestions(%q): error %v, want %q", c.in, err, c.want)
		}
	}
}

// The labelled set holds every kind of question the dev set promises.
func TestLabelled(t *testing.T) {
	qs, err := Labelled()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 250 {
		t.Errorf("%d questions, want at least 250", len(qs))
	}
	count := map[string]int{}
	seen := map[string]bool{}
	for _, q := range qs {
		count[q.Category]++
		if key := q.User + "\x00" + q.Query; seen[key] {
			t.Errorf("%s asks %q twice", q.User, q.Query)
		} else {
			seen[key] = true
		}
		for _, r := range q.Evidence {
			if !strings.HasPrefix(r, q.User+":") {
				t.Errorf("%s's question %q has evidence %q of another user", q.User, q.Query, r)
			}
		}
	}
	for _, c := range []string{"probing", "time", "chatty", "traditional", "mixed", "assistant"} {
		if count[c] < 20 {
			t.Errorf("%d %s questions, want at least 20", count[c], c)
		}
	}
}

// With the MemoryBank data beside the repository, every label names a
// message of the chats.
func TestLabelledAgainstData(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "bench", "memorybank-zh")
	if _, err := os.Stat(filepath.Join(dir, DataFile)); err != nil {
		t.Skipf("no MemoryBank data at %s", dir)
	}
	qs, err := Labelled()
	if err != nil {
		t.Fatal(err)
	}
	n, err := Convert(dir, t.TempDir(), qs)
	if err != nil {
		t.Fatal(err)
	}
	if n != 15 {
		t.Errorf("%d users, want 15", n)
	}
}
