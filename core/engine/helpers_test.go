package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

var cst = time.FixedZone("CST", 8*3600)

// openTest opens an engine on a fresh home.
func openTest(t testing.TB, mutate ...func(*core.Config)) *Engine {
	t.Helper()
	return openHome(t, t.TempDir(), mutate...)
}

func openHome(t testing.TB, home string, mutate ...func(*core.Config)) *Engine {
	t.Helper()
	cfg := core.Config{}
	cfg.Storage.Home = home
	for _, m := range mutate {
		m(&cfg)
	}
	e, err := openWith(t, cfg, Options{Logf: t.Logf})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func msg(session string, at time.Time, role core.Role, text string) core.Message {
	return core.Message{Session: session, Time: at, Role: role, Text: text}
}

// words used by the synthetic corpus.
var (
	enWords = []string{"deploy", "model", "memory", "kyoto", "temple", "budget", "invoice", "server", "latency",
		"garden", "coffee", "python", "golang", "index", "search", "vector", "meeting", "travel", "ticket", "doctor",
		"flight", "hotel", "concert", "guitar", "painting", "recipe", "marathon", "bicycle", "camera", "novel"}
	zhWords = []string{"部署", "模型", "记忆", "旅行", "预算", "会议", "咖啡", "服务器", "延迟", "花园",
		"检索", "向量", "医生", "航班", "酒店", "音乐", "吉他", "绘画", "菜谱", "马拉松"}
)

// corpus makes a seeded synthetic conversation corpus of n exchange pairs
// (2n messages) over sessions of perSession pairs, one session a day,
// starting at start.
func corpus(seed uint64, n, perSession int, start time.Time) []core.Message {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	msgs := make([]core.Message, 0, 2*n)
	sentence := func() string {
		s := ""
		for i := 0; i < 8+r.IntN(8); i++ {
			if r.IntN(3) == 0 {
				s += zhWords[r.IntN(len(zhWords))]
			} else {
				s += " " + enWords[r.IntN(len(enWords))]
			}
		}
		return s
	}
	for i := 0; i < n; i++ {
		sess := i / perSession
		at := start.Add(time.Duration(sess)*24*time.Hour + time.Duration(i%perSession)*2*time.Minute)
		id := fmt.Sprintf("s%05d", sess)
		msgs = append(msgs,
			msg(id, at, core.RoleUser, fmt.Sprintf("q%d: %s?", i, sentence())),
			msg(id, at.Add(time.Minute), core.RoleAssistant, fmt.Sprintf("a%d: %s.", i, sentence())))
	}
	return msgs
}
