package contract

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
)

// TestBackendsAgree ingests the same messages into a memory on each
// backend and compares what the public API shows of them: the export,
// every chunk of every session (ids, anchors, files and lines, topics and
// memories), the counts, and the hits of a list of recalls, in order and
// with their scores.
func TestBackendsAgree(t *testing.T) {
	first, late := exportCorpus()
	weekly := weeklyCorpus("weekly")
	type view struct {
		Export string
		Turns  map[string][]core.Chunk
		Stats  engine.Stats
		Recall map[string][]string
	}
	queries := []core.Query{
		{Text: "database migration", TopK: 5, NoTime: true, Namespace: "weekly"},
		{Text: "上周三下午我们讨论了什么数据库", TopK: 5, Now: refNow, Namespace: "weekly"},
		{Text: "红烧肉 火锅", TopK: 5, NoTime: true, Namespace: "weekly", Filter: "timestamp >= '2026-10-01'"},
		{Text: "database migration", TopK: 3, Context: 1, Now: refNow, Namespace: "weekly", Filter: "speaker = 'Alice' OR role = 'assistant'"},
	}
	for _, ns := range []string{"", "alice", "bob"} {
		for _, m := range first[:40] {
			if m.Namespace == ns {
				queries = append(queries, core.Query{Text: m.Text, TopK: 5, NoTime: true, Namespace: ns}, core.Query{Text: m.Text, TopK: 2, Context: 2, NoTime: true, Namespace: ns})
				break
			}
		}
	}
	views := map[string]view{}
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, withExtractors(utc(config(t))))
		ingest(t, e, first)
		ingest(t, e, late)
		ingest(t, e, weekly)
		v := view{Turns: map[string][]core.Chunk{}, Stats: stats(t, e), Recall: map[string][]string{}}
		v.Stats.Generation, v.Stats.IndexGen = 0, 0
		v.Export, _ = export(t, e, engine.ExportOptions{All: true})
		for _, ns := range []string{"", "alice", "bob", "weekly"} {
			for s := range chains(t, e, ns) {
				turns, err := e.SessionTurns(t.Context(), ns, s, 0)
				if err != nil {
					t.Fatal(err)
				}
				v.Turns[ns+"/"+s] = turns
			}
		}
		// Ranking statistics are per namespace in PostgreSQL and per
		// index in the embedded home, and bleve's average field length
		// counts every unmerged segment's terms (docs/postgres.md), so
		// recalls are compared on a memory of one namespace written in
		// one ingest, where both backends give the same scores.
		one := open(t, withExtractors(utc(config(t))))
		var msgs []core.Message
		for _, m := range append(append(append([]core.Message{}, first...), late...), weekly...) {
			m.Namespace = ""
			msgs = append(msgs, m)
		}
		ingest(t, one, msgs)
		for _, q := range queries {
			q.Namespace = ""
			for _, h := range recall(t, one, q).Hits {
				key := fmt.Sprintf("%s %q k=%d ctx=%d %q", q.Namespace, q.Text, q.TopK, q.Context, q.Filter)
				v.Recall[key] = append(v.Recall[key], fmt.Sprintf("%s %s %.4f %.4f %.4f", h.ID, h.ContextRole, h.Score, h.Scores.Vector, h.Scores.BM25))
			}
		}
		views[cfgBackend(e.Config())] = v
	})
	emb, pg := views[core.BackendEmbedded], views[core.BackendPostgres]
	if len(views) != 2 {
		t.Fatalf("views of %d backends", len(views))
	}
	if len(emb.Turns) < 30 || len(emb.Recall) < 8 {
		t.Fatalf("the embedded view has %d sessions and %d recalls", len(emb.Turns), len(emb.Recall))
	}
	if diff := cmp.Diff(emb.Export, pg.Export); diff != "" {
		t.Errorf("exports differ (-embedded +postgres):\n%s", diff)
	}
	if diff := cmp.Diff(emb.Turns, pg.Turns, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("chunks differ (-embedded +postgres):\n%s", diff)
	}
	if diff := cmp.Diff(emb.Stats, pg.Stats); diff != "" {
		t.Errorf("stats differ (-embedded +postgres):\n%s", diff)
	}
	if diff := cmp.Diff(emb.Recall, pg.Recall); diff != "" {
		t.Errorf("recalls differ (-embedded +postgres):\n%s", diff)
	}
}

// cfgBackend names the backend of cfg.
func cfgBackend(cfg core.Config) string {
	if cfg.Storage.Backend == "" {
		return core.BackendEmbedded
	}
	return cfg.Storage.Backend
}
