package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/core/filter"
	"github.com/huimemory/huimemory/timeparse"
)

var refNow = time.Date(2026, 11, 29, 15, 0, 0, 0, cst) // a Sunday, ISO week 48

// weeklyCorpus puts one session in each of the 20 ISO weeks before refNow's
// week and in refNow's week: a Wednesday-afternoon session about the
// project and a Saturday one about cooking.
func weeklyCorpus() []core.Message {
	var msgs []core.Message
	for w := 0; w <= 20; w++ {
		monday := time.Date(2026, 11, 23, 0, 0, 0, 0, cst).AddDate(0, 0, -7*w)
		wed := monday.AddDate(0, 0, 2).Add(15 * time.Hour)
		sat := monday.AddDate(0, 0, 5).Add(10 * time.Hour)
		id := fmt.Sprintf("w%02d", w)
		msgs = append(msgs,
			msg(id+"-wed", wed, core.RoleUser, fmt.Sprintf("project status week %d: the migration to the new database", w)),
			msg(id+"-wed", wed.Add(time.Minute), core.RoleAssistant, "The database migration is on track."),
			msg(id+"-sat", sat, core.RoleUser, "周末做什么菜？红烧肉还是火锅"),
			msg(id+"-sat", sat.Add(time.Minute), core.RoleAssistant, "红烧肉吧，火锅下次。"),
		)
	}
	return msgs
}

func TestExactTimePhraseFiltersDirectly(t *testing.T) {
	e := openTest(t)
	ingest(t, e, weeklyCorpus())
	tests := []struct {
		query        string
		wantStart    time.Time
		wantEnd      time.Time
		wantText     string
		wantSessions []string // the sessions of the hits, or with top set, of the top hit
		top          bool
	}{
		{"上周三下午我们讨论了什么数据库", time.Date(2026, 11, 18, 12, 0, 0, 0, cst), time.Date(2026, 11, 18, 18, 0, 0, 0, cst), "我们讨论了什么数据库", []string{"w01-wed"}, false},
		{"what did we say about the database migration last Wednesday afternoon?", time.Date(2026, 11, 18, 12, 0, 0, 0, cst), time.Date(2026, 11, 18, 18, 0, 0, 0, cst), "", []string{"w01-wed"}, false},
		{"上上周 红烧肉", time.Date(2026, 11, 9, 0, 0, 0, 0, cst), time.Date(2026, 11, 16, 0, 0, 0, 0, cst), "红烧肉", []string{"w02-sat"}, true},
		{"database migration in October", time.Date(2026, 10, 1, 0, 0, 0, 0, cst), time.Date(2026, 11, 1, 0, 0, 0, 0, cst), "", []string{"w04-wed", "w05-wed", "w06-wed", "w07-wed"}, false},
		// Open at the start: everything before October; ties go to the newest.
		{"红烧肉 before October", time.Time{}, time.Date(2026, 10, 1, 0, 0, 0, 0, cst), "红烧肉", []string{"w09-sat"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := e.Recall(t.Context(), core.Query{Text: tt.query, Now: refNow, TopK: 10})
			if err != nil {
				t.Fatal(err)
			}
			rt := res.ResolvedTime
			if rt == nil || !rt.Start.Equal(tt.wantStart) || !rt.End.Equal(tt.wantEnd) || rt.Fuzzy {
				t.Fatalf("resolved %+v, want [%v, %v) exact", rt, tt.wantStart, tt.wantEnd)
			}
			if tt.wantText != "" && res.SearchText != tt.wantText {
				t.Errorf("search text %q, want %q", res.SearchText, tt.wantText)
			}
			if len(res.ScannedWeeks) != 0 {
				t.Errorf("an exact range scanned weeks %v", res.ScannedWeeks)
			}
			var got []string
			for _, h := range res.Hits {
				if h.Time.Before(rt.Start) || !h.Time.Before(rt.End) {
					t.Errorf("hit %s at %v is outside [%v, %v)", h.ID, h.Time, rt.Start, rt.End)
				}
				got = append(got, h.Session)
			}
			if tt.top && len(got) > 0 {
				got = got[:1]
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.wantSessions) {
				t.Errorf("sessions %v, want %v", got, tt.wantSessions)
			}
		})
	}
}

