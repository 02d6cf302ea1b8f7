package contract

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
)

// bilingual is a small conversation in Chinese and English: s1 has four
// exchanges (turn chunks), s2, a day later, one.
func bilingual(ns string) []core.Message {
	base := time.Date(2026, 3, 5, 2, 0, 7, 0, time.UTC)
	m := func(s string, min int, role core.Role, text string) core.Message {
		return core.Message{Namespace: ns, Session: s, Time: base.Add(time.Duration(min) * time.Minute), Role: role, Text: text}
	}
	return []core.Message{
		m("s1", 0, core.RoleUser, "我想在服务器上部署本地模型，用 Ollama 还是 vLLM？"),
		m("s1", 1, core.RoleAssistant, "Ollama 更容易上手，vLLM 吞吐更好。"),
		m("s1", 2, core.RoleUser, "你觉得 AI 意识 是真的存在吗？"),
		m("s1", 3, core.RoleAssistant, "关于AI意识，目前没有科学共识。"),
		m("s1", 4, core.RoleUser, "Let's plan the trip to Kyoto next spring; I prefer quiet temples."),
		m("s1", 5, core.RoleAssistant, "Noted. Cherry blossoms peak in early April."),
		m("s1", 6, core.RoleUser, "What was the budget for the marketing campaign?"),
		m("s1", 7, core.RoleAssistant, "The campaign budget was 40,000 dollars."),
		m("s2", 60*24, core.RoleUser, "Remind me to renew the passport before the trip."),
		m("s2", 60*24+1, core.RoleAssistant, "Done: renew passport before Kyoto."),
	}
}

func TestRecallFindsTheRightTurn(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		res := ingest(t, e, bilingual(""))
		if res.Added != 10 || res.Chunks != 5 || res.Sessions != 2 || res.Duplicates != 0 {
			t.Fatalf("ingest %+v, want 10 added in 5 chunks of 2 sessions", res)
		}
		for _, tt := range []struct {
			query, want string // want: prefix of the top hit's first message
		}{
			{"AI 意识", "你觉得 AI 意识"},
			{"AI意识", "你觉得 AI 意识"},
			{"本地模型部署", "我想在服务器上部署本地模型"},
			{"Kyoto temples", "Let's plan the trip to Kyoto"},
			{"how much money was budgeted for marketing?", "What was the budget"},
			{"passport renewal", "Remind me to renew the passport"},
			{"campaign budget", "What was the budget"},
		} {
			t.Run(tt.query, func(t *testing.T) {
				res := recall(t, e, core.Query{Text: tt.query, TopK: 3, Now: refNow})
				if len(res.Hits) == 0 {
					t.Fatal("no hits")
				}
				if got := res.Hits[0].Messages[0].Text; !strings.HasPrefix(got, tt.want) {
					t.Errorf("top hit %q, want prefix %q", got, tt.want)
				}
				if len(res.Hits) > 3 {
					t.Errorf("%d hits for top 3", len(res.Hits))
				}
				for i, h := range res.Hits {
					if h.ContextRole != core.RoleHit {
						t.Errorf("hit %s has role %q", h.ID, h.ContextRole)
					}
					if i > 0 && h.Score > res.Hits[i-1].Score {
						t.Errorf("hit %d scores %v, above hit %d's %v", i, h.Score, i-1, res.Hits[i-1].Score)
					}
					if h.Scores.Vector < 0 || h.Scores.Vector > 1 || h.Scores.BM25 < 0 || h.Scores.BM25 > 1 {
						t.Errorf("hit %s scores %+v outside [0, 1]", h.ID, h.Scores)
					}
				}
			})
		}
	})
}

