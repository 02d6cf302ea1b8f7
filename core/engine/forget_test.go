package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/store"
	"github.com/huimemory/huimemory/internal/bench/synth"
)

// The sentence each forget test removes, and a word found nowhere else.
const (
	secretWord     = "quixotrelmax"
	secretSentence = "my locker combination is " + secretWord + " seven nine three"
)

// keepers are sentences, each with a word found nowhere else, that sit
// next to the secret and must stay recallable after it is forgotten.
var keepers = map[string]string{
	"zumbafloxen":  "before that we talked about zumbafloxen and the weather",
	"plimquarvish": "after that came plimquarvish, the best noodles in town",
	"vorblenthix":  "unrelated: vorblenthix is the name of the new router",
}

// secretCorpus is the sealing corpus of two namespaces over three weeks of
// 2026-W10..W12, plus session "vault" in week W11 of namespace ns, which
// holds the secret between two keepers (Mallory says the secret), and a
// keeper in a session of namespace "alice".
func secretCorpus(ns string) []core.Message {
	msgs := sealCorpus(7, 90, 21*24*time.Hour)
	at := time.Date(2026, 3, 11, 15, 0, 0, 0, cst) // Wednesday of W11
	m := func(min int, role core.Role, speaker, text string) core.Message {
		return core.Message{Namespace: ns, Session: "vault", Time: at.Add(time.Duration(min) * time.Minute), Role: role, Speaker: speaker, Text: text}
	}
	msgs = append(msgs,
		m(0, core.RoleUser, "Alice", keepers["zumbafloxen"]),
		m(1, core.RoleAssistant, "Helper", "noted, the weather was fine"),
		m(2, core.RoleUser, "Mallory", secretSentence),
		m(3, core.RoleAssistant, "Helper", "I will remember the combination"),
		m(4, core.RoleUser, "Alice", keepers["plimquarvish"]),
		m(5, core.RoleAssistant, "Helper", "they are, with extra chili"),
		core.Message{Namespace: "alice", Session: "elsewhere", Time: at, Role: core.RoleUser, Text: keepers["vorblenthix"]},
	)
	return msgs
}