func TestProgressiveScanGoesNewestFirstAndStopsEarly(t *testing.T) {
	e := openTest(t)
	ingest(t, e, weeklyCorpus())
	var rounds []core.Round
	res, err := e.Recall(t.Context(), core.Query{
		Text: "前段时间聊过的 database migration", Now: refNow, TopK: 3,
		OnRound: func(r core.Round) { rounds = append(rounds, r) },
	})
	if err != nil {
		t.Fatal(err)
	}
	rt := res.ResolvedTime
	if rt == nil || !rt.Fuzzy {
		t.Fatalf("resolved %+v, want a fuzzy range", rt)
	}
	// 前段时间 ends a week before today: the scan starts in that week.
	first := timeparse.WeekOf(rt.End.Add(-time.Nanosecond))
	if len(res.ScannedWeeks) == 0 || res.ScannedWeeks[0] != first.String() {
		t.Fatalf("scanned %v, want to start at %s", res.ScannedWeeks, first)
	}
	for i := 1; i < len(res.ScannedWeeks); i++ {
		prev, _ := timeparse.ParseWeek(res.ScannedWeeks[i-1])
		if res.ScannedWeeks[i] != prev.Prev().String() {
			t.Errorf("week %d is %s, want %s (one week back)", i, res.ScannedWeeks[i], prev.Prev())
		}
	}
	// One Wednesday session per week: three rounds give three hits, and the
	// scan stops there instead of going on to max_scan_weeks.
	if len(res.Hits) != 3 || len(res.ScannedWeeks) != 3 || len(rounds) != 3 {
		t.Errorf("%d hits over %d weeks (%d rounds), want 3 and 3", len(res.Hits), len(res.ScannedWeeks), len(rounds))
	}
	for i, h := range res.Hits {
		if i > 0 && !h.Time.Before(res.Hits[i-1].Time) {
			t.Errorf("hit %d (%v) is not older than hit %d", i, h.Time, i-1)
		}
		if h.Time.Before(rt.Start) || !h.Time.Before(rt.End) {
			t.Errorf("hit at %v outside the fuzzy span [%v, %v)", h.Time, rt.Start, rt.End)
		}
	}
	for i, r := range rounds {
		if r.Week != res.ScannedWeeks[i] || len(r.Hits) != 1 {
			t.Errorf("round %d: week %s with %d hits", i, r.Week, len(r.Hits))
		}
	}
}

func TestProgressiveScanWhenPlainSearchIsShort(t *testing.T) {
	e := openTest(t, func(c *core.Config) {
		c.Retriever.EnableProgressiveScan = true
		c.Retriever.MaxScanWeeks = 4
	})
	ingest(t, e, weeklyCorpus())
	res, err := e.Recall(t.Context(), core.Query{Text: "quantum chromodynamics", Now: refNow, TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"2026-W48", "2026-W47", "2026-W46", "2026-W45"}; !slices.Equal(res.ScannedWeeks, want) {
		t.Errorf("scanned %v, want %v", res.ScannedWeeks, want)
	}
	res, err = e.Recall(t.Context(), core.Query{Text: "database migration", Now: refNow, TopK: 3})
	if err != nil || len(res.ScannedWeeks) != 0 || len(res.Hits) != 3 {
		t.Errorf("a query with enough hits scanned %v (%v)", res.ScannedWeeks, err)
	}
}

func TestFilterExpressions(t *testing.T) {
	e := openTest(t)
	msgs := weeklyCorpus()
	for i := range msgs {
		if msgs[i].Role == core.RoleAssistant {
			msgs[i].Speaker = "Helper"
		} else {
			msgs[i].Speaker = "Alice"
		}
	}
	ingest(t, e, msgs)
	for _, tt := range []struct {
		filter       string
		wantSessions []string
	}{
		{"session = 'w03-wed'", []string{"w03-wed"}},
		{"timestamp >= '2026-11-16' AND timestamp <= '2026-11-22'", []string{"w01-sat", "w01-wed"}},
		{"(session = 'w01-wed' OR session = 'w02-wed') AND NOT role = 'system'", []string{"w01-wed", "w02-wed"}},
		{"speaker = 'Alice' AND timestamp > '2026-11-22'", []string{"w00-sat", "w00-wed"}},
		{"session != 'w00-wed' AND timestamp >= '2026-11-23'", []string{"w00-sat"}},
		{"namespace = 'other'", nil},
	} {
		t.Run(tt.filter, func(t *testing.T) {
			res, err := e.Recall(t.Context(), core.Query{Text: "database migration 红烧肉", Filter: tt.filter, Now: refNow, TopK: 10})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.Session)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.wantSessions) {
				t.Errorf("sessions %v, want %v", got, tt.wantSessions)
			}
		})
	}
	_, err := e.Recall(t.Context(), core.Query{Text: "x", Filter: "session = 'a' ANDD role = 'user'"})
	var se *filter.SyntaxError
	if !errors.Is(err, core.ErrInvalid) || !errors.As(err, &se) || !strings.Contains(err.Error(), `unexpected "ANDD" at column 15`) {
		t.Errorf("bad filter error %v", err)
	}
}

func TestNoTimeKeepsThePhraseAsText(t *testing.T) {
	e := openTest(t)
	ingest(t, e, weeklyCorpus())
	res, err := e.Recall(t.Context(), core.Query{Text: "上周三 数据库", Now: refNow, NoTime: true, TopK: 30})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResolvedTime != nil || res.SearchText != "上周三 数据库" {
		t.Errorf("resolved %+v, text %q", res.ResolvedTime, res.SearchText)
	}
	// An impossible date is just text.
	res, err = e.Recall(t.Context(), core.Query{Text: "2月30日 database", Now: refNow})
	if err != nil || res.ResolvedTime != nil {
		t.Errorf("impossible date: %+v %v", res.ResolvedTime, err)
	}
}

