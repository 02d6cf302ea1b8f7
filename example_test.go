package huimemory_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/huimemory/huimemory"
)

// tokyo is the offset the sample conversation happened in.
var tokyo = time.FixedZone("JST", 9*3600)

// at is a time of the sample conversation.
func at(day, hour, minute int) time.Time { return time.Date(2026, 4, day, hour, minute, 0, 0, tokyo) }

// conversation is the sample the examples store: a trip to Kyoto in three
// turns, and a deployment problem in one.
var conversation = []huimemory.Message{
	{Session: "kyoto", Time: at(1, 10, 0), Role: huimemory.RoleUser, Speaker: "Alice", Text: "I prefer quiet temples to crowded shrines."},
	{Session: "kyoto", Time: at(1, 10, 1), Role: huimemory.RoleAssistant, Text: "Then start at Honen-in early in the morning, before the tour groups."},
	{Session: "kyoto", Time: at(1, 10, 5), Role: huimemory.RoleUser, Speaker: "Alice", Text: "Book a ryokan near Gion for April 3 to April 7."},
	{Session: "kyoto", Time: at(1, 10, 6), Role: huimemory.RoleAssistant, Text: "Booked: Gion Hatanaka, four nights, breakfast included."},
	{Session: "kyoto", Time: at(1, 10, 10), Role: huimemory.RoleUser, Speaker: "Alice", Text: "What is the budget for the whole trip?"},
	{Session: "kyoto", Time: at(1, 10, 11), Role: huimemory.RoleAssistant, Text: "About 180,000 yen, two thirds of it for the ryokan."},
	{Session: "deploy", Time: at(8, 15, 20), Role: huimemory.RoleUser, Speaker: "Alice", Text: "Ollama keeps failing with CUDA out of memory on the 4090."},
	{Session: "deploy", Time: at(8, 15, 22), Role: huimemory.RoleAssistant, Text: "Lower the context from 32k to 8k, or use the Q4_K_M quantisation."},
}

