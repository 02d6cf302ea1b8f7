package contract

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/engine"
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

// secretCorpus is a synthetic corpus of the default namespace and alice,
// plus session "vault" of namespace ns, which holds the secret (said by
// Mallory) between two keepers, and a keeper in namespace alice.
func secretCorpus(ns string) []core.Message {
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	msgs := synth.Corpus(synth.Options{Seed: 7, Pairs: 40, PerSession: 5, Start: start, Span: 14 * 24 * time.Hour, Namespaces: []string{"", "alice"}})
	at := time.Date(2026, 3, 11, 15, 0, 0, 0, time.UTC)
	m := func(min int, role core.Role, speaker, text string) core.Message {
		return core.Message{Namespace: ns, Session: "vault", Time: at.Add(time.Duration(min) * time.Minute), Role: role, Speaker: speaker, Text: text}
	}
	return append(msgs,
		m(0, core.RoleUser, "Alice", keepers["zumbafloxen"]),
		m(1, core.RoleAssistant, "Helper", "noted, the weather was fine"),
		m(2, core.RoleUser, "Mallory", secretSentence),
		m(3, core.RoleAssistant, "Helper", "I will remember the combination"),
		m(4, core.RoleUser, "Alice", keepers["plimquarvish"]),
		m(5, core.RoleAssistant, "Helper", "they are, with extra chili"),
		core.Message{Namespace: "alice", Session: "elsewhere", Time: at, Role: core.RoleUser, Text: keepers["vorblenthix"]},
	)
}