// TestEmptyTimeWindowWidens checks that a time phrase whose window holds
// nothing relevant gives the best hits from the rest of the time the query
// allows, and says so; a window that holds something is kept.
func TestEmptyTimeWindowWidens(t *testing.T) {
	e := openTest(t)
	ingest(t, e, weeklyCorpus())
	first := time.Date(2026, 7, 6, 0, 0, 0, 0, cst) // the corpus's first Monday
	tests := []struct {
		name        string
		q           core.Query
		wantWidened bool
		wantHits    bool
		since       time.Time // every hit at or after it
		inWindow    bool      // every hit inside the resolved window
	}{
		{"a year with nothing", core.Query{Text: "红烧肉 in 2025"}, true, true, first, false},
		{"a month with the subject", core.Query{Text: "红烧肉 in October"}, false, true, time.Time{}, true},
		{"the caller's since still holds", core.Query{Text: "红烧肉 in 2025", Since: time.Date(2026, 11, 1, 0, 0, 0, 0, cst)}, true, true, time.Date(2026, 11, 1, 0, 0, 0, 0, cst), false},
		{"a fuzzy phrase with nothing", core.Query{Text: "红烧肉 recently", Now: refNow.AddDate(1, 0, 0)}, true, true, first, false},
		{"nothing anywhere", core.Query{Text: "in 2025", Filter: "session = 'none'"}, false, false, time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			q.TopK = 4 // the corpus has four sessions about 红烧肉 in October
			if q.Now.IsZero() {
				q.Now = refNow
			}
			res, err := e.Recall(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			rt := res.ResolvedTime
			if rt == nil {
				t.Fatalf("no time resolved for %q", q.Text)
			}
			if res.Widened != tt.wantWidened || (len(res.Hits) > 0) != tt.wantHits {
				t.Fatalf("widened %v with %d hits, want widened %v, hits %v", res.Widened, len(res.Hits), tt.wantWidened, tt.wantHits)
			}
			for _, h := range res.Hits {
				if h.Time.Before(tt.since) {
					t.Errorf("hit %s at %v is before %v", h.ID, h.Time, tt.since)
				}
				if tt.inWindow && (h.Time.Before(rt.Start) || !h.Time.Before(rt.End)) {
					t.Errorf("hit %s at %v is outside [%v, %v)", h.ID, h.Time, rt.Start, rt.End)
				}
				if !strings.HasSuffix(h.Session, "-sat") {
					t.Errorf("hit %s of session %s is not about 红烧肉", h.ID, h.Session)
				}
			}
		})
	}
}

// TestWidenPastTheFloor checks widening where the window holds chunks but
// none reaches the relevance floor: without it, the query would find
// nothing.
func TestWidenPastTheFloor(t *testing.T) {
	e := openTest(t)
	msgs := corpus(7, 600, 20, time.Date(2026, 1, 5, 9, 0, 0, 0, cst))
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, cst)
	msgs = append(msgs,
		msg("narwhal", at, core.RoleUser, "We booked the narwhal expedition to Svalbard for the summer."),
		msg("narwhal", at.Add(time.Minute), core.RoleAssistant, "Noted: the Svalbard narwhal expedition."))
	ingest(t, e, msgs)
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, cst)
	res, err := e.Recall(t.Context(), core.Query{Text: "the narwhal expedition in January", Now: now, TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResolvedTime == nil || !res.Widened || len(res.Hits) == 0 || res.Hits[0].Session != "narwhal" {
		t.Fatalf("resolved %+v, widened %v, hits %v; want the narwhal session, widened", res.ResolvedTime, res.Widened, res.Hits)
	}
	// The same question about a month that has it is not widened.
	res, err = e.Recall(t.Context(), core.Query{Text: "the narwhal expedition in March", Now: now, TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Widened || len(res.Hits) == 0 || res.Hits[0].Session != "narwhal" {
		t.Fatalf("widened %v, hits %v; want the narwhal session, not widened", res.Widened, res.Hits)
	}
}

// TestStrictTimeKeepsTheWindow checks retriever.strict_time: a window
// that holds nothing stays empty.
func TestStrictTimeKeepsTheWindow(t *testing.T) {
	e := openTest(t, func(c *core.Config) { c.Retriever.StrictTime = true })
	ingest(t, e, weeklyCorpus())
	res, err := e.Recall(t.Context(), core.Query{Text: "红烧肉 in 2025", Now: refNow, TopK: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Widened || len(res.Hits) != 0 {
		t.Fatalf("strict time: widened %v with %d hits, want none", res.Widened, len(res.Hits))
	}
}
