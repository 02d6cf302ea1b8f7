package contract

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
)

// refNow is the fixed "now" of the time-phrase tests: a Sunday afternoon,
// in ISO week 2026-W48.
var refNow = time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)

// utc sets the configuration's zone to UTC, so that time phrases and
// filter dates mean the same on every machine.
func utc(cfg core.Config) core.Config {
	cfg.Time.Zone = "UTC"
	return cfg
}

// withExtractors adds the built-in general and topic extractors, which
// fill the chunks' memory types and topics.
func withExtractors(cfg core.Config) core.Config {
	cfg.Extractors = []core.PluginSpec{{Name: "general"}, {Name: "topic"}}
	return cfg
}

// ingest ingests msgs into e and fails the test on error.
func ingest(t *testing.T, e *engine.Engine, msgs []core.Message) engine.IngestResult {
	t.Helper()
	res, err := e.Ingest(t.Context(), msgs)
	if err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	return res
}

// weeklyCorpus puts one session in each of the 20 ISO weeks before
// refNow's week and in refNow's week: a Wednesday-afternoon session about
// a database migration (user Alice, assistant Helper) and a Saturday one
// about cooking, in Chinese.
func weeklyCorpus(ns string) []core.Message {
	var msgs []core.Message
	m := func(s string, at time.Time, role core.Role, speaker, text string) core.Message {
		return core.Message{Namespace: ns, Session: s, Time: at, Role: role, Speaker: speaker, Text: text}
	}
	for w := 0; w <= 20; w++ {
		monday := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -7*w)
		wed := monday.AddDate(0, 0, 2).Add(15 * time.Hour)
		sat := monday.AddDate(0, 0, 5).Add(10 * time.Hour)
		id := fmt.Sprintf("w%02d", w)
		msgs = append(msgs,
			m(id+"-wed", wed, core.RoleUser, "Alice", fmt.Sprintf("project status week %d: the migration to the new database", w)),
			m(id+"-wed", wed.Add(time.Minute), core.RoleAssistant, "Helper", "The database migration is on track."),
			m(id+"-sat", sat, core.RoleUser, "Alice", "周末做什么菜？红烧肉还是火锅"),
			m(id+"-sat", sat.Add(time.Minute), core.RoleAssistant, "Helper", "红烧肉吧，火锅下次。"),
		)
	}
	return msgs
}

// sessionsOf returns the sorted sessions of hits, each once.
func sessionsOf(hits []core.Hit) []string {
	var out []string
	for _, h := range hits {
		if !slices.Contains(out, h.Session) {
			out = append(out, h.Session)
		}
	}
	slices.Sort(out)
	return out
}

// idsOf returns the ids of hits, in order.
func idsOf(hits []core.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

// texts returns the text of every message of hits, in order.
func texts(hits []core.Hit) []string {
	var out []string
	for _, h := range hits {
		for _, m := range h.Messages {
			out = append(out, m.Text)
		}
	}
	return out
}

// recall runs q on e and fails the test on error.
func recall(t *testing.T, e *engine.Engine, q core.Query) *core.Results {
	t.Helper()
	res, err := e.Recall(t.Context(), q)
	if err != nil {
		t.Fatalf("Recall(%q): %v", q.Text, err)
	}
	return res
}

// finds reports whether one of the top k hits of a recall for q in
// namespace ns holds text.
func finds(t *testing.T, e *engine.Engine, ns, q, text string, k int) bool {
	t.Helper()
	res := recall(t, e, core.Query{Text: q, Namespace: ns, TopK: k, NoTime: true})
	return slices.ContainsFunc(texts(res.Hits), func(s string) bool { return strings.Contains(s, text) })
}

// chains checks every session of namespace ns as the engine reports it:
// the session's turns (SessionTurns, in session order) chain through
// prev and next from a first chunk without prev to a last without next,
// the session record counts them and their messages, every chunk is in
// ns and its session, its messages are in time order, and RecallByID finds
// each chunk with the same anchor. It returns the chunk ids by session.
func chains(t *testing.T, e *engine.Engine, ns string) map[string][]string {
	t.Helper()
	infos, err := e.Sessions(t.Context(), ns)
	if err != nil {
		t.Fatalf("Sessions(%q): %v", ns, err)
	}
	out := map[string][]string{}
	seen := map[string]string{}
	for _, info := range infos {
		turns, err := e.SessionTurns(t.Context(), ns, info.Session, 0)
		if err != nil {
			t.Fatalf("SessionTurns(%q, %q): %v", ns, info.Session, err)
		}
		if len(turns) != info.Chunks || len(turns) == 0 {
			t.Errorf("session %s/%s: %d turns, the session record says %d chunks", ns, info.Session, len(turns), info.Chunks)
		}
		n := 0
		var last time.Time
		for i, c := range turns {
			if other, dup := seen[c.ID]; dup {
				t.Errorf("chunk %s is in sessions %s and %s", c.ID, other, info.Session)
			}
			seen[c.ID] = info.Session
			out[info.Session] = append(out[info.Session], c.ID)
			if c.Namespace != ns || c.Session != info.Session {
				t.Errorf("chunk %s of session %s/%s says %s/%s", c.ID, ns, info.Session, c.Namespace, c.Session)
			}
			wantPrev, wantNext := "", ""
			if i > 0 {
				wantPrev = turns[i-1].ID
			}
			if i+1 < len(turns) {
				wantNext = turns[i+1].ID
			}
			if c.Prev != wantPrev || c.Next != wantNext {
				t.Errorf("session %s/%s chunk %d %v: want prev %q next %q", ns, info.Session, i, c.Anchor, wantPrev, wantNext)
			}
			for _, m := range c.Messages {
				if m.Time.Before(last) {
					t.Errorf("session %s/%s: message %q at %v comes after one at %v", ns, info.Session, m.Text, m.Time, last)
				}
				last = m.Time
				n++
			}
			hits, err := e.RecallByID(t.Context(), ns, c.ID, 0)
			if err != nil || len(hits) != 1 || hits[0].Anchor != c.Anchor {
				t.Errorf("RecallByID(%q, %s) = %v, %v; want anchor %v", ns, c.ID, idsOf(hits), err, c.Anchor)
			}
		}
		if n != info.Messages {
			t.Errorf("session %s/%s: chunks hold %d messages, the record says %d", ns, info.Session, n, info.Messages)
		}
	}
	return out
}

// export returns e's export with opts.
func export(t *testing.T, e *engine.Engine, opts engine.ExportOptions) (string, int) {
	t.Helper()
	var buf bytes.Buffer
	n, err := e.Export(t.Context(), &buf, opts)
	if err != nil {
		t.Fatalf("Export(%+v): %v", opts, err)
	}
	return buf.String(), n
}

// stats returns e's counts, without the sizes and the home, which differ
// between backends by design.
func stats(t *testing.T, e *engine.Engine) engine.Stats {
	t.Helper()
	s, err := e.Stats(t.Context())
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	s.Home, s.Backend, s.StoreBytes, s.IndexBytes, s.FilesBytes = "", "", 0, 0, 0
	return s
}

// writeFile writes data to path.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tempFile writes data to a new file named name in a new folder.
func tempFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	writeFile(t, p, data)
	return p
}
