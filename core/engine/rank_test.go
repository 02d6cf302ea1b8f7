package engine

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
)

var updateRanking = flag.Bool("update", false, "rewrite the ranking golden files under testdata/ranking")

// rankingQueries are asked of the quickstart conversation; the golden
// files pin their top hits.
var rankingQueries = []string{
	"本地模型部署",
	"Ollama 还是 vLLM",
	"显卡显存",
	"Kyoto temples",
	"trip budget",
	"what did we decide about the database?",
	"zebra quantum xylophone",
}

// TestRankingGolden pins the top hits of a fixed set of queries on the
// quickstart conversation, for score fusion and for rank fusion. A change
// meant to move them is accepted with go test -run TestRankingGolden -update.
func TestRankingGolden(t *testing.T) {
	for _, fusion := range []string{"score", "rrf"} {
		t.Run(fusion, func(t *testing.T) {
			e := openTest(t, func(c *core.Config) { c.Retriever.Fusion = fusion })
			if _, err := e.IngestFile(t.Context(), filepath.Join("..", "..", "examples", "quickstart", "conversation.jsonl"), FileOptions{}); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			now := time.Date(2026, 4, 1, 0, 0, 0, 0, cst)
			for _, q := range rankingQueries {
				res, err := e.Recall(t.Context(), core.Query{Text: q, TopK: 3, Now: now, NoTime: true})
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				fmt.Fprintf(&b, "query %q\n", q)
				for i, h := range res.Hits {
					fmt.Fprintf(&b, "  %d %-28s score %.4f  vector %.4f  bm25 %.4f  relevance %.4f\n",
						i+1, strings.Join(h.Refs(), ","), h.Score, h.Scores.Vector, h.Scores.BM25, h.Relevance)
				}
			}
			path := filepath.Join("testdata", "ranking", fusion+".golden")
			if *updateRanking {
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("ranking changed (-want +got); accept with -update:\n%s", diff)
			}
		})
	}
}