// traces returns where the memory configured by cfg holds any of needles
// in storage: for the embedded home, the files (paths and contents; the
// tests here seal no week, so nothing is compressed); for PostgreSQL,
// every row of every table of the database, as text, where a needle may
// also show hex-encoded (bytea).
func traces(t *testing.T, cfg core.Config, needles ...string) []string {
	t.Helper()
	var hits []string
	check := func(where string, data []byte) {
		lower := bytes.ToLower(data)
		for _, n := range needles {
			if bytes.Contains(data, []byte(n)) || bytes.Contains(lower, []byte(hex.EncodeToString([]byte(n)))) {
				hits = append(hits, where+": "+n)
			}
		}
	}
	if cfg.Storage.Backend != core.BackendPostgres {
		home := cfg.Storage.Home
		err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			rel, _ := filepath.Rel(home, p)
			check("path "+rel, []byte(rel))
			data, err := os.ReadFile(p)
			check(rel, data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	conn, err := pgx.Connect(t.Context(), cfg.Storage.Postgres.DSN)
	if err != nil {
		t.Fatalf("connecting to the database: %v", err)
	}
	defer conn.Close(t.Context())
	rows, err := conn.Query(t.Context(), `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 3 {
		t.Fatalf("listing tables: %v, %v", tables, err)
	}
	for _, tbl := range tables {
		rows, err := conn.Query(t.Context(), "SELECT r::text FROM "+tbl+" r")
		if err != nil {
			t.Fatalf("reading %s: %v", tbl, err)
		}
		vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("reading %s: %v", tbl, err)
		}
		for _, v := range vals {
			check(tbl, []byte(v))
		}
	}
	return hits
}

// chunkHolding returns the id of the chunk of session s in ns whose text
// holds text.
func chunkHolding(t *testing.T, e *engine.Engine, ns, s, text string) string {
	t.Helper()
	turns, err := e.SessionTurns(t.Context(), ns, s, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range turns {
		if strings.Contains(c.Content(), text) {
			return c.ID
		}
	}
	t.Fatalf("no chunk of %s/%s holds %q", ns, s, text)
	return ""
}

func TestForget(t *testing.T) {
	tests := []struct {
		name string
		ns   string
		opts func(t *testing.T, e *engine.Engine) engine.ForgetOptions
		// gone is how many messages go; needles must be nowhere after.
		gone    int
		needles []string
		// keep are the keeper words that must still be recallable.
		keep []string
		// sessionGone is set when the whole session goes.
		sessionGone bool
	}{
		{name: "id", opts: func(t *testing.T, e *engine.Engine) engine.ForgetOptions {
			return engine.ForgetOptions{ID: strings.ToUpper(chunkHolding(t, e, "", "vault", secretWord))}
		}, gone: 2, needles: []string{secretWord, "I will remember the combination"}, keep: []string{"zumbafloxen", "plimquarvish"}},
		{name: "session", opts: func(*testing.T, *engine.Engine) engine.ForgetOptions { return engine.ForgetOptions{Session: "vault"} },
			gone: 6, needles: []string{secretWord, "zumbafloxen", "plimquarvish"}, sessionGone: true},
		{name: "namespace", ns: "bob", opts: func(*testing.T, *engine.Engine) engine.ForgetOptions {
			return engine.ForgetOptions{Namespace: "bob", AllNamespace: true}
		}, gone: 6, needles: []string{secretWord, "zumbafloxen", "plimquarvish"}, sessionGone: true},
		{name: "filter", opts: func(*testing.T, *engine.Engine) engine.ForgetOptions {
			return engine.ForgetOptions{Filter: "speaker = 'Mallory' AND timestamp >= '2026-03-11'"}
		}, gone: 2, needles: []string{secretWord}, keep: []string{"zumbafloxen", "plimquarvish"}},
	}
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				cfg := utc(config(t))
				e := open(t, cfg)
				ingest(t, e, secretCorpus(tt.ns))
				if len(traces(t, cfg, secretWord)) == 0 {
					t.Fatal("the secret is not in storage before forgetting")
				}
				if !finds(t, e, tt.ns, secretWord, secretWord, 1) {
					t.Fatal("the secret is not recallable before forgetting")
				}
				secretID := chunkHolding(t, e, tt.ns, "vault", secretWord)
				vaultIDs := chains(t, e, tt.ns)["vault"]
				before := snap(t, e, "alice", "bob")
				opts := tt.opts(t, e)

				// A dry run lists and changes nothing.
				dry := opts
				dry.DryRun = true
				plan, err := e.Forget(t.Context(), dry)
				if err != nil {
					t.Fatalf("dry run: %v", err)
				}
				if len(plan.Messages) != tt.gone || !slices.ContainsFunc(plan.Messages, func(m engine.ForgottenMessage) bool {
					return strings.Contains(m.Preview, "locker combination")
				}) || !slices.Equal(plan.Sessions, []string{"vault"}) || !slices.Contains(plan.Chunks, secretID) {
					t.Fatalf("dry run = %+v, want %d messages of session vault with the secret", plan, tt.gone)
				}
				if diff := cmp.Diff(before, snap(t, e, "alice", "bob")); diff != "" {
					t.Fatalf("a dry run changed the memory (-before +after):\n%s", diff)
				}

				res, err := e.Forget(t.Context(), opts)
				if err != nil {
					t.Fatalf("Forget: %v", err)
				}
				if len(res.Messages) != tt.gone || res.DryRun || tt.sessionGone != (res.SessionsRemoved == 1) {
					t.Errorf("Forget = %+v, want %d messages", res, tt.gone)
				}
				check := func(t *testing.T, e *engine.Engine) {
					if hits := traces(t, cfg, tt.needles...); len(hits) > 0 {
						t.Errorf("after forgetting, found in storage:\n%s", strings.Join(hits, "\n"))
					}
					if finds(t, e, tt.ns, secretWord, secretWord, 50) {
						t.Error("the secret is still recallable")
					}
					if res := recall(t, e, core.Query{Namespace: tt.ns, Text: secretWord, Filter: "speaker = 'Mallory'", TopK: 10, NoTime: true}); len(res.Hits) != 0 {
						t.Errorf("a filter still finds Mallory's chunk: %v", idsOf(res.Hits))
					}
					if _, err := e.RecallByID(t.Context(), tt.ns, secretID, 1); !errors.Is(err, core.ErrNotFound) {
						t.Errorf("RecallByID of the forgotten chunk %s: %v, want ErrNotFound", secretID, err)
					}
					out, _ := export(t, e, engine.ExportOptions{All: true})
					for _, n := range tt.needles {
						if strings.Contains(out, n) {
							t.Errorf("the export holds %q", n)
						}
					}
					for _, w := range tt.keep {
						if !finds(t, e, tt.ns, w, keepers[w], 3) {
							t.Errorf("keeper %q is not recalled after the forget", w)
						}
					}
					if !finds(t, e, "alice", "vorblenthix", keepers["vorblenthix"], 3) {
						t.Error("namespace alice lost its keeper")
					}
					after := snap(t, e, "alice", "bob")
					if tt.ns != "alice" && before.Chains["alice"] != nil && !cmp.Equal(before.Chains["alice"], after.Chains["alice"]) {
						t.Errorf("namespace alice's chains changed (-before +after):\n%s", cmp.Diff(before.Chains["alice"], after.Chains["alice"]))
					}
					vault := after.Chains[tt.ns]["vault"]
					switch {
					case tt.sessionGone && vault != nil:
						t.Errorf("session vault remains: %v", vault)
					case !tt.sessionGone && (len(vault) != len(vaultIDs)-1 || slices.Contains(vault, secretID)):
						t.Errorf("vault chunks %v, were %v: want all but %s", vault, vaultIDs, secretID)
					}
					if st := after.Stats; st.Messages != before.Stats.Messages-tt.gone || st.IndexDocs != uint64(st.Chunks) || st.Pending != 0 {
						t.Errorf("stats after %+v, before %+v: want %d messages fewer, the index in step", st, before.Stats, tt.gone)
					}
				}
				check(t, e)
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				t.Run("reopened", func(t *testing.T) { check(t, open(t, cfg)) })
			})
		}
	})
}

func TestForgetSelectsWithinOneNamespace(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		e := open(t, utc(config(t)))
		ingest(t, e, secretCorpus("bob"))
		bobChunk := chunkHolding(t, e, "bob", "vault", secretWord)
		for _, tt := range []struct {
			name string
			opts engine.ForgetOptions
			want error
		}{
			{"id of another namespace", engine.ForgetOptions{ID: bobChunk}, core.ErrNotFound},
			{"unknown id", engine.ForgetOptions{Namespace: "bob", ID: "zzzzzz"}, core.ErrNotFound},
			{"unknown session", engine.ForgetOptions{Namespace: "bob", Session: "nope"}, core.ErrNotFound},
			{"session of another namespace", engine.ForgetOptions{Session: "vault"}, core.ErrNotFound},
			{"no selector", engine.ForgetOptions{Namespace: "bob"}, core.ErrInvalid},
			{"two selectors", engine.ForgetOptions{Namespace: "bob", Session: "vault", AllNamespace: true}, core.ErrInvalid},
			{"bad filter", engine.ForgetOptions{Filter: "speaker = 'x' ANDD role = 'user'"}, core.ErrInvalid},
			{"bad namespace", engine.ForgetOptions{Namespace: "a/b", AllNamespace: true}, core.ErrInvalid},
		} {
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
		before := snap(t, e, "alice", "bob")
		for _, o := range []engine.ForgetOptions{{Filter: "namespace = 'bob'"}, {Namespace: "nobody", AllNamespace: true}} {
			if res, err := e.Forget(t.Context(), o); err != nil || len(res.Messages) != 0 {
				t.Errorf("Forget(%+v) = %+v, %v; want nothing", o, res, err)
			}
		}
		if diff := cmp.Diff(before, snap(t, e, "alice", "bob")); diff != "" {
			t.Errorf("forgetting nothing changed the memory (-before +after):\n%s", diff)
		}
	})
}

// exportCorpus is a corpus of three namespaces, in two batches: the
// second holds late messages (placed before messages already stored), a
// message at the same instant as a stored one of its session, one with
// another offset, and texts whose lines are easy to get wrong.
func exportCorpus() (first, late []core.Message) {
	edge := []string{"blank\n\nline inside", "trailing newline\n", "\nleading newline", "windows\r\nline endings\r\n",
		"### looks like a message header", "ends with a carriage return\r", "中文\n\n第二段", "  spaces  \t tab ", `"quotes" and \backslashes\`, "emoji 🧠 and NUL-free"}
	msgs := synth.Corpus(synth.Options{Seed: 11, Pairs: 90, PerSession: 6, Start: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		Span: 21 * 24 * time.Hour, Namespaces: []string{"", "alice", "bob"}})
	for i := range msgs {
		if i%7 == 3 {
			msgs[i].Text = edge[(i/7)%len(edge)] + " #" + msgs[i].Session
		}
		if i%11 == 5 {
			msgs[i].Speaker, msgs[i].Ref = "Speaker "+msgs[i].Session, "ref:"+msgs[i].Session
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; strings.HasSuffix(m.Session, "0") && i%12 >= 6 {
			late = append(late, m)
		} else {
			first = append(first, m)
		}
	}
	s0 := first[len(first)-1]
	tie := s0
	tie.Text, tie.Role = "same instant as the first message, stored later", core.RoleAssistant
	other := s0
	other.Time = s0.Time.Add(90 * time.Second).In(time.FixedZone("", -5*3600))
	other.Text = "written from another offset"
	late = append(late, tie, other,
		core.Message{Namespace: "alice", Session: s0.Session, Time: s0.Time, Role: core.RoleUser, Text: "same session name, other namespace"})
	return first, late
}

func TestExportRoundTrip(t *testing.T) {
	each(t, func(t *testing.T, config func(*testing.T) core.Config) {
		a := open(t, utc(config(t)))
		first, late := exportCorpus()
		ingest(t, a, first)
		ingest(t, a, late)
		all, n := export(t, a, engine.ExportOptions{All: true})
		if want := len(first) + len(late); n != want || strings.Count(all, "\n") != want {
			t.Fatalf("exported %d messages (%d lines), want %d", n, strings.Count(all, "\n"), want)
		}
		path := tempFile(t, "export.jsonl", all)
		b := open(t, utc(config(t)))
		res, err := b.IngestFile(t.Context(), path, engine.FileOptions{Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		if res.Added != n {
			t.Errorf("ingesting the export added %d of %d messages", res.Added, n)
		}
		namespaces := []string{"alice", "bob"}
		want, got := snap(t, a, namespaces...), snap(t, b, namespaces...)
		want.Stats.Generation, got.Stats.Generation, want.Stats.IndexGen, got.Stats.IndexGen = 0, 0, 0, 0
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the memory and a copy made from its export differ (-original +copy):\n%s", diff)
		}
		for _, ns := range append([]string{""}, namespaces...) {
			for s, ids := range want.Chains[ns] {
				ta, _ := a.SessionTurns(t.Context(), ns, s, 0)
				tb, _ := b.SessionTurns(t.Context(), ns, s, 0)
				if diff := cmp.Diff(ta, tb); diff != "" {
					t.Errorf("session %s/%s (%d chunks) differs (-original +copy):\n%s", ns, s, len(ids), diff)
				}
			}
		}
		// One namespace at a time: its lines only, and together all of them.
		total := 0
		for _, ns := range append([]string{""}, namespaces...) {
			out, k := export(t, a, engine.ExportOptions{Namespace: ns})
			total += k
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				hasNS := strings.Contains(line, `"namespace":`)
				if (ns == "") == hasNS || (ns != "" && !strings.HasSuffix(line, `"namespace":"`+ns+`"}`)) {
					t.Fatalf("export of namespace %q has line %s", ns, line)
				}
			}
		}
		if total != n {
			t.Errorf("namespaces exported %d messages in all, want %d", total, n)
		}
		if _, err := a.Export(t.Context(), &bytes.Buffer{}, engine.ExportOptions{Namespace: "a", All: true}); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Export of a namespace and all: %v, want ErrInvalid", err)
		}
	})
}
