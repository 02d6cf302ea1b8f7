//go:build parity

package postgres_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/index"
	"github.com/huimemory/huimemory/core/postgres"
	"github.com/huimemory/huimemory/internal/bench/beam"
	"github.com/huimemory/huimemory/internal/bench/locomo"
	"github.com/huimemory/huimemory/internal/pgtest"
)

// The parity test indexes the LoCoMo and BEAM dev chats into both the
// embedded bleve index (core/index) and PostgreSQL, one chat per fresh
// index and namespace, runs every question as a BM25-only search with the
// engine's default boosts, and compares the two: top-10 overlap and R@10
// (the benchmarks' metric: refs of the hits in rank order, first 10
// unique, |evidence ∩ top 10| / |evidence|). Run it with
//
//	HUIMEM_PARITY=1 go test -tags parity ./core/postgres -run Parity -v
//
// It reads the data from ../shared/bench (never copied into the tree). The
// build tag keeps it, and the engine it links through internal/locomo and
// internal/beam, out of the ordinary test run.

const benchDir = "../../../shared/bench"

type chat struct {
	name      string
	msgs      []core.Message
	questions []question
}

type question struct {
	text     string
	evidence []string
}

// chunks cuts a chat the way the default turn chunker does: a chunk is a
// non-assistant message and the assistant messages after it, in its
// session; each chunk's ctx is its neighbours' content.
func chunks(msgs []core.Message) (docs []index.Doc, refs map[string][]string) {
	refs = map[string][]string{}
	type ch struct {
		session string
		ms      []core.Message
	}
	var all []ch
	for _, m := range msgs {
		if n := len(all); n > 0 && all[n-1].session == m.Session && m.Role == core.RoleAssistant {
			all[n-1].ms = append(all[n-1].ms, m)
			continue
		}
		all = append(all, ch{session: m.Session, ms: []core.Message{m}})
	}
	content := func(c ch) string {
		var parts []string
		for _, m := range c.ms {
			parts = append(parts, m.Who()+": "+m.Text)
		}
		return strings.Join(parts, "\n")
	}
	for i, c := range all {
		var text, reply []string
		for _, m := range c.ms {
			line := m.Who() + ": " + m.Text
			if m.Role == core.RoleAssistant {
				reply = append(reply, line)
			} else {
				text = append(text, line)
			}
		}
		var ctx []string
		if i > 0 && all[i-1].session == c.session {
			ctx = append(ctx, content(all[i-1]))
		}
		if i+1 < len(all) && all[i+1].session == c.session {
			ctx = append(ctx, content(all[i+1]))
		}
		id := fmt.Sprintf("c%06d", i)
		docs = append(docs, index.Doc{ID: id, Session: c.session, Time: c.ms[0].Time,
			Text: strings.Join(text, "\n"), Reply: strings.Join(reply, "\n"), Context: strings.Join(ctx, "\n")})
		for _, m := range c.ms {
			refs[id] = append(refs[id], m.Ref)
		}
	}
	return docs, refs
}

func loadLoCoMo(t *testing.T) []chat {
	samples, err := locomo.Load(filepath.Join(benchDir, "locomo", "locomo-dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []chat
	for _, s := range samples {
		c := chat{name: "locomo/" + s.ID, msgs: s.Messages("", false)}
		for _, q := range s.Questions {
			c.questions = append(c.questions, question{q.Text, q.Evidence})
		}
		out = append(out, c)
	}
	return out
}

func loadBEAM(t *testing.T) []chat {
	chats, err := beam.Load(filepath.Join(benchDir, "beam", "100K-dev"))
	if err != nil {
		t.Fatal(err)
	}
	var out []chat
	for _, ch := range chats {
		c := chat{name: "beam/" + ch.ID}
		f, err := os.Open(ch.Path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m struct {
				Session, Role, Speaker, Text, Ref string
				Time                              time.Time
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("%s: %v", ch.Path, err)
			}
			c.msgs = append(c.msgs, core.Message{Session: m.Session, Time: m.Time, Role: core.Role(m.Role), Speaker: m.Speaker, Text: m.Text, Ref: m.Ref})
		}
		f.Close()
		for _, q := range ch.Questions {
			if len(q.Evidence) > 0 {
				c.questions = append(c.questions, question{q.Query, q.Evidence})
			}
		}
		out = append(out, c)
	}
	return out
}

func TestParity(t *testing.T) {
	if os.Getenv("HUIMEM_PARITY") == "" {
		t.Skip("set HUIMEM_PARITY=1 to index the LoCoMo and BEAM dev chats into both backends")
	}
	db, err := postgres.Open(t.Context(), postgres.Config{DSN: pgtest.DSN(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lx := db.Lexical()
	ctxBoost, replyBoost := core.DefaultContextBoost, core.DefaultReplyBoost
	for _, set := range []struct {
		name  string
		chats []chat
	}{{"LoCoMo", loadLoCoMo(t)}, {"BEAM", loadBEAM(t)}} {
		var n, overlap, rBleve, rPG, same float64
		for i, c := range set.chats {
			docs, refs := chunks(c.msgs)
			ns := fmt.Sprintf("%s-%d", set.name, i)
			for j := range docs {
				docs[j].NS = ns
			}
			ix, err := index.Create(filepath.Join(t.TempDir(), ns))
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.Apply(docs, nil, 1); err != nil {
				t.Fatal(err)
			}
			for start := 0; start < len(docs); start += 500 {
				if err := lx.Apply(t.Context(), ns, docs[start:min(start+500, len(docs))], nil); err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range c.questions {
				bm, err := ix.Search(t.Context(), index.Search{Text: q.text, ContextBoost: ctxBoost, ReplyBoost: replyBoost, NS: ns, Size: 10})
				if err != nil {
					t.Fatal(err)
				}
				pm, err := lx.Search(t.Context(), postgres.Search{Text: q.text, ContextBoost: ctxBoost, ReplyBoost: replyBoost, NS: ns, Size: 10})
				if err != nil {
					t.Fatalf("%s %q: %v", c.name, q.text, err)
				}
				hits := func(ms []index.Match) ([][]string, map[string]bool) {
					var out [][]string
					set := map[string]bool{}
					for _, m := range ms {
						out = append(out, refs[m.ID])
						set[m.ID] = true
					}
					return out, set
				}
				bh, bs := hits(bm)
				ph, ps := hits(pm)
				common := 0
				for id := range bs {
					if ps[id] {
						common++
					}
				}
				if den := max(len(bs), len(ps)); den > 0 {
					overlap += float64(common) / float64(den)
				} else {
					overlap++
				}
				if fmt.Sprint(bs) == fmt.Sprint(ps) && len(bm) == len(pm) {
					eq := true
					for k := range bm {
						eq = eq && bm[k].ID == pm[k].ID
					}
					if eq {
						same++
					}
				}
				rBleve += locomo.RecallAt(q.evidence, locomo.Flatten(bh), 10)
				rPG += locomo.RecallAt(q.evidence, locomo.Flatten(ph), 10)
				n++
			}
			ix.Close()
		}
		t.Logf("%s: %d questions; BM25-only R@10 embedded %.3f, postgres %.3f (diff %+.3f); top-10 overlap %.3f; identical ranking %.3f",
			set.name, int(n), rBleve/n, rPG/n, (rPG-rBleve)/n, overlap/n, same/n)
		if d := (rPG - rBleve) / n; d < -0.03 || d > 0.03 {
			t.Errorf("%s: R@10 differs by %+.3f, more than 3 points", set.name, d)
		}
	}
}