// homeHits walks every file of a home, decompressing week archives with
// the archive package, and returns the places that hold any of needles.
func homeHits(t *testing.T, home string, needles ...string) []string {
	t.Helper()
	var hits []string
	check := func(where string, data []byte) {
		for _, n := range needles {
			if bytes.Contains(data, []byte(n)) {
				hits = append(hits, where+": "+n)
			}
		}
	}
	files := 0
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(home, p)
		check("path "+rel, []byte(rel))
		if !d.Type().IsRegular() {
			return nil
		}
		files++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		check(rel, data)
		if strings.HasSuffix(p, archive.Ext) {
			_, err := archive.Walk(bytes.NewReader(data), 1<<30, func(f *archive.FileEntry, r io.Reader) error {
				content, err := io.ReadAll(r)
				check(rel+" → "+f.Path, content)
				return err
			})
			if err != nil {
				t.Errorf("reading archive %s: %v", rel, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("walked only %d files of %s", files, home)
	}
	return hits
}

// recalled returns the texts of the top k hits of a recall, one string
// per hit.
func recalled(t *testing.T, e *Engine, ns, q string, k int) []string {
	t.Helper()
	res, err := e.Recall(t.Context(), core.Query{Text: q, Namespace: ns, TopK: k, NoTime: true})
	if err != nil {
		t.Fatalf("Recall(%q): %v", q, err)
	}
	var out []string
	for _, h := range res.Hits {
		var parts []string
		for _, m := range h.Messages {
			parts = append(parts, m.Text)
		}
		out = append(out, strings.Join(parts, "\n"))
	}
	return out
}

// findsText reports whether one of the top k hits of a recall for q holds
// text.
func findsText(t *testing.T, e *Engine, ns, q, text string, k int) bool {
	t.Helper()
	return slices.ContainsFunc(recalled(t, e, ns, q, k), func(s string) bool { return strings.Contains(s, text) })
}

// checkAllChains checks every session's prev/next chain and messages.
func checkAllChains(t *testing.T, e *Engine) int {
	t.Helper()
	var sessions [][2]string
	e.st.View(func(tx *store.Tx) error {
		return tx.ForEachSession(func(s *store.Session) error {
			sessions = append(sessions, [2]string{s.NS, s.Session})
			return nil
		})
	})
	for _, s := range sessions {
		checkSession(t, e, s[0], s[1])
	}
	return len(sessions)
}

// nsSnapshot is snapshot restricted to one namespace.
func nsSnapshot(t *testing.T, e *Engine, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range snapshot(t, e) {
		if strings.HasPrefix(k, ns+"/") {
			out[k] = v
		}
	}
	return out
}

func secretChunk(t *testing.T, e *Engine, ns string) string {
	t.Helper()
	for _, id := range chainOf(t, e, ns, "vault") {
		var text string
		e.st.View(func(tx *store.Tx) error {
			c, err := tx.Chunk(id)
			if err == nil {
				var ch *core.Chunk
				if ch, err = e.hydrate(tx, c); err == nil {
					text = ch.Content()
				}
			}
			return err
		})
		if strings.Contains(text, secretWord) {
			return id
		}
	}
	t.Fatal("no chunk holds the secret")
	return ""
}

func TestForgetLeavesNoTrace(t *testing.T) {
	tests := []struct {
		name string
		ns   string
		opts func(t *testing.T, e *Engine) ForgetOptions
		// gone are the messages that go; needles must be nowhere after.
		gone    int
		needles []string
		// keep are the keeper words that must still be recallable.
		keep []string
		// sessionGone is set when the whole session goes, nsGone when the
		// whole namespace does (leaving no week to re-seal).
		sessionGone, nsGone bool
	}{
		{name: "id", opts: func(t *testing.T, e *Engine) ForgetOptions {
			return ForgetOptions{ID: strings.ToUpper(secretChunk(t, e, ""))}
		}, gone: 2, needles: []string{secretWord, secretSentence, "I will remember the combination"},
			keep: []string{"zumbafloxen", "plimquarvish"}},
		{name: "session", opts: func(*testing.T, *Engine) ForgetOptions { return ForgetOptions{Session: "vault"} },
			gone: 6, needles: []string{secretWord, secretSentence, "zumbafloxen", "chat_vault"}, sessionGone: true},
		{name: "namespace", ns: "bob", opts: func(*testing.T, *Engine) ForgetOptions {
			return ForgetOptions{Namespace: "bob", AllNamespace: true}
		}, gone: 6, needles: []string{secretWord, secretSentence, "zumbafloxen", "@bob"}, sessionGone: true, nsGone: true},
		{name: "filter", opts: func(*testing.T, *Engine) ForgetOptions {
			return ForgetOptions{Filter: "speaker = 'Mallory' AND timestamp >= '2026-03-11'"}
		}, gone: 2, needles: []string{secretWord, secretSentence}, keep: []string{"zumbafloxen", "plimquarvish"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			e := openHome(t, home)
			ingest(t, e, secretCorpus(tt.ns))
			if weeks := seal(t, e, SealOptions{}); len(weeks) < 4 {
				t.Fatalf("sealed %d weeks, want the three weeks of two namespaces", len(weeks))
			}
			// The secret is in the home before: in a sealed archive and in
			// the index's segments.
			before := homeHits(t, home, secretSentence, secretWord)
			if !slices.ContainsFunc(before, func(h string) bool { return strings.Contains(h, archive.Ext+" → ") }) {
				t.Fatalf("before forgetting, the secret is not in an archive: %q", before)
			}
			if terms := indexTerms(t, filepath.Join(home, indexDir), secretWord[:8]); len(terms) == 0 {
				t.Fatalf("before forgetting, the secret is not in the index's term dictionaries")
			}
			if !findsText(t, e, tt.ns, secretWord, secretWord, 1) {
				t.Fatalf("the secret is not recallable before forgetting")
			}
			otherNS := "alice"
			othersBefore := nsSnapshot(t, e, otherNS)
			opts := tt.opts(t, e)

			// A dry run lists and changes nothing.
			dry := opts
			dry.DryRun = true
			plan, err := e.Forget(t.Context(), dry)
			if err != nil {
				t.Fatalf("dry run: %v", err)
			}
			if len(plan.Messages) != tt.gone || !slices.ContainsFunc(plan.Messages, func(m ForgottenMessage) bool {
				return strings.Contains(m.Preview, "locker combination")
			}) || !slices.Equal(plan.Sessions, []string{"vault"}) || len(plan.Chunks) == 0 {
				t.Fatalf("dry run = %+v, want %d messages of session vault with the secret", plan, tt.gone)
			}
			if got := homeHits(t, home, secretSentence); !slices.Equal(got, homeHits(t, home, secretSentence)) || len(got) == 0 {
				t.Fatalf("after the dry run the secret is gone: %q", got)
			}

			res, err := e.Forget(t.Context(), opts)
			if err != nil {
				t.Fatalf("Forget: %v", err)
			}
			if len(res.Messages) != tt.gone || res.DryRun || (len(res.Resealed) == 0) != tt.nsGone || res.Store.After == 0 {
				t.Errorf("Forget = %+v, want %d messages, week W11 re-sealed (unless emptied) and a compacted store", res, tt.gone)
			}
			if tt.sessionGone != (res.SessionsRemoved == 1) {
				t.Errorf("sessions removed = %d", res.SessionsRemoved)
			}
			// Nowhere in the home, by the engine still open and after
			// closing it.
			if hits := homeHits(t, home, tt.needles...); len(hits) > 0 {
				t.Errorf("after forgetting, found in the home:\n%s", strings.Join(hits, "\n"))
			}
			if terms := indexTerms(t, filepath.Join(home, indexDir), secretWord[:8]); len(terms) > 0 {
				t.Errorf("after forgetting, the index's segments hold %q", terms)
			}
			if findsText(t, e, tt.ns, secretWord, secretWord, 50) {
				t.Errorf("the secret is still recallable")
			}
			for _, w := range tt.keep {
				if !findsText(t, e, tt.ns, w, keepers[w], 3) {
					t.Errorf("keeper %q is not recalled after the forget: %q", w, recalled(t, e, tt.ns, w, 3))
				}
			}
			if !findsText(t, e, "alice", "vorblenthix", keepers["vorblenthix"], 3) {
				t.Errorf("namespace alice lost its keeper")
			}
			if n := checkAllChains(t, e); n == 0 {
				t.Fatal("no sessions left")
			}
			if tt.ns != otherNS {
				if diff := cmp.Diff(othersBefore, nsSnapshot(t, e, otherNS)); diff != "" {
					t.Errorf("namespace %s changed (-before +after):\n%s", otherNS, diff)
				}
			}
			if _, err := e.VerifyArchives(t.Context()); err != nil {
				t.Errorf("VerifyArchives: %v", err)
			}
			weeks, err := e.Weeks(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range weeks {
				if w.State != stateSealed {
					t.Errorf("week %s of %q is %q after the forget, want sealed", w.Week, w.Namespace, w.State)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if hits := homeHits(t, home, tt.needles...); len(hits) > 0 {
				t.Errorf("after closing, found in the home:\n%s", strings.Join(hits, "\n"))
			}
			e2 := openHome(t, home)
			checkAllChains(t, e2)
			for _, w := range tt.keep {
				if !findsText(t, e2, tt.ns, w, keepers[w], 3) {
					t.Errorf("after reopening, keeper %q is not recalled", w)
				}
			}
		})
	}
}

func TestForgetSelectsWithinOneNamespace(t *testing.T) {
	e := openTest(t)
	ingest(t, e, secretCorpus("bob"))
	bobChunk := secretChunk(t, e, "bob")
	tests := []struct {
		name string
		opts ForgetOptions
		want error
	}{
		{"id of another namespace", ForgetOptions{ID: bobChunk}, core.ErrNotFound},
		{"unknown id", ForgetOptions{Namespace: "bob", ID: "zzzzzz"}, core.ErrNotFound},
		{"unknown session", ForgetOptions{Namespace: "bob", Session: "nope"}, core.ErrNotFound},
		{"session of another namespace", ForgetOptions{Session: "vault"}, core.ErrNotFound},
		{"no selector", ForgetOptions{Namespace: "bob"}, core.ErrInvalid},
		{"two selectors", ForgetOptions{Namespace: "bob", Session: "vault", AllNamespace: true}, core.ErrInvalid},
		{"bad id", ForgetOptions{ID: "not an id!"}, core.ErrInvalid},
		{"bad filter", ForgetOptions{Filter: "speaker = 'x' ANDD role = 'user'"}, core.ErrInvalid},
		{"bad namespace", ForgetOptions{Namespace: "a/b", AllNamespace: true}, core.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, dry := range []bool{true, false} {
				o := tt.opts
				o.DryRun = dry
				if _, err := e.Forget(t.Context(), o); !errors.Is(err, tt.want) {
					t.Errorf("Forget(%+v) = %v, want %v", o, err, tt.want)
				}
			}
		})
	}
	// A filter naming another namespace selects nothing in this one.
	before := statsOf(t, e)
	res, err := e.Forget(t.Context(), ForgetOptions{Filter: "namespace = 'bob'"})
	if err != nil || len(res.Messages) != 0 {
		t.Errorf("Forget(namespace = 'bob' in the default namespace) = %+v, %v; want nothing", res, err)
	}
	res, err = e.Forget(t.Context(), ForgetOptions{Namespace: "nobody", AllNamespace: true})
	if err != nil || len(res.Messages) != 0 {
		t.Errorf("Forget(empty namespace) = %+v, %v; want nothing", res, err)
	}
	if diff := cmp.Diff(before, statsOf(t, e)); diff != "" {
		t.Errorf("forgetting nothing changed the home (-before +after):\n%s", diff)
	}
}

// A forget of a whole synthetic namespace keeps every other namespace's
// chunks exactly.
func TestForgetNamespaceKeepsOthers(t *testing.T) {
	e := openTest(t)
	msgs := synth.Corpus(synth.Options{Seed: 3, Pairs: 60, PerSession: 5, Start: sealStart, Span: 14 * 24 * time.Hour, Namespaces: []string{"", "alice", "bob"}})
	ingest(t, e, msgs)
	seal(t, e, SealOptions{})
	keep := map[string]map[string]string{"": nsSnapshot(t, e, ""), "alice": nsSnapshot(t, e, "alice")}
	res, err := e.Forget(t.Context(), ForgetOptions{Namespace: "bob", AllNamespace: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionsRemoved != len(res.Sessions) || len(res.Sessions) == 0 {
		t.Errorf("removed %d of %d sessions", res.SessionsRemoved, len(res.Sessions))
	}
	for ns, snap := range keep {
		if diff := cmp.Diff(snap, nsSnapshot(t, e, ns)); diff != "" {
			t.Errorf("namespace %q changed (-before +after):\n%s", ns, diff)
		}
	}
	if got := nsSnapshot(t, e, "bob"); len(got) != 0 {
		t.Errorf("namespace bob still has %d chunks", len(got))
	}
	if _, err := os.Stat(filepath.Join(e.sessionsRoot(), "@bob")); err == nil {
		ents, _ := os.ReadDir(filepath.Join(e.sessionsRoot(), "@bob"))
		if len(ents) > 0 {
			t.Errorf("sessions/@bob still holds %d entries", len(ents))
		}
	}
}

// indexTerms opens a copy of the bleve index at dir and returns the terms
// of every field's dictionary, across all its segments, that contain sub.
// A segment's dictionary keeps the terms of deleted documents until the
// segment is merged away, so this sees what lingers, not only what
// searches find.
func indexTerms(t *testing.T, dir, sub string) []string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "index")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(cp, rel), 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(cp, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := bleve.Open(cp)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fields, err := b.Fields()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fields {
		d, err := b.FieldDict(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			entry, err := d.Next()
			if err != nil {
				t.Fatal(err)
			}
			if entry == nil {
				break
			}
			if strings.Contains(entry.Term, sub) {
				out = append(out, f+":"+entry.Term)
			}
		}
		d.Close()
	}
	return out
}

// forgetSink keeps the benchmark's results alive.
var forgetSink ForgetResult

// BenchmarkForget measures forgetting one chunk by id in a home of n
// chunks whose finished weeks are sealed: re-opening and re-sealing the
// chunk's week, rebuilding the index and compacting the store, which
// grow with the home. Export is measured alongside, per message.
func BenchmarkForget(b *testing.B) {
	for _, n := range benchSizes() {
		msgs := synth.Corpus(synth.Options{Seed: 42, Pairs: n, Start: benchStart, Span: 365 * 24 * time.Hour})
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			e := openTest(b)
			if _, err := e.Ingest(b.Context(), msgs); err != nil {
				b.Fatal(err)
			}
			if _, err := e.Seal(b.Context(), SealOptions{Now: benchStart.Add(400 * 24 * time.Hour)}); err != nil {
				b.Fatal(err)
			}
			var ids []string
			e.st.View(func(tx *store.Tx) error {
				return tx.ForEachChunk(func(c *store.Chunk) error {
					ids = append(ids, c.ID)
					return nil
				})
			})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := e.Forget(b.Context(), ForgetOptions{ID: ids[(i*7919)%len(ids)]})
				if err != nil && !errors.Is(err, core.ErrNotFound) {
					b.Fatal(err)
				}
				forgetSink = res
			}
		})
		b.Run(fmt.Sprintf("export/chunks=%d", n), func(b *testing.B) {
			e := openTest(b)
			if _, err := e.Ingest(b.Context(), msgs); err != nil {
				b.Fatal(err)
			}
			if _, err := e.Seal(b.Context(), SealOptions{Now: benchStart.Add(400 * 24 * time.Hour)}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			total := 0
			for i := 0; i < b.N; i++ {
				k, err := e.Export(b.Context(), io.Discard, ExportOptions{All: true})
				if err != nil {
					b.Fatal(err)
				}
				total += k
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
