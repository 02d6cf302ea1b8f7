package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
)

// Whether a query finds anything, and what it finds first, does not
// depend on how many times the memory holds the same chats: a memory that
// holds every chat ten times (a history ingested again under other
// session names) answers as one that holds it once. The planted answer is
// a long exchange that BM25 ranks below thirty short ones sharing only the
// question's commonest word; with copies, those fill the candidate pool.
func TestRelevanceStableUnderCopies(t *testing.T) {
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, cst)
	msgs := corpus(7, 600, 10, base)
	at := base.Add(90 * 24 * time.Hour)
	for i := range 30 {
		msgs = append(msgs,
			msg(fmt.Sprintf("band%02d", i), at.Add(time.Duration(i)*time.Hour), core.RoleUser, "I bought a saxophone"),
			msg(fmt.Sprintf("band%02d", i), at.Add(time.Duration(i)*time.Hour+time.Minute), core.RoleAssistant, "Nice!"))
	}
	filler := strings.Repeat("we talked about the weather and the traffic and lunch and the weekend ", 40)
	msgs = append(msgs,
		msg("orchestra", at.Add(40*time.Hour), core.RoleUser, filler+"the saxophone quartet rehearsal moved, and the conductor wants it on Thursdays "+filler),
		msg("orchestra", at.Add(40*time.Hour+time.Minute), core.RoleAssistant, "Noted."))

	once := openTest(t)
	if _, err := once.Ingest(t.Context(), msgs); err != nil {
		t.Fatal(err)
	}
	tenfold := openTest(t)
	var copies []core.Message
	for c := range 10 {
		for _, m := range msgs {
			m.Session = fmt.Sprintf("%s-copy%d", m.Session, c)
			copies = append(copies, m)
		}
	}
	if _, err := tenfold.Ingest(t.Context(), copies); err != nil {
		t.Fatal(err)
	}

	first := func(e *Engine, q string) string {
		t.Helper()
		res, err := e.Recall(t.Context(), core.Query{Text: q, TopK: 10, NoTime: true})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		for _, h := range res.Hits {
			if h.ContextRole == core.RoleHit {
				return h.Content()
			}
		}
		return ""
	}
	for _, c := range []struct {
		query string
		found bool
	}{
		{"saxophone quartet rehearsal conductor", true},
		{"when does the quartet rehearse with the conductor", true},
		{"kyoto temple budget", true},
		{"deploy the golang server", true},
		{"harpsichord tuning appointment", false},
		{"which dentist did the veterinarian recommend", false},
	} {
		got1, got10 := first(once, c.query), first(tenfold, c.query)
		if (got1 != "") != c.found {
			t.Errorf("%q on one copy: found %v, want %v", c.query, got1 != "", c.found)
		}
		if got1 != got10 {
			t.Errorf("%q: first hit on one copy %.60q, on ten copies %.60q", c.query, got1, got10)
		}
	}
}
