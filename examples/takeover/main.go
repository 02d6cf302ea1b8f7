package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
	"github.com/huimemory/huimemory/core/kernel"
	"github.com/huimemory/huimemory/core/tools"
	"github.com/huimemory/huimemory/plugins/host"
)

func main() {
	home := flag.String("home", "", "HuiMemory home (default: a scratch directory, removed afterwards)")
	budget := flag.Int("budget", 3000, "token budget of the assembled context")
	asJSON := flag.Bool("json", false, "print the assembled context as JSON")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *home, *budget, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "takeover:", err)
		os.Exit(1)
	}
}

// script is the conversation: three sessions of user messages and the
// assistant's replies, a day apart.
var script = []struct {
	session string
	turns   [][2]string // user, assistant
}{
	{"s1-moving", [][2]string{
		{"I just moved to Lisbon and I'm allergic to peanuts, so keep that in mind for recipes.", "Welcome to Lisbon! I'll leave peanuts out of every recipe."},
		{"我下个月想去波尔图玩两天。", "好的，波尔图两天可以去里贝拉和莱罗书店。"},
	}},
	{"s2-work", [][2]string{
		{"Our deployment moved to Friday because the staging cluster ran out of GPU memory.", "Noted: Friday deployment, and watch the staging GPU memory."},
	}},
	{"s3-dinner", [][2]string{
		{"Any ideas for dinner recipes? Remember what I'm allergic to.", ""}, // the question to answer
	}},
}

func run(ctx context.Context, w io.Writer, home string, budget int, asJSON bool) error {
	if home == "" {
		dir, err := os.MkdirTemp("", "huimem-takeover-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		home = dir
	}
	mem, err := host.Open(ctx, core.Config{Storage: core.StorageConfig{Home: home}}, engine.Options{}, host.Options{})
	if err != nil {
		return err
	}
	defer mem.Close()

	// The kernel over one namespace; the zero takeover config means the
	// defaults (budget 8000, memory 30%, profile 10%, o200k_base).
	k, err := kernel.New(mem, kernel.Options{Tools: tools.Options{Namespace: "demo"}})
	if err != nil {
		return err
	}

	// The host appends every message and keeps nothing itself.
	at := time.Date(2026, 11, 2, 19, 0, 0, 0, time.UTC)
	var question string
	for day, s := range script {
		for i, t := range s.turns {
			when := at.AddDate(0, 0, day).Add(time.Duration(i) * 10 * time.Minute)
			if _, _, err := k.Append(ctx, s.session, kernel.Message{Role: "user", Text: t[0], Time: when}); err != nil {
				return err
			}
			if t[1] == "" {
				question = t[0]
				continue
			}
			if _, _, err := k.Append(ctx, s.session, kernel.Message{Role: "assistant", Text: t[1], Time: when.Add(time.Minute)}); err != nil {
				return err
			}
		}
	}

	// Session 3: the exact messages to send to the LLM for the question.
	a, err := k.Context(ctx, "s3-dinner", question, budget)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(a)
	}
	for _, m := range a.Messages {
		fmt.Fprintf(w, "--- %s ---\n%s\n", m.Role, m.Content)
	}
	fmt.Fprintf(w, "--- tools ---\n")
	for _, t := range a.Tools {
		fn, _ := t["function"].(map[string]any)
		fmt.Fprintf(w, "%v\n", fn["name"])
	}
	u := a.Tokens
	fmt.Fprintf(w, "--- tokens ---\nbudget %d, total %d: system %d (rules %d, profile %d, memory %d), recent %d, user %d, tools %d\n",
		u.Budget, u.Total, u.System, u.Rules, u.Profile, u.Memory, u.Recent, u.User, u.Tools)
	fmt.Fprintf(w, "recalled %v, recent turns %d\n", a.Recalled, a.RecentTurns)
	return nil
}