func TestRecallTopK(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		ingest(t, e, weeklyCorpus("")) // 21 chunks about the migration
		for _, k := range []int{1, 3, 10, 21} {
			res := recall(t, e, core.Query{Text: "database migration", TopK: k, NoTime: true})
			if len(res.Hits) != k {
				t.Errorf("top %d: %d hits", k, len(res.Hits))
			}
			for _, h := range res.Hits {
				if !strings.HasSuffix(h.Session, "-wed") {
					t.Errorf("top %d: hit %s of session %s", k, h.ID, h.Session)
				}
			}
		}
		// More than there are: every match, each once.
		res := recall(t, e, core.Query{Text: "database migration", TopK: 40, NoTime: true})
		if got := sessionsOf(res.Hits); len(got) != 21 || len(res.Hits) != 21 {
			t.Errorf("top 40 of 21 matches: %d hits in %d sessions", len(res.Hits), len(got))
		}
	})
}

func TestRecallTimeWindows(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		ingest(t, e, weeklyCorpus(""))
		day := func(m time.Month, d, h int) time.Time { return time.Date(2026, m, d, h, 0, 0, 0, time.UTC) }
		t.Run("since and before", func(t *testing.T) {
			for _, tt := range []struct {
				name          string
				since, before time.Time
				want          []string
			}{
				{"one week", day(11, 16, 0), day(11, 23, 0), []string{"w01-sat", "w01-wed"}},
				{"since only", day(11, 22, 0), time.Time{}, []string{"w00-sat", "w00-wed"}},
				{"before only", time.Time{}, day(7, 12, 0), []string{"w20-sat", "w20-wed"}},
				{"before is exclusive", day(11, 18, 15), day(11, 21, 10), []string{"w01-wed"}},
				{"empty window", day(11, 19, 0), day(11, 20, 0), nil},
			} {
				t.Run(tt.name, func(t *testing.T) {
					res := recall(t, e, core.Query{Text: "database migration 红烧肉", TopK: 10, NoTime: true, Since: tt.since, Before: tt.before})
					if diff := cmp.Diff(tt.want, sessionsOf(res.Hits)); diff != "" {
						t.Errorf("sessions (-want +got):\n%s", diff)
					}
				})
			}
		})
		t.Run("time phrases", func(t *testing.T) {
			for _, tt := range []struct {
				query      string
				start, end time.Time
				text       string
				want       []string
				top        bool // want names the top hit's session only
			}{
				{"上周三下午我们讨论了什么数据库", day(11, 18, 12), day(11, 18, 18), "我们讨论了什么数据库", []string{"w01-wed"}, false},
				{"what did we say about the database migration last Wednesday afternoon?", day(11, 18, 12), day(11, 18, 18), "", []string{"w01-wed"}, false},
				{"上上周 红烧肉", day(11, 9, 0), day(11, 16, 0), "红烧肉", []string{"w02-sat"}, true},
				{"database migration in October", day(10, 1, 0), day(11, 1, 0), "", []string{"w04-wed", "w05-wed", "w06-wed", "w07-wed"}, false},
			} {
				t.Run(tt.query, func(t *testing.T) {
					res := recall(t, e, core.Query{Text: tt.query, Now: refNow, TopK: 10})
					rt := res.ResolvedTime
					if rt == nil || !rt.Start.Equal(tt.start) || !rt.End.Equal(tt.end) || rt.Fuzzy {
						t.Fatalf("resolved %+v, want [%v, %v) exact", rt, tt.start, tt.end)
					}
					if tt.text != "" && res.SearchText != tt.text {
						t.Errorf("search text %q, want %q", res.SearchText, tt.text)
					}
					for _, h := range res.Hits {
						if h.Time.Before(rt.Start) || !h.Time.Before(rt.End) {
							t.Errorf("hit %s at %v is outside [%v, %v)", h.ID, h.Time, rt.Start, rt.End)
						}
					}
					got := sessionsOf(res.Hits)
					if tt.top && len(res.Hits) > 0 {
						got = []string{res.Hits[0].Session}
					}
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("sessions (-want +got):\n%s", diff)
					}
				})
			}
		})
		t.Run("progressive scan", func(t *testing.T) {
			// 前段时间 is fuzzy: the scan goes week by week, newest first,
			// and stops once it has top_k hits (one Wednesday a week).
			var rounds []core.Round
			res := recall(t, e, core.Query{Text: "前段时间聊过的 database migration", Now: refNow, TopK: 3,
				OnRound: func(r core.Round) { rounds = append(rounds, r) }})
			if res.ResolvedTime == nil || !res.ResolvedTime.Fuzzy {
				t.Fatalf("resolved %+v, want a fuzzy range", res.ResolvedTime)
			}
			if len(res.Hits) != 3 || len(res.ScannedWeeks) != 3 || len(rounds) != 3 {
				t.Fatalf("%d hits over weeks %v (%d rounds), want 3 and 3", len(res.Hits), res.ScannedWeeks, len(rounds))
			}
			for i, h := range res.Hits {
				if i > 0 && !h.Time.Before(res.Hits[i-1].Time) {
					t.Errorf("hit %d (%v) is not older than hit %d", i, h.Time, i-1)
				}
				if rounds[i].Week != res.ScannedWeeks[i] || len(rounds[i].Hits) != 1 || rounds[i].Hits[0].ID != h.ID {
					t.Errorf("round %d: week %s with %d hits", i, rounds[i].Week, len(rounds[i].Hits))
				}
			}
		})
		t.Run("NoTime", func(t *testing.T) {
			res := recall(t, e, core.Query{Text: "上周三 数据库", Now: refNow, NoTime: true, TopK: 30})
			if res.ResolvedTime != nil || res.SearchText != "上周三 数据库" {
				t.Errorf("NoTime resolved %+v, search text %q", res.ResolvedTime, res.SearchText)
			}
			// Without NoTime the same query is bound to last Wednesday.
			res = recall(t, e, core.Query{Text: "上周三 database", Now: refNow, TopK: 30})
			if res.ResolvedTime == nil || !slices.Equal(sessionsOf(res.Hits), []string{"w01-wed"}) {
				t.Errorf("with time: resolved %+v, sessions %v", res.ResolvedTime, sessionsOf(res.Hits))
			}
			res = recall(t, e, core.Query{Text: "上周三 database", Now: refNow, NoTime: true, TopK: 30})
			if len(sessionsOf(res.Hits)) < 21 {
				t.Errorf("NoTime: %d sessions, want all 21 about the database", len(sessionsOf(res.Hits)))
			}
		})
	})
}