func TestSanitizeQuery(t *testing.T) {
	longQ := "Considering my form validation code, the lazy loading setup, the anonymised analytics tracking and the bounce rate monitoring " +
		"that we discussed over the last weeks, how can I estimate the combined impact on user experience and on site performance?"
	prompt := strings.Repeat("You are a helpful assistant. Follow the rules below carefully. ", 5)
	longPara := strings.Repeat("word ", 130) + "and which GPU did I buy?"
	tests := []struct {
		name, in, want string
	}{
		{"short passes", "what did we decide about the database?", "what did we decide about the database?"},
		{"short statement passes", "Kyoto temples", "Kyoto temples"},
		{"last question", prompt + "Is this fine? User: When did Alice renew her passport?", "When did Alice renew her passport?"},
		{"question then instruction", prompt + "\nWhich GPU did I buy? Answer briefly.", "Which GPU did I buy?"},
		{"chinese question", prompt + "\n用户：我上周三下午说的数据库方案是什么？", "我上周三下午说的数据库方案是什么？"},
		{"last meaningful sentence", prompt + "\nTell me about the trip to Kyoto. ok.", "Tell me about the trip to Kyoto."},
		{"version numbers do not split", prompt + "\nWhat changed in v1.2 of the plugin?", "What changed in v1.2 of the plugin?"},
		{"tail", strings.Repeat("x", 250), strings.Repeat("x", 200)},
		{"long question kept whole", longQ, longQ},
		{"long question after a prompt", prompt + "\nUser: " + longQ, longQ},
		{"the message after a blank line", prompt + "\n\nUser: I'm building a portfolio site with About and Projects sections. Can you help with the layout?",
			"I'm building a portfolio site with About and Projects sections. Can you help with the layout?"},
		{"a chinese message after a blank line", prompt + "\n\n用户：我们上次选了哪个数据库。为什么？", "我们上次选了哪个数据库。为什么？"},
		{"a last paragraph too short to be a message", prompt + "\nWhich GPU did I buy?\n\nok", "Which GPU did I buy?"},
		// Its one question, of 674 characters, keeps its last 600, trimmed.
		{"a last paragraph too long", prompt + "\n\n" + longPara, strings.TrimSpace(longPara[len(longPara)-600:])},
		{"very long question keeps its end", strings.Repeat("word ", 150) + "ok?", strings.TrimSpace(strings.Repeat("word ", 150)[750-597:]) + " ok?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, sanitizeQuery(tt.in)); diff != "" {
				t.Errorf("sanitizeQuery (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzSanitizeQuery(f *testing.F) {
	f.Add("what did we decide?")
	f.Add(strings.Repeat("规则。", 80) + "我的护照什么时候到期？")
	f.Add(strings.Repeat("a. ", 100))
	f.Fuzz(func(t *testing.T, q string) {
		got := sanitizeQuery(q)
		if len([]rune(q)) <= maxCleanQuery && got != q {
			t.Fatalf("short query changed: %q -> %q", q, got)
		}
		if n := len([]rune(got)); n > max(maxCleanQuery, len([]rune(q))) {
			t.Fatalf("result of %d characters", n)
		}
	})
}

// TestRelevanceFloor checks that the floor empties a query about nothing in
// a large enough memory and keeps one about something in it.
func TestRelevanceFloor(t *testing.T) {
	e := openTest(t)
	msgs := corpus(7, 600, 20, time.Date(2026, 1, 5, 9, 0, 0, 0, cst))
	if _, err := e.Ingest(t.Context(), msgs); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"kyoto temple budget", true},
		{"zebra quantum xylophone", false},
		{"what did I say about the narwhal", false},
	} {
		res, err := e.Recall(t.Context(), core.Query{Text: tt.q, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Hits) > 0; got != tt.want {
			t.Errorf("%q: found %v (%d hits), want %v", tt.q, got, len(res.Hits), tt.want)
		}
		for _, h := range res.Hits {
			if h.Relevance < 0 || h.Relevance > 1 {
				t.Errorf("%q: hit %s relevance %v outside [0,1]", tt.q, h.ID, h.Relevance)
			}
		}
	}
}

// TestFloorSimilarity checks that retriever.floor_similarity moves the
// floor's decision by the best hit's cosine, both ways, and that hash, an
// embedder without a calibration, leaves it to relevance under auto.
func TestFloorSimilarity(t *testing.T) {
	msgs := corpus(7, 600, 20, time.Date(2026, 1, 5, 9, 0, 0, 0, cst))
	for _, tt := range []struct {
		setting   string
		vecWeight float64
		want      map[string]bool // query → found
	}{
		{"auto", 0, map[string]bool{"kyoto temple budget": true, "what did I say about the narwhal": false}},
		{"off", 0, map[string]bool{"kyoto temple budget": true, "what did I say about the narwhal": false}},
		// A centre far below any cosine lifts every query over the floor.
		{"2,-0.9", 0, map[string]bool{"kyoto temple budget": true, "what did I say about the narwhal": true}},
		// A centre above any hash cosine sinks even a query whose words
		// the memory holds.
		{"3,0.99", 0, map[string]bool{"kyoto temple budget": false, "what did I say about the narwhal": false}},
		// Without the vector signal there are no cosines: relevance alone.
		{"3,0.99", -1, map[string]bool{"kyoto temple budget": true, "what did I say about the narwhal": false}},
	} {
		t.Run(fmt.Sprintf("%s/vector=%v", tt.setting, tt.vecWeight >= 0), func(t *testing.T) {
			e := openTest(t, func(c *core.Config) {
				c.Retriever.FloorSimilarity = tt.setting
				if tt.vecWeight < 0 {
					c.Retriever.VectorWeight, c.Retriever.BM25Weight = 0, 1
				}
			})
			if _, err := e.Ingest(t.Context(), msgs); err != nil {
				t.Fatal(err)
			}
			for q, want := range tt.want {
				res, err := e.Recall(t.Context(), core.Query{Text: q, TopK: 5})
				if err != nil {
					t.Fatal(err)
				}
				if got := len(res.Hits) > 0; got != want {
					t.Errorf("%q: found %v (%d hits), want %v", q, got, len(res.Hits), want)
				}
			}
		})
	}
}

// TestFloorReadsThePool checks that the relevance floor looks past the
// hits: a query whose hits fall short of it still finds something when
// another candidate of its pool reaches it, and nothing when none does.
// With a similarity calibration (floor_similarity), each candidate past
// the hits must reach the floor by its own relevance and similarity.
func TestFloorReadsThePool(t *testing.T) {
	msgs := corpus(7, 600, 20, time.Date(2026, 1, 5, 9, 0, 0, 0, cst))
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, cst)
	msgs = append(msgs,
		msg("s-short", at, core.RoleUser, "zorblax"),
		msg("s-long", at.Add(time.Hour), core.RoleUser, "quillet marmalune tangerow saffrock and a zorblax"),
	)
	const text = "zorblax quillet marmalune tangerow saffrock"
	type c struct {
		name string
		cos  float64
	}
	for _, tt := range []struct {
		name  string
		sim   string // floor_similarity
		cands []c
		found bool
	}{
		{"the hit holds the subject alone", "off", []c{{"short", 0}}, false},
		{"another candidate holds the rest", "off", []c{{"short", 0}, {"long", 0}}, true},
		{"the hit holds it all", "off", []c{{"long", 0}, {"short", 0}}, true},
		{"nothing else holds a word", "off", []c{{"short", 0}, {"other", 0}}, false},
		// relevance + 2 × (cosine − 0.4) ≥ 0.3; short's relevance is 0.2,
		// other's 0.
		{"the hit's meaning lifts it", "2,0.4", []c{{"short", 0.5}}, true},
		{"another's meaning alone", "2,0.4", []c{{"short", 0.3}, {"other", 0.56}}, true},
		{"one's words and another's meaning", "2,0.4", []c{{"short", 0.3}, {"other", 0.5}}, false},
		{"a candidate's own words and meaning", "2,0.4", []c{{"short", 0.3}, {"long", 0.2}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := openTest(t, func(cfg *core.Config) { cfg.Retriever.FloorSimilarity = tt.sim })
			ingest(t, e, msgs)
			ids := map[string]string{}
			for name, q := range map[string]string{"short": "zorblax", "long": "quillet marmalune", "other": "kyoto temple"} {
				res, err := e.Recall(t.Context(), core.Query{Text: q, TopK: 1, NoTime: true})
				if err != nil || len(res.Hits) != 1 {
					t.Fatalf("%q: %v, %d hits", q, err, len(res.Hits))
				}
				ids[name] = res.Hits[0].ID
			}
			e.ixMu.RLock()
			defer e.ixMu.RUnlock()
			ix, err := e.indexReady()
			if err != nil {
				t.Fatal(err)
			}
			cands := make([]cand, len(tt.cands))
			for i, c := range tt.cands {
				// vRank: the candidates come from the vector scan too, so
				// the query has a vector the calibration can read.
				cands[i] = cand{id: ids[c.name], cos: c.cos, vRank: i + 1}
			}
			hits, err := e.read.withRelevance(t.Context(), ix, text, cands, 1, 0.3, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(hits) > 0; got != tt.found {
				t.Errorf("found %v, want %v", got, tt.found)
			}
			if len(hits) > 1 || len(hits) == 1 && hits[0].id != cands[0].id {
				t.Errorf("hits %v, want the first candidate alone", hits)
			}
			if len(hits) == 1 && hits[0].id == ids["short"] && math.Abs(hits[0].rel-0.2) > 0.05 {
				t.Errorf("the short hit's relevance is %v, want about 0.2 (one of five rare terms)", hits[0].rel)
			}
		})
	}
}
