package engine

import (
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// TestScanShowsHitsByRelevance: a vague phrase's scan gathers this week's
// hits first, but last week's turn that answers the question is shown
// before this week's that only shares some of its words.
func TestScanShowsHitsByRelevance(t *testing.T) {
	e := openTest(t)
	ingest(t, e, []core.Message{
		msg("a", time.Date(2023, 4, 28, 14, 0, 0, 0, cst), core.RoleUser, "我非常喜欢户外活动，最近我在计划去新西兰玩儿，看冰川。"),
		msg("a", time.Date(2023, 4, 28, 14, 1, 0, 0, cst), core.RoleAssistant, "新西兰的自然景色很壮观。"),
		msg("b", time.Date(2023, 5, 3, 14, 0, 0, 0, cst), core.RoleUser, "我计划去一些其他的博物馆。"),
		msg("b", time.Date(2023, 5, 3, 14, 1, 0, 0, cst), core.RoleAssistant, "祝你顺利！"),
	})
	res, err := e.Recall(t.Context(), core.Query{Text: "我最近计划去哪个国家玩？", TopK: 2, Now: time.Date(2023, 5, 7, 15, 0, 0, 0, cst)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ScannedWeeks) != 2 || len(res.Hits) != 2 {
		t.Fatalf("scanned %v, %d hits; want two weeks and two hits", res.ScannedWeeks, len(res.Hits))
	}
	if res.Hits[0].Session != "a" || res.Hits[0].Relevance <= res.Hits[1].Relevance {
		t.Errorf("hits %s (relevance %.3f), %s (%.3f); want last week's answer first", res.Hits[0].Session, res.Hits[0].Relevance, res.Hits[1].Session, res.Hits[1].Relevance)
	}
}