// filterCorpus is the weekly corpus and a session "prefs" of two
// exchanges that the general extractor types as a preference and a
// decision.
func filterCorpus() []core.Message {
	msgs := weeklyCorpus("")
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	m := func(min int, role core.Role, speaker, text string) core.Message {
		return core.Message{Session: "prefs", Time: at.Add(time.Duration(min) * time.Minute), Role: role, Speaker: speaker, Text: text}
	}
	return append(msgs,
		m(0, core.RoleUser, "Bob", "I prefer the new database over the old one."),
		m(1, core.RoleAssistant, "Helper", "Understood, the new database it is."),
		m(2, core.RoleUser, "Bob", "We decided to run the database migration on Friday."),
		m(3, core.RoleAssistant, "Helper", "Friday works for the migration."),
	)
}

func TestRecallFilters(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, withExtractors(utc(config(t))))
		ingest(t, e, filterCorpus())
		prefs, err := e.SessionTurns(t.Context(), "", "prefs", 0)
		if err != nil || len(prefs) != 2 {
			t.Fatalf("SessionTurns(prefs) = %d chunks, %v; want 2", len(prefs), err)
		}
		if !slices.Contains(prefs[0].MemoryTypes(), "preference") || !slices.Contains(prefs[1].MemoryTypes(), "decision") {
			t.Fatalf("prefs memory types %v and %v, want preference and decision", prefs[0].MemoryTypes(), prefs[1].MemoryTypes())
		}
		wed, err := e.SessionTurns(t.Context(), "", "w03-wed", 0)
		if err != nil || len(wed) != 1 || wed[0].Topic == "" {
			t.Fatalf("SessionTurns(w03-wed) = %+v, %v; want one chunk with a topic", wed, err)
		}
		var wedSessions, all []string
		for w := range 21 {
			s := "w" + string(rune('0'+w/10)) + string(rune('0'+w%10))
			wedSessions = append(wedSessions, s+"-wed")
			all = append(all, s+"-wed", s+"-sat")
		}
		all = append(all, "prefs")
		slices.Sort(wedSessions)
		slices.Sort(all)
		// topicSessions are the sessions with a chunk of w03-wed's topic.
		var topicSessions []string
		infos, err := e.Sessions(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range infos {
			turns, err := e.SessionTurns(t.Context(), "", info.Session, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range turns {
				if c.Topic == wed[0].Topic && !slices.Contains(topicSessions, info.Session) {
					topicSessions = append(topicSessions, info.Session)
				}
			}
		}
		slices.Sort(topicSessions)
		if len(topicSessions) < 21 {
			t.Fatalf("topic %q is on %v only", wed[0].Topic, topicSessions)
		}
		for _, tt := range []struct {
			filter string
			want   []string
			ids    []string // when set, the hits' ids, sorted
		}{
			{"session = 'w03-wed'", []string{"w03-wed"}, nil},
			{"timestamp >= '2026-11-16' AND timestamp <= '2026-11-22'", []string{"w01-sat", "w01-wed"}, nil},
			{"timestamp = '2026-11-25'", []string{"prefs", "w00-wed"}, nil},
			{"timestamp > '2026-11-25T09:01:00'", []string{"prefs", "w00-sat", "w00-wed"}, nil},
			{"(session = 'w01-wed' OR session = 'w02-wed') AND NOT role = 'system'", []string{"w01-wed", "w02-wed"}, nil},
			{"speaker = 'Alice' AND timestamp > '2026-11-22'", []string{"w00-sat", "w00-wed"}, nil},
			{"speaker = 'Bob'", []string{"prefs"}, nil},
			{"speaker != 'Alice'", []string{"prefs"}, nil},
			{"role = 'user' AND session = 'prefs'", []string{"prefs"}, nil},
			{"role = 'system'", nil, nil},
			{"session != 'w00-wed' AND timestamp >= '2026-11-23'", []string{"prefs", "w00-sat"}, nil},
			{"type = 'preference'", []string{"prefs"}, []string{prefs[0].ID}},
			{"type = 'DECISION'", []string{"prefs"}, []string{prefs[1].ID}},
			{"type = 'preference' OR type = 'decision'", []string{"prefs"}, sorted(prefs[0].ID, prefs[1].ID)},
			{"topic = '" + wed[0].Topic + "'", topicSessions, nil},
			{"NOT topic = '" + wed[0].Topic + "' AND timestamp >= '2026-11-16'", minus([]string{"prefs", "w00-sat", "w00-wed", "w01-sat", "w01-wed"}, topicSessions), nil},
			{"id = '" + prefs[1].ID + "'", []string{"prefs"}, []string{prefs[1].ID}},
			{"session = 'prefs' AND NOT id = '" + prefs[1].ID + "'", []string{"prefs"}, []string{prefs[0].ID}},
			{"id = '" + wed[0].ID + "' OR id = '" + prefs[0].ID + "'", []string{"prefs", "w03-wed"}, sorted(wed[0].ID, prefs[0].ID)},
			{"namespace = 'other'", nil, nil},
			{"namespace = ''", all, nil},
		} {
			t.Run(tt.filter, func(t *testing.T) {
				res := recall(t, e, core.Query{Text: "database migration 红烧肉", Filter: tt.filter, Now: refNow, TopK: 50})
				if diff := cmp.Diff(tt.want, sessionsOf(res.Hits)); diff != "" {
					t.Errorf("sessions (-want +got):\n%s", diff)
				}
				if tt.ids != nil {
					got := idsOf(res.Hits)
					slices.Sort(got)
					if diff := cmp.Diff(tt.ids, got); diff != "" {
						t.Errorf("ids (-want +got):\n%s", diff)
					}
				}
			})
		}
		if _, err := e.Recall(t.Context(), core.Query{Text: "x", Filter: "session = 'a' ANDD role = 'user'"}); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("a bad filter gives %v, want ErrInvalid", err)
		}
	})
}