// sample opens a memory in a scratch folder, in the UTC time zone, with
// the sample conversation in it. The caller calls done.
func sample() (mem *huimemory.Memory, done func()) {
	dir, err := os.MkdirTemp("", "huimemory-example-")
	if err != nil {
		panic(err)
	}
	mem, err = huimemory.Open(dir, &huimemory.Options{Config: &huimemory.Config{Time: huimemory.TimeConfig{Zone: "UTC"}}})
	if err != nil {
		panic(err)
	}
	if _, err := mem.Append(context.Background(), conversation...); err != nil {
		panic(err)
	}
	return mem, func() { mem.Close(); os.RemoveAll(dir) }
}

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "huimemory-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// nil options: the built-in hash embedder and turn chunker, in this
	// process, no network. The folder is created on first use.
	mem, err := huimemory.Open(dir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := mem.Append(ctx, conversation[2:4]...); err != nil {
		fmt.Println(err)
		return
	}
	mem.Close()

	// The memory is on disk: open it again and recall.
	mem, err = huimemory.Open(dir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mem.Close()
	res, err := mem.Recall(ctx, huimemory.Query{Text: "ryokan"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res.Hits), res.Hits[0].Messages[1].Text)
	fmt.Println(mem.Engine().EmbedderInfo().Name)
	// Output:
	// 1 Booked: Gion Hatanaka, four nights, breakfast included.
	// hash
}

func ExampleMemory_Recall() {
	mem, done := sample()
	defer done()
	ctx := context.Background()

	// Keyword and meaning; each hit is a turn, with an anchor.
	res, err := mem.Recall(ctx, huimemory.Query{Text: "where do we stay in Gion?", TopK: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range res.Hits {
		fmt.Println(h.Session, h.Time.Format(time.DateTime), h.Messages[0].Text)
	}

	// A time phrase is resolved against Now, in the configured zone (UTC
	// here), and searched as a window; Context adds the neighbouring turns.
	res, err = mem.Recall(ctx, huimemory.Query{Text: "what failed last week?", Now: at(14, 12, 0), Context: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("searched %q: %s .. %s\n", res.ResolvedTime.Text,
		res.ResolvedTime.Start.Format(time.DateTime), res.ResolvedTime.End.Format(time.DateTime))
	for _, h := range res.Hits {
		fmt.Println(h.ContextRole, h.Session, h.Messages[0].Text)
	}
	// Output:
	// kyoto 2026-04-01 10:05:00 Book a ryokan near Gion for April 3 to April 7.
	// searched "last week": 2026-04-06 00:00:00 .. 2026-04-13 00:00:00
	// hit deploy Ollama keeps failing with CUDA out of memory on the 4090.
}

func ExampleMemory_Get() {
	mem, done := sample()
	defer done()
	ctx := context.Background()

	res, err := mem.Recall(ctx, huimemory.Query{Text: "ryokan near Gion", TopK: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	hit := res.Hits[0]

	// recall_by_id: walk to the turn before the hit, by its prev id...
	prev, err := mem.Get(ctx, hit.Prev, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(prev[0].Messages[0].Text)
	fmt.Println(prev[0].Next == hit.ID)

	// ...or take the hit with one turn on each side.
	around, err := mem.Get(ctx, hit.ID, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range around {
		fmt.Println(h.ContextRole, h.Messages[0].Text)
	}

	// An unknown id is ErrNotFound.
	_, err = mem.Get(ctx, "zzzzzz", 0)
	fmt.Println(errors.Is(err, huimemory.ErrNotFound))
	// Output:
	// I prefer quiet temples to crowded shrines.
	// true
	// neighbor I prefer quiet temples to crowded shrines.
	// hit Book a ryokan near Gion for April 3 to April 7.
	// neighbor What is the budget for the whole trip?
	// true
}

func ExampleMemory_Append() {
	dir, err := os.MkdirTemp("", "huimemory-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	mem, err := huimemory.Open(dir, &huimemory.Options{Namespace: "alice"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mem.Close()
	ctx := context.Background()

	// Messages are stored verbatim, all or none, and cut into turn chunks:
	// a user message and the replies that follow it.
	r, err := mem.Append(ctx, conversation...)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("added %d of %d messages: %d chunks in %d sessions\n", r.Added, r.Messages, r.Chunks, r.Sessions)

	// The same messages again are stored once.
	r, err = mem.Append(ctx, conversation[:2]...)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("added %d, %d duplicates\n", r.Added, r.Duplicates)

	// A message without text is refused, and nothing is stored.
	_, err = mem.Append(ctx, huimemory.Message{Session: "kyoto", Time: at(2, 9, 0), Role: huimemory.RoleUser})
	fmt.Println(err)
	// Output:
	// added 8 of 8 messages: 4 chunks in 2 sessions
	// added 0, 2 duplicates
	// message 1: invalid input: missing text
}

func ExampleMemory_Ingest() {
	dir, err := os.MkdirTemp("", "huimemory-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	mem, err := huimemory.Open(dir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mem.Close()
	ctx := context.Background()

	// Any format huimem ingest reads; the format is detected.
	const file = "examples/quickstart/conversation.jsonl"
	r, err := mem.Ingest(ctx, file)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (%s): %d messages, %d new, %d chunks\n", r.Status, r.Format, r.Messages, r.Added, r.Chunks)

	// The file is tracked: unchanged, it is skipped.
	r, err = mem.Ingest(ctx, file)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status)
	// Output:
	// new (jsonl): 22 messages, 22 new, 11 chunks
	// unchanged
}

func ExampleMemory_Forget() {
	mem, done := sample()
	defer done()
	ctx := context.Background()

	// A dry run says what would go, and changes nothing.
	r, err := mem.Forget(ctx, huimemory.ForgetOptions{Session: "deploy", DryRun: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range r.Messages {
		fmt.Println(m.Role, m.Preview)
	}

	// Then forget for good: the text leaves every file of the memory.
	r, err = mem.Forget(ctx, huimemory.ForgetOptions{Session: "deploy"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Sessions, r.SessionsRemoved, r.ChunksRemoved)
	_, err = mem.Get(ctx, r.Chunks[0], 0)
	fmt.Println(errors.Is(err, huimemory.ErrNotFound))
	// Output:
	// user Ollama keeps failing with CUDA out of memory on the 4090.
	// assistant Lower the context from 32k to 8k, or use the Q4_K_M quantisa…
	// [deploy] 1 1
	// true
}

func ExampleMemory_Export() {
	mem, done := sample()
	defer done()

	// JSON Lines, the format Ingest reads back into the same chunks.
	n, err := mem.Export(context.Background(), os.Stdout, huimemory.ExportOptions{Session: "deploy"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n, "messages")
	// Output:
	// {"session":"deploy","time":"2026-04-08T15:20:00+09:00","role":"user","speaker":"Alice","text":"Ollama keeps failing with CUDA out of memory on the 4090."}
	// {"session":"deploy","time":"2026-04-08T15:22:00+09:00","role":"assistant","text":"Lower the context from 32k to 8k, or use the Q4_K_M quantisation."}
	// 2 messages
}

func ExampleMemory_Tools() {
	mem, done := sample()
	defer done()
	d := mem.Tools()

	// The tools an LLM gets; tools.Schemas(d.Tools(), tools.FormatOpenAI)
	// gives their schemas.
	var names []string
	for _, t := range d.Tools() {
		names = append(names, t.Name)
	}
	fmt.Println(strings.Join(names, " "))

	// One tool call, as the LLM made it; the text is what it reads.
	text, err := d.Dispatch(context.Background(), "recall_memory", `{"query":"CUDA out of memory","top_k":1}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for line := range strings.Lines(text) {
		fmt.Println(strings.TrimRight(line, " \n")) // trailing spaces trimmed for the example
	}
	// Output:
	// recall_memory recall_by_id remember list_sessions memory_stats resolve_time export_session forget_memory
	// Found 1 memory for "CUDA out of memory" (searched all of memory).
	//
	// [id:cctcjq | prev: - | next: - | 相似度: 1.000 | 相关度: 1.000]
	// 📁 2026-W15/2026-04-08/chat_deploy.md:L9-L13 | 话题: - | 2026-04-08 Wed 15:20:00
	//    9 | ### Alice (user) · 2026-04-08 Wed 15:20:00 +09:00
	//   10 | Ollama keeps failing with CUDA out of memory on the 4090.
	//   11 |
	//   12 | ### assistant · 2026-04-08 Wed 15:22:00 +09:00
	//   13 | Lower the context from 32k to 8k, or use the Q4_K_M quantisation.
	//
	// To read the turn before or after one of these, call recall_by_id with its prev or next id. Cite the ids you use.
}