func sorted(s ...string) []string { slices.Sort(s); return s }

// minus returns the elements of a not in b, in a's order; nil if none.
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func TestRecallContext(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		ingest(t, e, bilingual(""))
		ids := chains(t, e, "")["s1"]
		if len(ids) != 4 {
			t.Fatalf("s1 has %d chunks, want 4", len(ids))
		}
		type row struct {
			ID   string
			Role core.ContextRole
		}
		rows := func(hits []core.Hit) []row {
			var out []row
			for _, h := range hits {
				out = append(out, row{h.ID, h.ContextRole})
			}
			return out
		}
		hit, nb := core.RoleHit, core.RoleNeighbor
		for _, tt := range []struct {
			name  string
			query string
			n     int
			want  []row
		}{
			{"one around the third", "Kyoto temples cherry blossoms", 1, []row{{ids[1], nb}, {ids[2], hit}, {ids[3], nb}}},
			{"two around the third", "Kyoto temples cherry blossoms", 2, []row{{ids[0], nb}, {ids[1], nb}, {ids[2], hit}, {ids[3], nb}}},
			{"at the start", "Ollama vLLM", 1, []row{{ids[0], hit}, {ids[1], nb}}},
			{"at the end", "marketing campaign budget", 3, []row{{ids[0], nb}, {ids[1], nb}, {ids[2], nb}, {ids[3], hit}}},
			{"none", "marketing campaign budget", 0, []row{{ids[3], hit}}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				res := recall(t, e, core.Query{Text: tt.query, TopK: 1, Context: tt.n, NoTime: true})
				if diff := cmp.Diff(tt.want, rows(res.Hits)); diff != "" {
					t.Errorf("context (-want +got):\n%s", diff)
				}
			})
		}
		// Two hits next to each other: each appears once, as a hit.
		res := recall(t, e, core.Query{Text: "AI 意识 部署本地模型", TopK: 2, Context: 2, NoTime: true})
		seen := map[string]int{}
		hits := 0
		for _, h := range res.Hits {
			seen[h.ID]++
			if h.ContextRole == core.RoleHit {
				hits++
			}
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("chunk %s appears %d times", id, n)
			}
		}
		if hits != 2 {
			t.Errorf("%d hits, want 2", hits)
		}
		// RecallByID walks the same chains.
		for _, tt := range []struct {
			id     string
			window int
			want   []row
		}{
			{ids[0], 0, []row{{ids[0], hit}}},
			{ids[0], 1, []row{{ids[0], hit}, {ids[1], nb}}},
			{ids[2], 1, []row{{ids[1], nb}, {ids[2], hit}, {ids[3], nb}}},
			{ids[3], 50, []row{{ids[0], nb}, {ids[1], nb}, {ids[2], nb}, {ids[3], hit}}},
		} {
			got, err := e.RecallByID(t.Context(), "", tt.id, tt.window)
			if err != nil {
				t.Fatalf("RecallByID(%s, %d): %v", tt.id, tt.window, err)
			}
			if diff := cmp.Diff(tt.want, rows(got)); diff != "" {
				t.Errorf("RecallByID(%s, %d) (-want +got):\n%s", tt.id, tt.window, diff)
			}
		}
		for _, w := range []int{-1, 51} {
			if _, err := e.RecallByID(t.Context(), "", ids[0], w); !errors.Is(err, core.ErrInvalid) {
				t.Errorf("RecallByID window %d: %v, want ErrInvalid", w, err)
			}
		}
	})
}

func TestNamespacesAreIsolated(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		ingest(t, e, bilingual(""))
		ingest(t, e, bilingual("bob")) // the same sessions and texts, another namespace
		secret := []core.Message{{Namespace: "alice", Session: "s1", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Role: core.RoleUser,
			Text: "my secret is the blue elephant zumbafloxen"}}
		ingest(t, e, secret)
		alice := chains(t, e, "alice")
		if len(alice) != 1 || len(alice["s1"]) != 1 {
			t.Fatalf("alice's chunks %v, want one in s1", alice)
		}
		aliceID := alice["s1"][0]
		def, bob := chains(t, e, ""), chains(t, e, "bob")
		for _, c := range []map[string][]string{def, bob} {
			if len(c["s1"]) != 4 || len(c["s2"]) != 1 {
				t.Errorf("chains %v, want 4 chunks in s1 and 1 in s2", c)
			}
		}

		for _, ns := range []string{"", "bob", "carol"} {
			if res := recall(t, e, core.Query{Namespace: ns, Text: "secret blue elephant zumbafloxen", TopK: 10, NoTime: true}); slices.ContainsFunc(texts(res.Hits), func(s string) bool { return strings.Contains(s, "zumbafloxen") }) {
				t.Errorf("namespace %q sees %v", ns, texts(res.Hits))
			}
			if _, err := e.RecallByID(t.Context(), ns, aliceID, 1); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("RecallByID(%q, alice's %s) = %v, want ErrNotFound", ns, aliceID, err)
			}
			if res := recall(t, e, core.Query{Namespace: ns, Text: "blue elephant", Filter: "id = '" + aliceID + "'", TopK: 10, NoTime: true}); len(res.Hits) != 0 {
				t.Errorf("namespace %q finds alice's chunk by id filter", ns)
			}
			out, _ := export(t, e, engine.ExportOptions{Namespace: ns})
			if strings.Contains(out, "zumbafloxen") {
				t.Errorf("export of namespace %q holds alice's secret", ns)
			}
			sessions, err := e.Sessions(t.Context(), ns)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sessions {
				if s.Namespace != ns {
					t.Errorf("Sessions(%q) lists %+v", ns, s)
				}
			}
		}
		if res := recall(t, e, core.Query{Namespace: "alice", Text: "secret blue elephant", TopK: 10, NoTime: true}); len(res.Hits) != 1 || res.Hits[0].ID != aliceID {
			t.Errorf("alice's own recall: %v", idsOf(res.Hits))
		}
		if res := recall(t, e, core.Query{Namespace: "alice", Text: "Kyoto temples", TopK: 10, NoTime: true}); slices.ContainsFunc(texts(res.Hits), func(s string) bool { return strings.Contains(s, "Kyoto") }) {
			t.Errorf("alice sees the default namespace's Kyoto: %v", texts(res.Hits))
		}
		// The same session name in two namespaces: two sessions.
		for _, ns := range []string{"", "bob"} {
			s, err := e.Session(t.Context(), ns, "s1")
			if err != nil || s.Messages != 8 || s.Chunks != 4 {
				t.Errorf("Session(%q, s1) = %+v, %v; want 8 messages in 4 chunks", ns, s, err)
			}
			res := recall(t, e, core.Query{Namespace: ns, Text: "Kyoto temples", TopK: 10, NoTime: true})
			for _, h := range res.Hits {
				if h.Namespace != ns {
					t.Errorf("recall in %q gives a chunk of %q", ns, h.Namespace)
				}
			}
			if len(res.Hits) == 0 {
				t.Errorf("recall in %q finds no Kyoto", ns)
			}
		}
		st := stats(t, e)
		if want := map[string]int{"": 5, "bob": 5, "alice": 1}; !cmp.Equal(want, st.Namespaces) || st.Chunks != 11 || st.Messages != 21 || st.Sessions != 5 {
			t.Errorf("stats %+v, want 11 chunks (5, 5, 1), 21 messages, 5 sessions", st)
		}
		if _, err := e.Recall(t.Context(), core.Query{Text: "x", Namespace: "../etc"}); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("bad namespace: %v, want ErrInvalid", err)
		}
	})
}
